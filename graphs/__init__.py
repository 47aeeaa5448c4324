"""The LangGraph state machine that wires the role agents together."""
