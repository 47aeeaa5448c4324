"""Every structured-output task the roles ask an LLM, by name (``agents.llm.LLMTask``)."""

from __future__ import annotations

from agents.choice import CHOOSE_OPTION
from agents.emotion import JUDGE_EMOTION
from agents.grounding import GROUND_PERSON
from agents.intent import INTERPRET_INTENT
from agents.llm import LLMTask
from agents.rationale import WRITE_RATIONALE
from agents.verifier import REFINE_QUERY

TASKS: dict[str, LLMTask] = {t.name: t for t in (INTERPRET_INTENT, GROUND_PERSON, REFINE_QUERY, JUDGE_EMOTION,
                                                  WRITE_RATIONALE, CHOOSE_OPTION)}
