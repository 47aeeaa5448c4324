"""The labelled and held-out question files that measure the question reader (``evals.questions``)."""

from __future__ import annotations

from evals.questions import HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4, QUESTIONS, heldout, split
from tools.core.schema import AFFECTNET8

FILES = (HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4)


def test_each_held_out_file_holds_new_questions_balanced_over_the_emotions():
    """Every held-out file holds 48 idioms and 16 memory-form questions, 6 and 2 per AffectNet-8 emotion; none asks a
    question of a file before it; the second file on asks none of the labelled questions (case ignored)."""
    labelled = {q.lower() for part in ("dev", "test") for q, _ in split(part, QUESTIONS)}
    earlier: set[str] = set()
    for i, path in enumerate(FILES):
        asked = {q.lower() for q, _ in heldout(path)}
        assert len(asked) == len(heldout(path)) == 64, path.name
        assert sorted(label for _, label in heldout(path, form="idiom")) == sorted(AFFECTNET8 * 6), path.name
        assert sorted(label for _, label in heldout(path, form="memory")) == sorted(AFFECTNET8 * 2), path.name
        assert not asked & earlier, path.name
        assert i == 0 or not asked & labelled, path.name
        earlier |= asked
