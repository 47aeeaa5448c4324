"""Questions about an activity (``tools.signals.activity_words``, read by ``agents.intent.chosen_emotions`` and
``tools.signals.behaviour_words.says_feeling``): "when does she eat lunch?" asks when she eats, not a feeling, while
an activity done with a feeling said ("in tears", "with joy") still asks it."""

from __future__ import annotations

import json

import pytest

from agents.intent import offline_intent
from tools.signals.activity_words import ACTIVITY_VERBS, activity_verb, without_activity_verb
from tools.signals.behaviour_words import says_feeling
from tools.signals.lexicon import emotion_words


def test_the_verb_lists_hold_wordnets_first_senses():
    record = json.loads(ACTIVITY_VERBS.read_text())
    activity, other = set(record["activity"]), set(record["other"])
    assert not activity & other and len(activity) > 2000 and len(other) > 4000
    assert {"eat", "swim", "walk", "scratch", "kneel", "cook", "dance"} <= activity
    assert {"pine", "smile", "cry", "laugh", "worry", "seem"} <= other  # feelings, their signs, linking verbs
    assert "tear" in other  # "tear" (rip) is written like "tear" (shed tears)
    assert record["files"] == ["verb.motion", "verb.consumption", "verb.contact", "verb.creation",
                               "verb.competition"]


@pytest.mark.parametrize(("question", "verb"), [
    ("when are they swimming?", "swimming"),
    ("when does she eat lunch?", "eat"),
    ("when does the woman start running?", "running"),
    ("when does she go swimming?", "swimming"),
    ("when does the man scratch his head?", "scratch"),
    ("when is she pining?", ""),  # "pin" is a doing, "pine" a longing: not read as a doing
    ("when is she shaking like a leaf?", ""),  # a likeness says how she feels
    ("when does he go pale?", ""),
    ("when does the woman seem defeated?", ""),  # "defeat" is a doing, "defeated" here a state
    ("when does she smile?", ""),
    ("when does he worry?", ""),
    ("when does he tear up?", ""),
])
def test_the_activity_verb_is_the_doing_a_question_asks_about(question, verb):
    assert activity_verb(question) == verb


def test_without_the_activity_verb_the_rest_of_the_question_remains():
    assert without_activity_verb("When does she EAT her lunch in tears?") == "When does she her lunch in tears?"
    assert without_activity_verb("when does she smile?") == "when does she smile?"


def test_a_rare_feeling_sense_of_the_activity_verb_says_no_feeling():
    # WordNet's "eat": "worry or cause anxiety", "swimming": "filled or brimming with tears" are in the emotion words
    assert emotion_words()["eat"] == "fear" and emotion_words()["swimming"] == "sadness"
    assert not says_feeling("when does she eat lunch?") and not says_feeling("when are they swimming?", glosses=True)
    assert says_feeling("when does he throw a fit?") and says_feeling("when does she eat, furious?")


@pytest.mark.parametrize(("question", "first"), [
    ("when does she eat lunch?", None),
    ("when are they swimming?", None),
    ("when does the man scratch his head?", None),
    ("when is the man kneeling by the car?", None),
    ("when does someone enter the room?", None),
    ("when does she eat her lunch in tears?", "sadness"),
    ("when does she jump for joy?", "happiness"),
    ("when does he drive off in a rage?", "anger"),
    ("when does she push the plate away in disgust?", "disgust"),
    ("when does he throw a fit?", "anger"),
])
def test_an_activity_asks_a_feeling_only_where_the_question_says_one(question, first):
    targets = list(offline_intent({"query": question}).target_emotions)
    assert (targets[:1] or [None]) == [first]


def test_an_activity_that_stops_is_no_feeling_that_ends():
    # section 178 read "stop eating" as the end of fear, through WordNet's "eat": "worry"
    intent = offline_intent({"query": "when does he stop eating?"})
    assert intent.change is None and list(intent.target_emotions) == []
    crying = offline_intent({"query": "when does she stop crying?"})
    assert crying.change is not None and crying.change.before == ["sadness"]
