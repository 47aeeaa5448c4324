"""Negation in a question's words: "when is she *not* happy?" asks about a moment without happiness, not about one
with it.

After NegEx (Chapman, Bridewell, Hanbury, Cooper and Buchanan, 2001, "A Simple Algorithm for Identifying Negated
Findings and Diseases in Discharge Summaries", Journal of Biomedical Informatics 34(5)): a negation cue
(``NEGATION_CUES``: "not", "no", "never", "nobody", "without", "neither", "nor", "anything but", and "n't" once
contractions are written out) negates the words after it, up to a scope terminator ("but", "and", "to", ...), the
next cue, a clause mark or dash or a removed person reference (``CLAUSE_MARKS``, ``DASHES``, ``PERSON_BREAK``), or
``MAX_SCOPE_WORDS`` words (NegEx's window of five); "or" within a scope joins stretches each negated on its own ("not
angry or sad" denies both; ``DISJUNCTION``), unless a new clause begins after it or "either" came before the cue
(``OR_NEW_CLAUSE``). A cue that begins a phrase which shows its feeling rather than
denying it negates nothing (NegEx's pseudo-negations): "can't *stop* laughing", "can't *hide* his anger", "not *just*
angry", "can't *keep* his nerves *in check*", "couldn't *be happier*", and "no" said aloud ("*say* no angrily"); so
does a stretch after "or" that begins so ("can't smile or *stop* crying": the scope ends at "or"). Pure
functions of text; the question reader (``agents.emotion_scores.emotion_scores``) and the label matcher
(``agents.taxonomy.Taxonomy.named_in``) read the negated words apart.
"""

from __future__ import annotations

import re

#: Words that negate what follows them (after contractions are written out: "isn't" -> "is not").
NEGATION_CUES = frozenset({"not", "no", "never", "nobody", "nobody's", "no-one", "without", "neither", "nor"})
#: Two-word cues, read as one ("he seems anything but delighted").
NEGATION_PAIRS = frozenset({("anything", "but")})
#: A cue directly followed by one of these words negates nothing: the feeling after them is shown, not denied
#: ("can't stop laughing", "couldn't hold back his tears", "can't hide her contempt", "not just angry but furious").
NOT_NEGATING = frozenset({"stop", "stopping", "help", "helping", "hide", "hiding", "hold", "holding", "contain",
                          "containing", "control", "controlling", "conceal", "concealing", "suppress", "wait", "only",
                          "just", "merely", "simply"})
#: "keep" after a cue negates nothing when one of these follows it in the scope ("can't keep his nerves in check",
#: "can't keep from weeping", "couldn't keep the scorn off her face"); "doesn't keep calm" is negated.
KEEP_WORDS = frozenset({"keep", "keeps", "keeping", "kept"})
KEEP_PARTICLES = frozenset({"in", "from", "back", "down", "off", "under"})
#: "no" right after one of these is said, not a cue ("when does she say no angrily?").
SAID_BEFORE_NO = frozenset({"say", "says", "said", "saying", "shout", "shouts", "shouted", "shouting", "scream",
                            "screams", "screamed", "screaming", "yell", "yells", "yelled", "yelling", "answer",
                            "answers", "answered", "reply", "replies", "replied", "whisper", "whispers", "whispered"})
#: Words that end a cue's scope (NegEx's termination terms, for the clauses a question joins); "so" only after the
#: cue's first word ("not so happy" is negated, "not there so she left" ends at "so").
SCOPE_TERMINATORS = frozenset({"but", "and", "to", "yet", "though", "although", "while", "until", "because",
                               "so", "when", "after", "before", "than", "then"})
#: A cue negates each word or phrase "or" joins in its scope, as NegEx negates each finding of a list ("no fever or
#: chills"): "not angry or sad" denies anger and sadness, each stretch read on its own (``_disjuncts``).
DISJUNCTION = "or"
#: "or" followed by one of these begins a new clause or takes the denial back, and ends the scope ("nobody smiling or
#: *is* anybody angry", "not sad or *rather* happy"); so does any "or" after "either" before the cue ("either not
#: angry or sad": the list's second member is affirmed).
OR_NEW_CLAUSE = frozenset({"is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "will", "would",
                           "shall", "should", "may", "might", "must", "has", "have", "had", "rather", "else",
                           "instead", "perhaps", "maybe"})
#: Where ``tools.signals.lexicon.emotion_phrase(punctuation=True)`` removed a person reference: it ends a scope
#: ("nobody notice *she* is sad": the subject of a new clause), except right after the cue, where it is the cue's own
#: subject ("is not *she* happy", once "isn't she" is written out).
PERSON_BREAK = "|"
#: Marks that end a clause, and so a cue's scope (NegEx ends a scope at the end of a sentence), as
#: ``emotion_phrase(punctuation=True)`` keeps them; not part of the affirmed text.
CLAUSE_MARKS = frozenset({",", ";", ":", ".", "!", "?", "\u2014", "\u2013", PERSON_BREAK})
#: Dashes between words ("... swells - felt so light"): they end a scope too but stay in the affirmed text, where
#: ``emotion_phrase`` keeps them as well.
DASHES = frozenset({"-", "--"})
#: After a cue and "be", "been", "look(ed)", "feel/felt" or "seem(ed)" ("have" before them allowed), a comparative
#: says the feeling could not be stronger ("couldn't be happier", "never looked more pleased", "couldn't be sadder"):
#: such a cue negates nothing. Comparatives: "more", "better" and words of five letters or more ending in "er".
COMPARATIVES = frozenset({"more", "better"})
_LINKING = frozenset({"be", "been", "look", "looked", "feel", "felt", "seem", "seemed"})
#: The most words a cue negates (NegEx's window).
MAX_SCOPE_WORDS = 5

_CONTRACTIONS = ((re.compile("\u2019"), "'"), (re.compile(r"\bcannot\b"), "can not"),
                 (re.compile(r"\bcan't\b"), "can not"), (re.compile(r"\bwon't\b"), "will not"),
                 (re.compile(r"\bshan't\b"), "shall not"), (re.compile(r"\b([a-z]+)n't\b"), r"\1 not"))


def expand_contractions(text: str) -> str:
    """``text`` (lower case) with its negative contractions written out: "isn't" -> "is not", "can't" and "cannot"
    -> "can not", "won't" -> "will not", "doesn't" -> "does not"; a typographic apostrophe read as "'"."""
    for pattern, written in _CONTRACTIONS:
        text = pattern.sub(written, text)
    return text


def _intensifies(after: list[str]) -> bool:
    """Whether the words after a cue make it an intensifier ("be happier", "have been more pleased")."""
    words = after[1:] if after[:1] == ["have"] else after
    if len(words) < 2 or words[0] not in _LINKING:
        return False
    return words[1] in COMPARATIVES or (words[1].endswith("er") and len(words[1]) >= 5)


def _shows(tokens: list[str], i: int, width: int) -> bool:
    """Whether the cue of ``width`` words at ``tokens[i]`` negates nothing (module doc: pseudo-negations)."""
    after = _window(tokens, i + width)
    return tokens[i] == "no" and i > 0 and tokens[i - 1] in SAID_BEFORE_NO or _shown(after)


def _window(tokens: list[str], start: int) -> list[str]:
    """The at most ``MAX_SCOPE_WORDS`` words from ``tokens[start]`` on, removed person references left out."""
    return [t for t in tokens[start:start + MAX_SCOPE_WORDS + 1] if t != PERSON_BREAK][:MAX_SCOPE_WORDS]


def _shown(words: list[str], comparatives: bool = True) -> bool:
    """Whether the words a cue governs show their feeling rather than deny it (module doc: pseudo-negations): they
    begin with ``NOT_NEGATING`` ("stop laughing"), with "keep" and one of ``KEEP_PARTICLES`` ("keep his nerves in
    check"), or, with ``comparatives``, with an intensifying comparative ("be happier": said of the cue's own words;
    after "or", "can't relax or be happier" says only that she cannot)."""
    if words[:1] and words[0] in KEEP_WORDS:
        return bool(KEEP_PARTICLES & set(words[1:]))
    return bool(words[:1]) and words[0] in NOT_NEGATING or comparatives and _intensifies(words)


def split_negated(phrase: str) -> tuple[str, list[str]]:
    """``(affirmed, scopes)`` of ``phrase`` (lower-case words; contractions written out by ``expand_contractions``):
    ``affirmed`` is the phrase without its negation cues, the words they negate and its clause marks, ``scopes`` the
    negated stretches in order (module doc). ``"not happy"`` -> ``("", ["happy"])``; ``"stay calm and not lose his
    temper"`` -> ``("stay calm and", ["lose his temper"])``; ``"can not stop laughing"`` -> ``("can not stop
    laughing", [])``; ``"nobody came , felt lonely"`` -> ``("felt lonely", ["came"])``. A phrase without a cue or a
    clause mark comes back as it is, with no scope."""
    tokens = phrase.split()
    kept: list[str] = []
    scopes: list[str] = []
    i = 0
    while i < len(tokens):
        width = 2 if tuple(tokens[i:i + 2]) in NEGATION_PAIRS else 1 if tokens[i] in NEGATION_CUES else 0
        if not width or _shows(tokens, i, width):
            kept += [] if tokens[i] in CLAUSE_MARKS else [tokens[i]]
            i += 1
            continue
        start = i + width
        while start < len(tokens) and tokens[start] == PERSON_BREAK:  # "is not | happy": the cue's own subject
            start += 1
        either = i > 0 and tokens[i - 1] == "either"
        end = words = start
        while end < len(tokens) and words - start < MAX_SCOPE_WORDS and not _ends_scope(tokens, end, start, either):
            words += tokens[end] != DISJUNCTION  # the window counts the words "or" joins, not "or" itself
            end += 1
        scopes += [" ".join(part) for part in _disjuncts(tokens[start:end])]
        i = end
    return " ".join(kept), scopes


def _disjuncts(scope: list[str]) -> list[list[str]]:
    """The stretches of a cue's ``scope`` that ``DISJUNCTION`` joins, each negated on its own ("not angry or sad" ->
    "angry", "sad"), the empty ones left out."""
    parts: list[list[str]] = [[]]
    for word in scope:
        if word == DISJUNCTION:
            parts.append([])
        else:
            parts[-1].append(word)
    return [part for part in parts if part]


def _ends_scope(tokens: list[str], k: int, start: int, either: bool) -> bool:
    """Whether ``tokens[k]`` ends the scope of a cue whose scope starts at ``tokens[start]``: "so" only after the
    scope's first word; "or" where a new clause begins after it (``OR_NEW_CLAUSE``), where the words after it show
    their feeling as a pseudo-negation would (``_shown``, read over a window of their own: "can't smile or *stop*
    crying", "can't sit still or *keep* his anger *in check*") or where ``either`` came before the cue."""
    word = tokens[k]
    if word == "so":
        return k != start
    if word == DISJUNCTION:
        return (either or k + 1 < len(tokens) and tokens[k + 1] in OR_NEW_CLAUSE
                or _shown(_window(tokens, k + 1), comparatives=False))
    return word in SCOPE_TERMINATORS or word in NEGATION_CUES or word in CLAUSE_MARKS or word in DASHES
