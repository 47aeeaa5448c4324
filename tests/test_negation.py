"""Negation in a question (``tools.signals.negation``) and how the offline reader and the label matcher read it
(``agents.intent``, ``agents.taxonomy``; measured by ``studies.negation``)."""

from __future__ import annotations

import pytest

from tools.signals.lexicon import emotion_phrase
from tools.signals.negation import MAX_SCOPE_WORDS, expand_contractions, split_negated


@pytest.mark.parametrize("text, written", [
    ("when isn't she happy?", "when is not she happy?"),
    ("when can't he stop laughing?", "when can not he stop laughing?"),
    ("when won't they smile?", "when will not they smile?"),
    ("when doesn't he look pleased?", "when does not he look pleased?"),
    ("when is she calm?", "when is she calm?"),
])
def test_negative_contractions_are_written_out(text, written):
    assert expand_contractions(text) == written


@pytest.mark.parametrize("question, phrase", [
    ("when isn't she happy?", "not happy"),
    ("When doesn't he look pleased at all?", "not look pleased at all"),
    ("when can't she stop laughing?", "not stop laughing"),
])
def test_the_emotion_phrase_keeps_a_contracted_negation(question, phrase):
    assert emotion_phrase(question) == phrase


@pytest.mark.parametrize("phrase, affirmed, scopes", [
    ("not happy", "", ["happy"]),
    ("no longer furious", "", ["longer furious"]),
    ("stay calm and not lose his temper", "stay calm and", ["lose his temper"]),
    ("face them without fear", "face them", ["fear"]),
    ("seem anything but delighted", "seem", ["delighted"]),
    ("neither angry nor sad", "", ["angry", "sad"]),
    ("try not to cry", "try to cry", []),
    ("not stop laughing", "not stop laughing", []),
    ("not hide her contempt", "not hide her contempt", []),
    ("not be happier", "not be happier", []),
    ("nobody came , felt lonely", "felt lonely", ["came"]),
    ("say no", "say", []),
    ("happy", "happy", []),
])
def test_a_cue_negates_the_words_after_it_up_to_a_terminator(phrase, affirmed, scopes):
    assert split_negated(phrase) == (affirmed, scopes)


def test_a_cue_negates_at_most_a_window_of_words():
    words = [f"w{i}" for i in range(MAX_SCOPE_WORDS + 2)]
    affirmed, scopes = split_negated(" ".join(["not", *words]))
    assert scopes == [" ".join(words[:MAX_SCOPE_WORDS])]
    assert affirmed == " ".join(words[MAX_SCOPE_WORDS:])


@pytest.mark.parametrize("question, denied", [
    ("when is she not happy?", "happiness"),
    ("when isn't he angry?", "anger"),
    ("when does she face them without fear?", "fear"),
    ("when is nobody smiling?", "happiness"),
    ("when doesn't she sneer at them?", "contempt"),
])
def test_the_reader_never_asks_about_the_emotion_a_question_denies(question, denied):
    """Read as any other words, each question asks about the very emotion it denies; read as negated, it does not."""
    from agents.intent import asked_emotions

    assert denied in asked_emotions(question, negation=False)
    assert denied not in asked_emotions(question)


@pytest.mark.parametrize("question, emotion", [
    ("when can't she stop laughing?", "happiness"),
    ("when can't he hide his anger?", "anger"),
    ("when does someone show no emotion at all?", "neutral"),
])
def test_a_phrasing_that_does_not_deny_a_feeling_keeps_it(question, emotion):
    """Phrasings that show a feeling ("can't stop laughing") and a denied feeling in general ("no emotion") are not
    read as denying one emotion."""
    from agents.intent import asked_emotions

    assert asked_emotions(question)[:1] == [emotion]


def test_a_negated_label_word_names_no_label():
    from agents.taxonomy import load_taxonomy

    labels = load_taxonomy("VQAU-13")
    assert labels.named_in("when is she proud?") == ["Pride"]
    assert labels.named_in("when is she not proud?") == []
    assert labels.named_in("when isn't he proud of her?") == []


def test_a_cue_in_a_remembered_scene_denies_nothing_after_its_clause():
    """"nobody came" negates the coming, not the loneliness the memory form names after the comma."""
    from agents.intent import asked_emotions

    question = "I recall a boy waiting at the gate and nobody came, felt kind of lonely"
    assert emotion_phrase(question, punctuation=True).endswith("nobody came , felt kind of lonely")
    assert asked_emotions(question)[:1] == ["sadness"]


def test_the_study_reads_the_dev_negation_questions_as_recorded():
    """``studies.negation``'s rows for the first file's dev half are those ``evals/results/negation_dev.json``
    records."""
    import json
    from pathlib import Path

    from evals.questions import negation_questions
    from studies.negation import negation_rows

    recorded = json.loads((Path(__file__).parents[1] / "evals" / "results" / "negation_dev.json").read_text())
    rows, _ = negation_rows(negation_questions("negated", "dev"), negation_questions("not_negated", "dev"))
    assert rows == recorded["negation"]["dev"]["rows"]
