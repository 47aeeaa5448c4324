"""The labelled and held-out question files that measure the question reader (``evals.questions``)."""

from __future__ import annotations

import json

from evals.questions import (
    HELDOUT,
    HELDOUT2,
    HELDOUT3,
    HELDOUT4,
    HELDOUT5,
    HELDOUT6,
    HELDOUT7,
    NEGATION,
    NEGATION2,
    QUESTIONS,
    heldout,
    negation_questions,
    split,
)
from tools.core.schema import AFFECTNET8

FILES = (HELDOUT, HELDOUT2, HELDOUT3, HELDOUT4, HELDOUT5, HELDOUT6, HELDOUT7)


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


def test_the_negation_questions_are_new_and_split_in_halves_per_emotion():
    """The first negation file holds 6 negated questions and 2 that look negated but are not per emotion, each form
    split half dev, half test; the second 3 and 2 per emotion; neither asks a question of another question file (case
    ignored)."""
    records = [json.loads(line) for line in NEGATION.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len({r["query"].lower() for r in records}) == len(records) == 64
    for form, per_emotion in (("negated", 3), ("not_negated", 1)):
        for part in ("dev", "test"):
            assert sorted(lab for _, lab in negation_questions(form, part)) == sorted(AFFECTNET8 * per_emotion)
    second = {q.lower() for form in ("negated", "not_negated") for q, _ in negation_questions(form, path=NEGATION2)}
    assert sorted(lab for _, lab in negation_questions("negated", path=NEGATION2)) == sorted(AFFECTNET8 * 3)
    assert sorted(lab for _, lab in negation_questions("not_negated", path=NEGATION2)) == sorted(AFFECTNET8 * 2)
    others = {q.lower() for path in FILES for q, _ in heldout(path)}
    others |= {q.lower() for part in ("dev", "test") for q, _ in split(part, QUESTIONS)}
    first = {r["query"].lower() for r in records}
    assert len(second) == 40
    assert not first & others and not second & (others | first)
