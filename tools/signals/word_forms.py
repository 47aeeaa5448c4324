"""How a question's words stand in a word or idiom list: its phrases matched longest first, each tried with
possessives as WordNet's "one's" and its first word without a common inflection ("loses her cool" -> "lose one's
cool", "terrified" -> "terrify", "repelled" -> "repel"). Read by ``tools.signals.lexicon.named_emotions`` (the emotion
words) and ``tools.signals.idioms`` (the glossed idioms and words). Also the marks that end a clause and the words that
open one (``CLAUSE_MARKS``, ``CLAUSE_OPENERS``), shared by the readers of a question's clauses.
"""

from __future__ import annotations

#: Marks that end a clause (an em and an en dash among them): ``tools.signals.lexicon.emotion_phrase(punctuation=True)``
#: keeps each as a word of its own, and ``matched_phrases`` drops one that ends a word.
CLAUSE_MARKS = ",;:.!?\u2014\u2013"

#: Words that open a clause of time, cause, condition or concession, an adverbial clause (the subordinators of Quirk et
#: al., 1985, *A Comprehensive Grammar of the English Language*), and "during", which opens a phrase of time as they
#: do a clause: "when does she look hurt *after he mentions her ex*?", "... *if she mentions his father*?". Read by
#: ``tools.signals.clauses`` (where a clause of context begins); ``OPENER_WORDS`` by ``tools.signals.change_words``
#: and ``tools.signals.feeling_owner`` (where the main clause's words end).
CLAUSE_OPENERS = ("as soon as", "whenever", "while", "when", "after", "before", "until", "once", "because", "since",
                  "if", "though", "although", "during", "as")
#: ``CLAUSE_OPENERS`` of one word, for a reader of a question word by word ("as soon as" begins with "as").
OPENER_WORDS = frozenset(o for o in CLAUSE_OPENERS if " " not in o)

#: Inflections tried for a word not listed as it is: (ending, replacement), "terrified" -> "terrify".
_INFLECTIONS = (("s", ""), ("es", ""), ("ed", ""), ("ed", "e"), ("d", ""), ("ing", ""), ("ing", "e"), ("ied", "y"),
                ("ies", "y"), ("ly", ""))

#: Possessives a question uses where WordNet's idioms say "one's" ("lose her temper" -> "lose one's temper").
_POSSESSIVES = frozenset({"my", "your", "his", "her", "its", "our", "their", "someone's", "somebody's"})
#: The longest idiom matched, in words ("blow out of the water").
MAX_PHRASE_WORDS = 5


def word_forms(tokens: list[str]) -> list[str]:
    """How ``tokens`` may stand in a word list (``tools.signals.lexicon.emotion_words``): as they are, with
    possessives as "one's", and with the first word without a common inflection ("terrified" -> "terrify", "hits the
    roof" -> "hit the roof"), a consonant doubled before "-ed" written once ("stunned" -> "stun", "repelled" ->
    "repel"). Not before "-ing": such a word names a doing more often than a feeling ("sitting", "spitting"; on the
    development questions, section 160)."""
    out = []
    for toks in (tokens, ["one's" if t in _POSSESSIVES else t for t in tokens]):
        first, rest = toks[0], toks[1:]
        stems = [first[:-len(end)] + rep for end, rep in _INFLECTIONS
                 if first.endswith(end) and len(first) > len(end) + 2]
        if first.endswith("ed") and _doubled(first[:-2]):
            stems.append(first[:-3])
        out += [" ".join(toks)] + [" ".join([stem, *rest]) for stem in stems]
    return list(dict.fromkeys(out))


def verb_stems(word: str) -> list[str]:
    """``word`` and the stems a common inflection of a verb leaves ("swimming" -> "swimm", "swimme", "swim"; "eats" ->
    "eat"), a consonant doubled before "-ing" or "-ed" written once; a word list decides which is a verb
    (``tools.signals.activity_words``)."""
    stems = [word] + [word[:-len(end)] + rep for end, rep in _INFLECTIONS
                      if word.endswith(end) and len(word) > len(end) + 2]
    stems += [word[:-len(end) - 1] for end in ("ing", "ed") if word.endswith(end) and _doubled(word[:-len(end)])]
    return list(dict.fromkeys(stems))


def _doubled(stem: str) -> bool:
    """Whether ``stem`` ends in a doubled consonant, as English spelling doubles one before "-ed" ("stunn", "repell").
    The stem with one consonant is only tried: the table decides ("killed" stays "kill")."""
    return len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] in "bdfgklmnprtvz"


def matched_phrases(phrase: str, table: dict) -> list[str]:
    """The keys of ``table`` (lower-case words and phrases) that words of ``phrase`` stand for, in order of first
    mention: the longest phrases first (up to ``MAX_PHRASE_WORDS`` words), no word in two, each also tried with
    possessives as WordNet's "one's" and its first word without a common inflection (``word_forms``: "loses her cool"
    -> "lose one's cool"). A mark that ends a word ("is she sad?") is no part of it; a mark standing alone (a clause's
    end, ``emotion_phrase(punctuation=True)``) stays a token, so no phrase spans it."""
    tokens = [t.strip(CLAUSE_MARKS + '"') or t for t in phrase.lower().split()]
    found: list[tuple[int, str]] = []
    taken: set[int] = set()
    for n in range(MAX_PHRASE_WORDS, 0, -1):
        for i in range(len(tokens) - n + 1):
            if taken & set(range(i, i + n)):
                continue
            key = next((f for f in word_forms(tokens[i:i + n]) if f in table), None)
            if key is not None:
                found.append((i, key))
                taken |= set(range(i, i + n))
    return [key for _, key in sorted(found)]
