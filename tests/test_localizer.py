"""The candidate localizer's ranking on the bundled sample's real index."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

from agents.intent import offline_intent
from agents.llm import load_llm
from agents.localizer import localize_candidates
from agents.state import RunContext, RunSettings
from indexing.build import open_index
from memory.index_config import IndexConfig
from tests.conftest import SAMPLE

QUESTIONS = ("when does someone look happy?", "when is someone angry?", "when is somebody surprised?",
             "when does someone look sad?")


@pytest.mark.slow
@pytest.mark.parametrize("query", QUESTIONS)
def test_fewer_candidates_are_the_first_of_more(cache_root, query):
    """Asking for fewer candidates gives the first of those a larger round proposes: for a question that names a
    feeling, a clip's place in the ranking does not depend on whether the clip search's top k holds it (before,
    the clips outside it lost their whole cosine, 0.25-0.7 on the sample, and 'when is someone angry?' with one
    candidate proposed the clip that reads anger 0.14 ahead of the one that reads it 0.48)."""
    index = open_index(SAMPLE, IndexConfig(), cache_root)
    intent = offline_intent({"query": query})
    state = {"query": query, "intent": intent, "search_text": intent.search_text, "round": 0, "candidates": []}

    def proposed(n: int) -> list[str]:
        ctx = RunContext(index=index, llm=load_llm("offline"), settings=RunSettings(candidates_per_round=n))
        return [c.clip_id for c in localize_candidates(state, Runtime(context=ctx))["candidates"]]

    every = proposed(len(index.clips))
    assert sorted(every) == sorted(c.id for c in index.clips)  # a question about a feeling scores every clip
    for n in range(1, len(index.clips)):
        assert proposed(n) == every[:n]
