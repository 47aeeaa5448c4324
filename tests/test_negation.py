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
    ("when cannot he smile?", "when can not he smile?"),
    ("when isn\u2019t she happy?", "when is not she happy?"),
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
    ("not angry or sad", "", ["angry", "sad"]),
    ("not seem annoyed or sad at all", "", ["seem annoyed", "sad at all"]),
    ("not angry or sad but calm", "but calm", ["angry", "sad"]),
    ("not stop laughing or smiling", "not stop laughing or smiling", []),
    ("nobody smiling or is anybody angry", "or is anybody angry", ["smiling"]),
    ("not sad or rather happy", "or rather happy", ["sad"]),
    ("either not angry or sad", "either or sad", ["angry"]),
    ("try not to cry", "try to cry", []),
    ("not stop laughing", "not stop laughing", []),
    ("not hide her contempt", "not hide her contempt", []),
    ("not be happier", "not be happier", []),
    ("nobody came , felt lonely", "felt lonely", ["came"]),
    ("nobody came - felt lonely", "- felt lonely", ["came"]),
    ("not | happy ?", "", ["happy"]),
    ("nobody notice | is sad", "is sad", ["notice"]),
    ("say no angrily", "say no angrily", []),
    ("not so happy", "", ["so happy"]),
    ("not be sadder", "not be sadder", []),
    ("not have been more pleased", "not have been more pleased", []),
    ("not keep calm", "", ["keep calm"]),
    ("not keep his nerves in check", "not keep his nerves in check", []),
    ("not just angry but furious", "not just angry but furious", []),
    ("say no", "say no", []),
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


@pytest.mark.parametrize("question, denied", [
    ("when is she not angry or sad?", {"anger", "sadness"}),
    ("when is he not afraid or angry?", {"fear", "anger"}),
    ("when isn't he disgusted or contemptuous?", {"disgust", "contempt"}),
])
def test_a_cue_denies_every_feeling_or_joins_after_it(question, denied):
    """"Not angry or sad" denies both, as NegEx negates each finding of a list: the reader asked about sadness (the
    cue's scope ended at "or"), and with the scope read whole, the feeling a word names ("angry") hid the one only a
    similarity names ("afraid": not among the lexicon's words)."""
    from agents.intent import asked_emotions

    assert not denied & set(asked_emotions(question))


def test_a_label_after_or_is_named_when_a_new_clause_begins_and_denied_when_or_joins_the_denial():
    """The label matcher reads the same scopes: "or is she proud" begins a clause of its own, so Pride is named;
    "not scared or proud" denies both."""
    from agents.taxonomy import load_taxonomy

    labels = load_taxonomy("VQAU-13")
    assert labels.named_in("when is he not scared or is she proud?") == ["Pride"]
    assert labels.named_in("when is he not scared or proud?") == []
    assert labels.named_in("when is he proud?") == ["Pride"]


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


@pytest.mark.parametrize("question", [
    "I recall a boy waiting at the gate and nobody came, felt kind of lonely",
    "I kinda remember nobody came - felt lonely",
    "I remember a letter that never came \u2014 felt heartbroken",
])
def test_a_cue_in_a_remembered_scene_denies_nothing_after_its_clause(question):
    """"nobody came" negates the coming, not the loneliness the memory form names after the comma or dash."""
    from agents.intent import asked_emotions

    assert asked_emotions(question)[:1] == ["sadness"]


def test_a_cue_does_not_reach_into_another_persons_clause():
    """"nobody notice she is sad" asks when she is sad and nobody notices: the sadness is not denied."""
    from agents.intent import asked_emotions

    assert emotion_phrase("when does nobody notice she is sad?", punctuation=True) == "nobody notice | is sad ?"
    assert asked_emotions("when does nobody notice she is sad?")[:1] == ["sadness"]


def test_a_question_without_a_cue_is_read_as_without_the_negation_reading():
    """Questions that hold no negation cue, with commas, dashes and possessives among them, get the same targets
    with and without the negation reading."""
    from agents.intent import asked_emotions
    from evals.questions import HELDOUT, heldout

    questions = [q for q, _ in heldout(HELDOUT)] + [
        "I kinda remember the crowd cracking up right before he pointed - felt so warm",
        "when does someone's face fall, and she looks away?", "when is the red-faced man fuming?"]
    for question in questions:
        assert asked_emotions(question) == asked_emotions(question, negation=False), question


def test_a_change_side_that_only_denies_a_feeling_names_none():
    """"from calm to not angry" asks for a turn from calm to anything but anger: the after side names no emotion,
    where the emotion nearest the denial would be a guess; an affirmed side is read as before."""
    from agents.intent import offline_intent

    denied = offline_intent({"query": "when does he go from calm to not angry?"}).change
    assert denied.before == ["neutral"] and denied.after == []
    assert offline_intent({"query": "when does he go from calm to angry?"}).change.after == ["anger"]


def test_a_label_word_after_a_clause_mark_or_in_a_contraction_is_named():
    from agents.taxonomy import load_taxonomy

    labels = load_taxonomy("VQAU-13")
    assert labels.named_in("I remember nobody noticed, felt proud") == ["Pride"]
    assert labels.named_in("when do they look like they can't wait?") == ["Anticipation"]


def test_the_study_reads_the_dev_form_questions_as_recorded():
    """A pin: ``studies.negation``'s rows for the first file's dev half are those
    ``evals/results/negation_dev.json`` records (the trial's figures in ``evals/RESULTS.md`` section 91), but for one
    question of the reading without negation: since neutral's descriptions say "indifferent" (section 101), "when is
    she no longer indifferent?" read as any other words asks about neutral, the emotion it denies."""
    import json
    from pathlib import Path

    from evals.questions import form_questions
    from studies.negation import BEFORE, NOW, negation_rows

    recorded = json.loads((Path(__file__).parents[1] / "evals" / "results" / "negation_dev.json").read_text())
    recorded_rows = recorded["negation"]["dev"]["rows"]
    rows, _, _ = negation_rows(form_questions("negated", "dev"), form_questions("not_negated", "dev"))
    assert rows[NOW] == recorded_rows[NOW]
    assert rows[BEFORE] == {**recorded_rows[BEFORE], "negated_avoided": recorded_rows[BEFORE]["negated_avoided"] - 1}


def test_the_study_reads_both_halves_of_the_disjunction_questions_as_recorded():
    """A pin: ``studies.negation --disjunction`` reads each half of the third negation file as
    ``evals/results/negation_or.json`` records for this code (``evals/RESULTS.md`` section 156: 15 of 16 development
    questions and 16 of 16 test questions deny none of their denied emotions; "now_185": the same figures, three
    questions' other targets moved by section 185's reading of "look" as a linking verb), question by question."""
    import json
    from pathlib import Path

    from studies.negation import disjunction_scores

    recorded = json.loads((Path(__file__).parents[1] / "evals" / "results" / "negation_or.json").read_text())
    for half, right in (("dev", 15), ("test", 16)):
        now = disjunction_scores(half)
        assert now == recorded[half]["now_185"]
        assert (now["denied_avoided"], now["n"]) == (right, 16)


def test_a_stretch_after_or_that_shows_its_feeling_is_not_denied():
    """"can't smile or stop crying": the cue denies the smile; "stop crying" after "or" shows the crying, as "can't stop
    crying" would (NegEx's pseudo-negation), so the scope ends at that "or", its words read over a window of their own
    ("keep ... in check" is found past the cue's five words)."""
    assert split_negated("can not smile or stop crying") == ("can or stop crying", ["smile"])
    assert split_negated("does not sit still or hide her anger") == ("does or hide her anger", ["sit still"])
    assert split_negated("can not sit still or keep his anger in check") == ("can or keep his anger in check",
                                                                              ["sit still"])
    assert split_negated("can not relax or keep calm") == ("can", ["relax", "keep calm"])  # "keep calm" is denied
    assert split_negated("is not angry or sad") == ("is", ["angry", "sad"])  # stretches that deny stay denied
    assert split_negated("can not stop laughing or crying") == ("can not stop laughing or crying", [])
    # "couldn't be happier" says the feeling could not be stronger; after "or" a comparative says only "cannot"
    assert split_negated("can not relax or be happier") == ("can", ["relax", "be happier"])


def test_the_feeling_shown_after_or_is_asked_and_the_one_denied_is_not():
    from agents.intent import asked_emotions

    assert asked_emotions("when can't he relax or stop shaking with fear?")[0] == "fear"  # disgust before
    assert asked_emotions("when can't he look away or hide his disgust?")[0] == "disgust"  # contempt before
    assert "anger" in asked_emotions("when can't he sit still or keep his anger in check?")
    assert "happiness" not in asked_emotions("when can't she relax or be happier?")


def test_the_study_reads_both_halves_of_the_shown_after_or_questions_as_recorded():
    """A pin: ``studies.negation --shown`` reads each half of the fourth negation file as
    ``evals/results/negation_shown.json`` records for this code (``evals/RESULTS.md`` section 159: the feeling shown
    asked first for 7 of 8 development and, read again after a review's mend, 8 of 8 test questions), question by
    question."""
    import json
    from pathlib import Path

    from studies.negation import shown_scores

    recorded = json.loads((Path(__file__).parents[1] / "evals" / "results" / "negation_shown.json").read_text())
    for half, right in (("dev", 7), ("test", 8)):
        now = shown_scores(half)
        assert now == recorded[half]["now"]
        assert (now["shown_first"], now["n"]) == (right, 8)
    with pytest.raises(ValueError):
        shown_scores("train")


@pytest.mark.parametrize(("question", "denied"), [
    ("when is nobody happy?", ["happiness"]), ("when isn't he scared?", ["fear"]),
    ("when is she not angry or sad?", ["anger", "sadness"]), ("when is she angry?", []),
    ("when does she smile without anyone noticing?", []),  # a negation that denies no feeling
])
def test_the_feelings_a_question_denies(question, denied):
    from agents.denied import denied_feelings

    assert denied_feelings(question) == denied
