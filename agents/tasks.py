"""Every structured-output task the roles ask an LLM, by name (``agents.llm.LLMTask``)."""

from __future__ import annotations

from agents.emotion import JUDGE_EMOTION
from agents.intent import INTERPRET_INTENT
from agents.llm import LLMTask
from agents.rationale import WRITE_RATIONALE
from agents.verifier import REFINE_QUERY

TASKS: dict[str, LLMTask] = {t.name: t for t in (INTERPRET_INTENT, REFINE_QUERY, JUDGE_EMOTION, WRITE_RATIONALE)}
