"""The graph for LangGraph Studio / ``langgraph dev`` (see ``langgraph.json``).

Studio can only send JSON, so this graph's context is plain values: run it with the input
``{"query": "when does she feel left out?"}`` and the context ``{"video": "/path/to/video.mp4",
"llm": "offline", "cache_dir": null}``. Its one node opens (or builds) the video's index, loads the
LLM, and runs the agent graph (``graphs.affect_graph``) with that ``RunContext``; the index and the
LLM are kept per (video, llm, cache_dir) for the next run. This is the only place where a video is
opened from inside a graph.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.llm import load_llm
from agents.state import AffectState, RunContext
from graphs.affect_graph import compiled_graph
from indexing.build import open_index
from memory.index_config import IndexConfig


@dataclass(frozen=True)
class StudioContext:
    """What Studio sends: the video's path, ``offline`` or a litellm model id, and the cache root."""

    video: str
    llm: str = "offline"
    cache_dir: str | None = None


@functools.lru_cache(maxsize=8)
def _run_context(video: str, llm: str, cache_dir: str | None) -> RunContext:
    return RunContext(index=open_index(video, IndexConfig(), cache_dir), llm=load_llm(llm))


def answer(state: AffectState, runtime: Runtime[StudioContext]) -> dict:
    """Run the agent graph on ``state["query"]`` over the video the context names; returns its final state."""
    c = runtime.context
    return compiled_graph().invoke({"query": state["query"]}, context=_run_context(c.video, c.llm, c.cache_dir))


def _build():
    g = StateGraph(AffectState, context_schema=StudioContext)
    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    g.add_edge("answer", END)
    return g.compile()


graph = _build()
