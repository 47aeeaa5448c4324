"""The compiled graph for LangGraph Studio / ``langgraph dev`` (see ``langgraph.json``).

Run it with the input ``{"query": "when does she feel left out?"}`` and the configuration
``{"video": "/path/to/video.mp4", "llm": "offline"}``: the run context (index, LLM) is built from
those plain values (``agents.state.get_ctx``).
"""

from graphs.affect_graph import build_graph

graph = build_graph()
