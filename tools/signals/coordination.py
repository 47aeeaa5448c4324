"""Feelings a question joins with "or" or "and" ("when is she angry or disgusted?"): each side names its own.

The offline interpreter keeps an emotion beside the best one only when its similarity is close (``agents.intent.
EMOTION_MARGIN``), so a question that names two feelings could keep one ("angry or disgusted": disgust 0.77, anger
0.71 -> disgust alone). ``joined_emotions`` reads the feeling words either side of a coordinator by the WordNet
lexicon (``tools.signals.lexicon.named_emotions``); where the two sides name different emotions, every one of them is
asked. Measured on ``evals/data/questions_two_feelings.jsonl`` (``evals/RESULTS.md`` section 154). The part of a
question that affirms a feeling, without its negations (``affirmed_phrase``), and the emotions its words name
(``affirmed_emotions``) are read here too, for the ranking's target weights (``agents.emotion.target_weights``) and a
change question's sides (``agents.intent.side_emotions``).
"""

from __future__ import annotations

from tools.signals.lexicon import CLAUSE_MARKS, emotion_phrase, named_emotions
from tools.signals.negation import split_negated

#: Words that join two feelings.
COORDINATORS = frozenset({"or", "and", "nor"})
#: Words read on each side of a coordinator ("look scared" or "grossed out").
SIDE_WORDS = 2


def affirmed_phrase(query: str) -> str:
    """What ``query`` says of the feeling (``tools.signals.lexicon.emotion_phrase``, clause marks kept) without its
    negations and what they negate (``tools.signals.negation.split_negated``): "when is she not angry but sad?" ->
    "but sad"."""
    return split_negated(emotion_phrase(query, punctuation=True))[0]


def affirmed_emotions(query: str) -> list[str]:
    """The AffectNet-8 emotions that words of ``affirmed_phrase(query)`` name (``named_emotions``), in order of
    first mention."""
    return named_emotions(affirmed_phrase(query))


def joined_emotions(query: str, scores: dict[str, float]) -> list[str]:
    """The AffectNet-8 emotions that feeling words joined by a coordinator name in the affirmed part of ``query``
    (``tools.signals.negation.split_negated``; "not angry or sad" names none), ordered by ``scores`` (an emotion ->
    similarity map, ``agents.emotion_scores.emotion_scores``), best first: the words on each side of "or", "and" or
    "nor" (``SIDE_WORDS``, and before it any run of feeling words: "angry, sad or scared"); empty unless the two sides
    of one coordinator name different emotions ("sad and lonely" is one feeling)."""
    tokens = [t.strip(CLAUSE_MARKS) for t in affirmed_phrase(query).lower().split()]
    found: list[str] = []
    for i, token in enumerate(tokens):
        if token not in COORDINATORS:
            continue
        start = max(0, i - SIDE_WORDS)
        while start > 0 and named_emotions(tokens[start - 1]):  # a list before it: "angry, sad or scared"
            start -= 1
        left = named_emotions(" ".join(tokens[start:i]))
        right = named_emotions(" ".join(tokens[i + 1:i + 1 + SIDE_WORDS]))
        if left and right and {*left, right[0]} != {right[0]}:
            found += [*left, right[0]]
    return sorted(dict.fromkeys(found), key=lambda e: -scores.get(e, 0.0))
