"""Negation in a question's words: "when is she *not* happy?" asks about a moment without happiness, not about one
with it.

After NegEx (Chapman, Bridewell, Hanbury, Cooper and Buchanan, 2001, "A Simple Algorithm for Identifying Negated
Findings and Diseases in Discharge Summaries", Journal of Biomedical Informatics 34(5)): a negation cue ("not", "no",
"never", "nobody", "without", "anything but", and "n't" once contractions are expanded) negates the words after it,
up to a scope terminator ("but", "and", "to", ...), the next cue, or ``MAX_SCOPE_WORDS`` words (NegEx's window of five); a cue that
begins a phrase which does not negate its feeling ("can't *stop* laughing", "can't *hide* his anger", NegEx's
pseudo-negations) negates nothing. Pure functions of text; the question reader (``agents.intent.emotion_scores``)
and the label matcher (``agents.taxonomy.Taxonomy.named_in``) read the negated words apart.
"""

from __future__ import annotations

import re

#: Words that negate what follows them (after contractions are expanded: "isn't" -> "is not").
NEGATION_CUES = frozenset({"not", "no", "never", "nobody", "without", "neither", "nor"})
#: Two-word cues, read as one ("he seems anything but delighted").
NEGATION_PAIRS = frozenset({("anything", "but")})
#: A cue directly followed by one of these words negates nothing: the feeling after them is shown, not denied
#: ("can't stop laughing", "couldn't hold back his tears", "can't hide her contempt"; NegEx's pseudo-negations).
NOT_NEGATING = frozenset({"stop", "stopping", "help", "helping", "hide", "hiding", "hold", "holding", "contain",
                          "containing", "control", "controlling", "conceal", "concealing", "suppress", "keep",
                          "keeping", "wait", "only"})
#: Words that end a cue's scope (NegEx's termination terms, for the clauses a question joins).
SCOPE_TERMINATORS = frozenset({"but", "and", "or", "to", "yet", "though", "although", "while", "until", "because",
                               "so", "when", "after", "before", "than", "then"})
#: Marks that end a clause, and so a cue's scope (NegEx ends a scope at the end of a sentence), kept as words of their
#: own by ``tools.signals.lexicon.emotion_phrase(punctuation=True)``; not part of the affirmed text.
CLAUSE_MARKS = frozenset({",", ";", ":", ".", "!", "?"})
#: After a cue and "be" or "been", a comparative says the feeling could not be stronger ("couldn't be happier",
#: "never been more pleased", "couldn't be better"): such a cue negates nothing. Comparatives: these words and words
#: ending in "ier".
COMPARATIVES = frozenset({"more", "better"})
#: The most words a cue negates (NegEx's window).
MAX_SCOPE_WORDS = 5

_CONTRACTIONS = ((re.compile(r"\bcan't\b"), "can not"), (re.compile(r"\bwon't\b"), "will not"),
                 (re.compile(r"\bshan't\b"), "shall not"), (re.compile(r"\b([a-z]+)n't\b"), r"\1 not"))


def expand_contractions(text: str) -> str:
    """``text`` (lower case) with its negative contractions written out: "isn't" -> "is not", "can't" -> "can not",
    "won't" -> "will not", "doesn't" -> "does not"."""
    for pattern, written in _CONTRACTIONS:
        text = pattern.sub(written, text)
    return text


def _intensifies(tokens: list[str]) -> bool:
    """Whether the words after a cue make it an intensifier ("be happier", "been more pleased"; ``COMPARATIVES``)."""
    return (len(tokens) >= 2 and tokens[0] in ("be", "been")
            and (tokens[1] in COMPARATIVES or (tokens[1].endswith("ier") and len(tokens[1]) > 4)))


def split_negated(phrase: str) -> tuple[str, list[str]]:
    """``(affirmed, scopes)`` of ``phrase`` (lower-case words; contractions expanded by ``expand_contractions``):
    ``affirmed`` is the phrase without its negation cues and the words they negate, ``scopes`` the negated stretches
    in order (module doc). ``"not happy"`` -> ``("", ["happy"])``; ``"stay calm and not lose his temper"`` ->
    ``("stay calm and", ["lose his temper"])``; ``"can not stop laughing"`` -> ``("can not stop laughing", [])``;
    ``"nobody came , felt lonely"`` -> ``("felt lonely", ["came"])`` (``CLAUSE_MARKS`` end a scope and are dropped).
    """
    tokens = phrase.split()
    kept: list[str] = []
    scopes: list[str] = []
    i = 0
    while i < len(tokens):
        width = 2 if tuple(tokens[i:i + 2]) in NEGATION_PAIRS else 1 if tokens[i] in NEGATION_CUES else 0
        after = tokens[i + width:i + width + 2]
        if not width or after[:1] and after[0] in NOT_NEGATING or _intensifies(after):
            kept += [] if tokens[i] in CLAUSE_MARKS else [tokens[i]]
            i += 1
            continue
        end = i + width
        while (end < len(tokens) and end - i - width < MAX_SCOPE_WORDS
               and tokens[end] not in SCOPE_TERMINATORS | NEGATION_CUES | CLAUSE_MARKS):
            end += 1
        if end > i + width:
            scopes.append(" ".join(tokens[i + width:end]))
        i = end
    return " ".join(kept), scopes
