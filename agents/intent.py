"""Intent interpreter: vague query -> target AffectNet-8 emotions, people, cues, search text."""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from agents.schema import Intent
from agents.state import AffectState, get_ctx
from tools.lexicon import CUE_DESCRIPTIONS
from tools.schema import AFFECTNET8


def interpret_intent(state: AffectState, config: RunnableConfig) -> dict:
    """Ask the LLM for the query's ``Intent``; returns ``intent``, ``search_text`` and ``round`` = 0."""
    ctx = get_ctx(config)
    intent = ctx.llm.structured(
        "interpret_intent",
        {"query": state["query"], "labels": list(AFFECTNET8), "cue_names": list(CUE_DESCRIPTIONS)},
        Intent,
    )
    return {"intent": intent, "search_text": intent.search_text or state["query"], "round": 0}
