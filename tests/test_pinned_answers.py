"""Answers on the bundled sample, pinned: a restructuring of the code must leave them as they are.

Pinned with the perception engine (``tools.engine``) in place, from a fresh cache; the same answers
came out of the code before the engine (frame analysis written twice, models loaded in three places).
Change a pinned value only with a change that is meant to change answers, and say so.
"""

from __future__ import annotations

import pytest

from graphs.pipeline import answer_query
from tests.conftest import SAMPLE

pytestmark = pytest.mark.slow

PINNED = {
    "when does the audience enjoy the show?": [(2.61, 5.86, "happiness")],
    "when does he point at someone?": [(2.61, 5.86, "happiness"), (5.11, 8.008, "surprise"), (6.44, 9.98, "anger")],
}


@pytest.mark.parametrize("query", sorted(PINNED))
def test_sample_answers_are_pinned(query, cache_root):
    answer = answer_query(SAMPLE, query, cache_dir=cache_root)
    got = [(round(m.start_s, 3), round(m.end_s, 3), m.emotion) for m in answer.moments]
    assert got == PINNED[query]
    assert all(e.ref.split("#")[1] for m in answer.moments for e in m.evidence)  # every item cites a record
