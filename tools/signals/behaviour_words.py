"""What a question about behaviour says besides the behaviour: a feeling in words, and what is left without the
behaviour's own words. Read by ``agents.intent.chosen_emotions``: "when does she stare at him?" is about a gaze, whose
words the sentence encoder reads close to contempt's "looking down on someone"; "when does he stare at her,
furious?" says a feeling too (``evals/RESULTS.md`` sections 141 and 142).
"""

from __future__ import annotations

import re

from tools.signals.activity_words import activity_forms, named_beside_activity
from tools.signals.change_words import names_feeling_noun
from tools.signals.idioms import glossed_phrases
from tools.signals.lexicon import (
    BEHAVIOUR_PHRASES,
    SPEECH_PHRASES,
    emotion_phrase,
    names_behaviour,
    phrases_pattern,
)
from tools.signals.look_phrases import LOOK_PHRASES, WHERE_LOOK

_FEEL = re.compile(r"\bfe(?:el|els|lt|eling)\b")
#: Below this best emotion score (``agents.emotion_scores.emotion_scores``; MiniLM cosine to the AffectNet-8
#: descriptions), a question that names a gesture, a gaze or speech is about that and names no emotion ("when is he
#: angry?" reads 0.49, "when does he point at someone?" 0.30 for contempt; ``agents.intent.chosen_emotions``), and a
#: sign on the face after someone leaves that reads below it names none (``agents.change.names_feeling``).
BEHAVIOUR_ONLY_BELOW = 0.4


def says_feeling(query: str, glosses: bool = False) -> bool:
    """Whether a question says a feeling in words: an emotion word of its phrase (``tools.signals.lexicon.
    emotion_words``: "when does he angrily point at her?"), "feel"/"felt" ("I remember them hugging, felt so warm") or
    a feeling noun ("mood"); with ``glosses``, also an idiom or word the reader glosses (``tools.signals.idioms.
    glossed_phrases``: "up in arms", "excitedly"; but also "look", whose WordNet gloss is no feeling's). The
    question's activity verb alone is none (``tools.signals.activity_words.activity_forms``: "when does she eat
    lunch?" says no worry, "when are they swimming?" no tears; "when does he throw a fit?" says anger)."""
    phrase, own = emotion_phrase(query), activity_forms(query)
    return bool(named_beside_activity(phrase) or names_feeling_noun(query) or _FEEL.search(query.lower())
                or (glosses and any(key not in own for key, _ in glossed_phrases(phrase))))


def glosses_beside_look(query: str) -> bool:
    """Whether a question that names a look (``tools.signals.look_phrases.LOOK_PHRASES``) glosses a feeling beside
    it: a gloss of its words without the look's (``without_behaviour_words``: "look back fondly"), or an idiom of
    several words that names no behaviour itself ("look over the moon"); not the look's own words ("look out",
    glossed "to be vigilant"; "lower" of "lower her eyes", glossed "look angry or sullen"; "look after" of "where did
    they look after the bell rang?")."""
    if glossed_phrases(emotion_phrase(without_behaviour_words(query), fallback=False)):  # not "the man" alone
        return True
    return any(" " in key and not key.startswith("look ") and not names_behaviour(key.replace("one's", "his"))
               for key, _ in glossed_phrases(emotion_phrase(query)))


_LOOK_VERB = re.compile(r"\blook(?:s|ing|ed)?\b")
_BEHAVIOUR_AND_SPEECH = BEHAVIOUR_PHRASES + SPEECH_PHRASES


def without_look_phrases(query: str) -> str:
    """``query`` in lower case, its words and marks spaced, without its looks (``tools.signals.look_phrases.
    LOOK_PHRASES``), read whole before their words: "lower her gaze" is a look, not the behaviour "gaze"."""
    return " ".join(phrases_pattern(LOOK_PHRASES).sub(" ", _spaced(query)).split())


def without_behaviour_words(query: str) -> str:
    """``query`` in lower case, its words and marks spaced, without its behaviour and speech words
    (``tools.signals.lexicon.BEHAVIOUR_PHRASES``, ``SPEECH_PHRASES``; the look of a question of where someone looks,
    ``tools.signals.look_phrases.WHERE_LOOK``): "when does she glance at him?" -> "when does she at him ?"."""
    text = _spaced(query)
    if WHERE_LOOK.search(text):
        text = _LOOK_VERB.sub(" ", text)
    return " ".join(phrases_pattern(_BEHAVIOUR_AND_SPEECH).sub(" ", text).split())


def _spaced(query: str) -> str:
    """``query`` in lower case, its words and other marks spaced."""
    return " ".join(re.findall(r"[a-z']+|[^\sa-z']", query.lower()))
