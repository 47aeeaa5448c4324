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


def test_the_second_feeling_word_file_is_split_in_halves_per_emotion_and_repeats_no_earlier_question():
    """The second feeling-word file, written after the first one's read: 8 questions per AffectNet-8 emotion, 4 dev and
    4 test each, none asked by another question file, and its halves drawn by the seeded shuffle SOURCES.md gives."""
    import random

    from evals.questions import WORDS2
    from studies.feeling_words import earlier_questions

    for part in ("dev", "test"):
        assert sorted(lab for _, lab in form_questions("feeling_word", part, WORDS2)) == sorted(AFFECTNET8 * 4)
    asked = [(q, lab) for q, lab in form_questions("feeling_word", path=WORDS2)]
    assert len({q.lower() for q, _ in asked}) == 64 and not {q.lower() for q, _ in asked} & earlier_questions(WORDS2)
    test = {q for q, _ in form_questions("feeling_word", "test", WORDS2)}
    for emotion in AFFECTNET8:
        written = [q for q, lab in asked if lab == emotion]
        drawn = random.Random(f"words2-162-{emotion}").sample(range(8), 4)
        assert {written[i] for i in drawn} == test & set(written)


def test_the_feeling_word_questions_are_split_in_halves_per_emotion_and_repeat_eight_earlier_ones():
    """The feeling-word file holds 8 questions per AffectNet-8 emotion, 4 dev and 4 test each; eight of them repeat
    an earlier file's question word for word (``evals/data/SOURCES.md``), and the study counts the rest apart."""
    from evals.questions import WORDS
    from studies.feeling_words import earlier_questions

    for part in ("dev", "test"):
        assert sorted(lab for _, lab in form_questions("feeling_word", part, WORDS)) == sorted(AFFECTNET8 * 4)
    asked = {q.lower() for q, _ in form_questions("feeling_word", path=WORDS)}
    assert len(asked) == 64
    assert asked & earlier_questions(WORDS) == {
        "when is he condescending?", "when is she patronizing?", "when is he stone-faced?", "when is she spooked?",
        "when is he seething?", "when does he look forlorn?", "when is he petrified?", "when does she look disgusted?"}


def test_question_readings_score_each_label_kind_leave_held_out_halves_out_and_list_what_changed(tmp_path):
    """``studies.question_readings`` over a folder of question files: a feeling label is right when it is asked first,
    a null label when nothing is, two labels when exactly those are; negated questions and the held-out half of the
    second feeling-word file are not read; ``compared`` sorts a changed reading into gained, lost or changed."""
    import json

    from studies.question_readings import compared, labelled_questions, readings

    rows = {"questions_a.jsonl": [{"query": "when is she happy?", "emotion": "happiness"},
                                  {"query": "when is she furious?", "emotion": "sadness"},
                                  {"query": "when does he point at her?", "emotion": None},
                                  {"query": "when is she angry or disgusted?", "emotions": ["anger", "disgust"]},
                                  {"query": "when is she not happy?", "emotion": "happiness", "form": "negated"}],
            "questions_words2.jsonl": [{"query": "when is he scared?", "emotion": "fear", "split": "dev"},
                                       {"query": "when is he glad?", "emotion": "happiness", "split": "test"}]}
    for name, records in rows.items():
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    assert [q for _, q, _ in labelled_questions(tmp_path)] == [
        "when is she happy?", "when is she furious?", "when does he point at her?", "when is she angry or disgusted?",
        "when is he scared?"]
    now = readings(tmp_path)
    assert now["n"] == 5 and now["right"] == 4 and now["files"] == {"questions_a.jsonl": [3, 4],
                                                                    "questions_words2.jsonl": [1, 1]}
    assert now["questions"]["questions_a.jsonl|when is she furious?"] == [["anger"], False]
    before = json.loads(json.dumps(now))
    before["questions"]["questions_a.jsonl|when is she happy?"] = [["sadness"], False]
    before["questions"]["questions_a.jsonl|when is she furious?"] = [["sadness"], True]
    diff = compared(now, before)
    assert diff == {"gained": {"questions_a.jsonl|when is she happy?": [["sadness"], ["happiness"]]},
                    "lost": {"questions_a.jsonl|when is she furious?": [["sadness"], ["anger"]]}, "changed": {}}
