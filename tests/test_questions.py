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
    form_questions,
    heldout,
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
            assert sorted(lab for _, lab in form_questions(form, part)) == sorted(AFFECTNET8 * per_emotion)
    second = {q.lower() for form in ("negated", "not_negated") for q, _ in form_questions(form, path=NEGATION2)}
    assert sorted(lab for _, lab in form_questions("negated", path=NEGATION2)) == sorted(AFFECTNET8 * 3)
    assert sorted(lab for _, lab in form_questions("not_negated", path=NEGATION2)) == sorted(AFFECTNET8 * 2)
    others = {q.lower() for path in FILES for q, _ in heldout(path)}
    others |= {q.lower() for part in ("dev", "test") for q, _ in split(part, QUESTIONS)}
    first = {r["query"].lower() for r in records}
    assert len(second) == 40
    assert not first & others and not second & (others | first)


def test_the_feeling_word_questions_are_split_in_halves_per_emotion_and_repeat_eight_earlier_ones():
    """The feeling-word file holds 8 questions per AffectNet-8 emotion, 4 dev and 4 test each; eight of them repeat
    an earlier file's question word for word (``evals/data/SOURCES.md``), and the study counts the rest apart."""
    from evals.questions import WORDS
    from studies.feeling_words import earlier_questions

    for part in ("dev", "test"):
        assert sorted(lab for _, lab in form_questions("feeling_word", part, WORDS)) == sorted(AFFECTNET8 * 4)
    asked = {q.lower() for q, _ in form_questions("feeling_word", path=WORDS)}
    assert len(asked) == 64
    assert asked & earlier_questions() == {
        "when is he condescending?", "when is she patronizing?", "when is he stone-faced?", "when is she spooked?",
        "when is he seething?", "when does he look forlorn?", "when is he petrified?", "when does she look disgusted?"}
