"""Perception backends and the engine that runs them: faces, expression, face mesh (gaze, lips), hands and pose,
identity and appearance, speech recognition, voices, voice emotion, prosody, sound, text encoders and text emotion.

Each backend family has a ``tools.core.registry.Registry``; ``tools.perception.engine.PerceptionEngine`` runs the
frame-level ones behind one call. Imports ``tools.core`` and ``tools.signals``, nothing above ``tools``.
"""
