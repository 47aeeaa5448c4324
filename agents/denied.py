"""The feelings a question denies: the AffectNet-8 emotions its negated stretches name ("when is she not *happy*?",
"when is he *without fear*?"), which the offline question reader never asks about
(``agents.emotion_scores.emotion_scores``; the stretches from ``tools.signals.negation.split_negated``, after NegEx;
``evals/RESULTS.md`` section 91)."""

from __future__ import annotations

from tools.perception.text_emotion import TextEmotion, load_text_emotion
from tools.signals.idioms import glossed_phrases
from tools.signals.lexicon import emotion_phrase, named_emotions
from tools.signals.negation import split_negated

#: The similarity at which a negated stretch, or the gloss of a word in it, names the emotion it is most similar to
#: (``negated_emotions``): the word glosses' floor (``studies.build_word_glosses.FLOOR``).
NEGATED_MIN_SIM = 0.5
#: Words for feeling in general, whose negation ("no emotion at all") asks for none rather than denying one.
GENERAL_FEELING_WORDS = frozenset({"emotion", "emotions", "feeling", "feelings", "mood", "moods", "affect", "reaction",
                                   "reactions", "expression", "expressions"})


def negated_emotions(scopes: list[str], idioms: bool = True, word_glosses: bool = True,
                     text: TextEmotion | None = None) -> list[str]:
    """The AffectNet-8 emotions that negated stretches of a question (``tools.signals.negation.split_negated``) name:
    by a word or idiom of ``tools.signals.lexicon.named_emotions`` ("not *happy*", "not *lose his temper*"), else by
    what a stretch says or a gloss of its words says (``tools.signals.idioms.glossed_phrases``; "not *snide*",
    "not *having fun*"): the emotion that text is most similar to when that reaches ``NEGATED_MIN_SIM``. A stretch
    that names no feeling ("not see it coming", "without reacting") negates none, and neither does a word for feeling
    in general (``GENERAL_FEELING_WORDS``: "no emotion" asks for a calm face, not for anything but one). ``idioms``,
    ``word_glosses`` and ``text`` as in ``agents.emotion_scores.emotion_scores``."""
    text = text or load_text_emotion()
    out: list[str] = []
    for scope in scopes:
        named = named_emotions(scope)
        said = [scope, *(gloss for key, gloss in (glossed_phrases(scope, words=word_glosses) if idioms else [])
                         if key not in GENERAL_FEELING_WORDS)]
        for sims in ([] if named else [text.similarities(t)[0] for t in said]):
            best = max(sims, key=sims.__getitem__)
            named += [best] if sims[best] >= NEGATED_MIN_SIM else []
        out += named
    return list(dict.fromkeys(out))


def denied_feelings(question: str) -> list[str]:
    """The AffectNet-8 emotions ``question`` denies (``negated_emotions`` of the negated stretches of its feeling
    phrase, as ``agents.emotion_scores.emotion_scores`` reads them): "when is nobody happy?" -> ["happiness"]; [] for a
    question that denies no feeling ("when is she angry?", "when does she smile without anyone noticing?")."""
    return negated_emotions(split_negated(emotion_phrase(question, punctuation=True))[1])
