"""Role agents: intent interpreter, candidate localizer, verifier, emotion reasoner, rationale writer."""
