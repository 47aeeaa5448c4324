"""Whose feeling a question that names a feeling asks about, when it names several people: "when does she get upset
after he leaves?" asks hers, "when does he upset her?" hers too, "I kinda remember the crowd cracking up at something he
said" the crowd's. The other people it names say where to look (the words reach the search text), not whose face to
read; ``agents.schema.Intent.feeling_of`` carries the owner to the localizer and the verifier
(``agents.grounding.grounded_persons``).
Questions that ask which feeling someone shows without naming one take their owner from their frame instead
(``tools.signals.open_feeling.feeling_subject``). Measured on labelled questions with ``python -m
studies.feeling_owner`` (``evals/results/feeling_owner.json``; ``evals/RESULTS.md`` section 169).
"""

from __future__ import annotations

import re
from itertools import pairwise

from tools.signals.lexicon import AGE_ADJECTIVES, PERSON_WORDS, memory_form, person_phrases
from tools.signals.word_forms import OPENER_WORDS


def _forms(stem: str) -> set[str]:
    """A regular verb's forms: "annoy" -> annoy, annoys, annoying, annoyed; "scare" -> scare, scares, scaring, scared;
    "worry" -> worry, worries, worried, worrying. Irregular verbs ("upset", "hurt", "made") are listed whole."""
    if stem.endswith("y") and stem[-2] not in "aeiou":
        return {stem, stem[:-1] + "ies", stem[:-1] + "ied", stem + "ing"}
    if stem.endswith("e"):
        return {stem, stem + "s", stem[:-1] + "ing", stem + "d"}
    plural = stem + ("es" if stem.endswith(("ss", "sh", "ch", "x")) else "s")
    return {stem, plural, stem + "ing", stem + "ed"}


#: Verbs whose object feels what they cause: "make" and "get" ("she makes him laugh", "he gets her to smile"; "get
#: angry" has no object) and object-experiencer verbs, Levin's (1993, *English Verb Classes and Alternations*) class
#: 31.1, "amuse verbs" ("he upsets her", "the speaker amuses the audience"); a common subset, with their -s, -ing and
#: past forms.
CAUSING_VERBS = frozenset(set().union(*(_forms(s) for s in (
    "amuse", "anger", "annoy", "bore", "calm", "confuse", "delight", "depress", "disappoint", "disgust",
    "disturb", "embarrass", "enrage", "excite", "frighten", "humiliate", "impress", "infuriate", "intimidate",
    "irritate", "offend", "please", "reassure", "sadden", "scare", "shock", "startle", "surprise", "terrify",
    "thrill", "unsettle", "worry", "amaze", "astonish", "bother", "charm", "entertain", "fascinate", "frustrate",
    "horrify", "relax", "stun"))) | {"make", "makes", "making", "made", "get", "gets", "getting", "got", "upset",
                                     "upsets", "upsetting", "hurt", "hurts", "hurting"})
#: Words that open another clause (``tools.signals.word_forms.OPENER_WORDS`` and the relative pronouns): a verb after
#: them is not the main clause's ("after his mother scolds him").
_CLAUSE_OPENERS = OPENER_WORDS | {"that", "who", "which", "whom", "whose"}
#: Words that may stand between a causing verb and the person it moves ("amuses *the* audience").
_DETERMINERS = frozenset({"the", "a", "an", "that", "this", "those", "these", "some"})
#: Person words that, first in a question, are its object or a possessive, not its subject ("when do *her* jokes
#: delight him?", "when is *his* daughter in tears?"); in a viewer's memory ("I remember *him* snapping at her") "her"
#: and "him" first are its subject.
_NOT_SUBJECT = frozenset({"her", "him", "his"})
_WORDS = re.compile(r"[a-z']+")
#: Person words that are only subjects: after a causing verb they open a clause ("when is she scared he will leave?").
_SUBJECT_FORMS = frozenset({"he", "she", "they", "i", "we"})
#: Person words a verb may take as its object ("amaze *the crowd*", "bother *her*").
_OBJECT_FORMS = frozenset(PERSON_WORDS) - _SUBJECT_FORMS - {"his", "someone", "somebody"}
#: Words after which a person is not a verb's object ("smile *at* her", "angry *with* him").
_PREPOSITIONS = frozenset({"at", "to", "with", "of", "for", "by", "on", "about", "from", "in", "toward", "towards",
                           "around", "behind", "near", "beside", "over", "like", "than", "into", "onto", "against",
                           "up", "down", "off", "out"})


#: Words before a person that are not a verb taking it as its object.
_NOT_VERBS = _PREPOSITIONS | _DETERMINERS | CAUSING_VERBS | frozenset(PERSON_WORDS)


def _phrase_from(words: list[str], start: int) -> str:
    """The person phrase (``person_phrases``) that the person word at ``start`` heads, with an age word before it
    ("woman on the left ..." -> "a woman on the left", "old woman ..." -> "an older woman")."""
    start -= start > 0 and words[start - 1] in AGE_ADJECTIVES  # "the *old* woman"
    found = person_phrases(" ".join(words[start:]))
    return found[0] if found else ""


def feeling_owner(query: str) -> str:
    """Of the people an English question names (``tools.signals.lexicon.person_phrases``), the one whose feeling it asks
    about, as that phrase ("a woman", "the audience"), or "" when it names fewer than two or the owner is none of them
    ("when is his daughter in tears while she talks?").

    The rule, in the question's main clause (from its first person up to a word that opens another clause,
    ``_CLAUSE_OPENERS``): a causing verb's object (``CAUSING_VERBS``: "when does he make her cry?", "when does the
    speaker amuse the audience?" -> the one moved), else the first person named, when that word is a subject ("she",
    "the crowd"; "her", "him" only in a viewer's memory, ``memory_form``). Where the question leaves it open, nobody:
    a clause before the main one ("after he yells at her, when does she cry?"), joined subjects ("he and she"), a
    relative clause after the subject, a person after another verb ("when does he amaze the crowd?") or words
    between a causing verb and its person other than one determiner ("make the little girl cry"). A feeling caused in
    another clause ("... a joke that makes her laugh") is read as the subject's.
    """
    if len(person_phrases(query)) < 2:
        return ""
    words = _WORDS.findall(query.lower().replace("\u2019", "'"))
    memory = memory_form(query)
    if memory:
        words = [w for w in words if w != "i"]
    people_at = [i for i, w in enumerate(words) if w in PERSON_WORDS and w != "i"]
    if not people_at or any(w in _CLAUSE_OPENERS - {"when"} for w in words[:people_at[0]]):
        return ""
    first = people_at[0]
    after = words[first + 1] if first + 1 < len(words) else ""
    moved = any(w in CAUSING_VERBS and (n in _OBJECT_FORMS or n in _DETERMINERS) for w, n in pairwise(words))
    relative = after in ("who", "that", "whom")  # the subject's own clause: no causing verb of the main one is read
    if after in ("and", "or") or (relative and moved):
        return ""
    for i in range(first + 1, len(words) - 1 if not relative else first + 1):
        if words[i] in _CLAUSE_OPENERS:
            break
        j = i + 1 + (words[i + 1] in _DETERMINERS)
        if j >= len(words):
            break
        if words[i] in CAUSING_VERBS and words[j] in _OBJECT_FORMS:
            return _phrase_from(words, j)
        if words[i] in CAUSING_VERBS and (j > i + 1 or words[j] == "his"):
            return ""  # "make the little girl cry", "make his sister cry": whose is not read
        if words[j] in _OBJECT_FORMS and words[i] not in _NOT_VERBS:
            return ""  # "when does he amaze the crowd?": a verb this rule does not know moves someone
    if words[first] in _NOT_SUBJECT and not (memory and words[first] != "his"):
        return ""
    return _phrase_from(words, first)
