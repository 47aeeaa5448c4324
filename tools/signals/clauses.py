"""A question's main clause, apart from a clause that sets its context: "when does she look hurt *after he mentions her
ex*?" asks whether she looks hurt; what he does says where, not what feeling to find. ``main_clause``."""

from __future__ import annotations

import re
from itertools import pairwise

from tools.signals.behaviour_words import says_feeling
from tools.signals.lexicon import memory_form
from tools.signals.word_forms import CLAUSE_OPENERS

#: Words that begin a clause's subject, one of which must follow an opener for it to open a clause: "after *his*
#: mother scolds him" does, "after the game" does too (the subject's noun is not read), "one after another" and
#: "cool as a cucumber" do not. After "as", only a person's pronoun or "the" ("as a sheet" is a comparison).
SUBJECT_STARTS = frozenset({"he", "she", "they", "we", "you", "i", "it", "his", "her", "their", "my", "your", "our",
                            "its", "the", "a", "an", "someone", "somebody", "everyone", "everybody", "nobody",
                            "no", "people", "this", "that", "these", "those", "some"})
_AFTER_AS = frozenset({"he", "she", "they", "we", "you", "i", "his", "her", "their", "my", "your", "our", "the",
                       "someone", "somebody", "everyone", "everybody"})
#: Words for a stretch of time that a "when" clause describes rather than sets context for, after a determiner: "when
#: is *the moment* when she looks scared?" asks for her look.
TIME_NOUNS = frozenset({"moment", "moments", "part", "parts", "time", "times", "scene", "scenes", "point", "instant",
                        "second", "minute", "day", "bit", "stretch", "segment", "clip", "shot"})
_DETERMINERS = frozenset({"the", "a", "an", "that", "this", "each", "every", "any", "one"})
#: Personal pronouns as subjects, by the person they can stand for: a clause whose subject is one that can stand for
#: the main clause's subject and that says a feeling ("when does he hide because *he is scared*?") is that person's
#: own reason, no context.
_PRONOUN_CLASS = {"he": "male", "she": "female", "they": "plural", "i": "i", "we": "we", "you": "you"}
_NOUN_CLASS = {"he": "male", "man": "male", "boy": "male", "guy": "male", "gentleman": "male", "father": "male",
               "dad": "male", "son": "male", "brother": "male", "husband": "male", "she": "female", "woman": "female",
               "girl": "female", "lady": "female", "mother": "female", "mom": "female", "mum": "female",
               "daughter": "female", "sister": "female", "wife": "female", "they": "plural", "kids": "plural",
               "children": "plural", "people": "plural", "audience": "plural", "crowd": "plural", "students": "plural",
               "everyone": "plural", "men": "plural", "women": "plural", "boys": "plural", "girls": "plural",
               "guests": "plural", "fans": "plural", "i": "i", "we": "we", "you": "you"}
#: Openers of a clause that concedes ("... *although* he is angry"; "even" before an opener too, ``_PREFIXES``): the
#: main clause says what shows in spite of it, so its feeling is not the person's own reason.
_CONCESSIVE = frozenset({"though", "although"})
#: Words that belong to the clause an opener begins when they stand before it: "*even* though", "*ever* since", "*only*
#: if", "*just* as", "*right* after".
_PREFIXES = ("even", "ever", "only", "just", "right")
#: Words before which "if" asks "whether", no condition: "when does he *ask her if* she is angry?", "... *to see if*".
_WHETHER = frozenset({"ask", "asks", "asked", "asking", "wonder", "wonders", "wondered", "wondering", "see", "sees",
                      "saw", "check", "checks", "checked", "checking", "know", "knows", "knew", "tell", "tells", "told",
                      "sure", "decide", "decides", "decided", "find", "finds", "found", "out"})
#: Verbs before which "even" is a word of its own, not a prefix: "when do they *get even* after he cheats them?".
_GET = frozenset({"get", "gets", "got", "getting"})
#: An opener (group 2; the longest first, so "as soon as" is not read as "as") and the prefix before it (group 1).
_OPENERS = (r"(?:(" + "|".join(_PREFIXES) + r")\s+)?("
            + "|".join(o.replace(" ", r"\s+") for o in sorted(CLAUSE_OPENERS, key=len, reverse=True)) + r")\b")
_OPENER = re.compile(r"\b" + _OPENERS, re.IGNORECASE)
#: A question that opens with its context and then asks: "after he hangs up, when does she start crying?".
_LEADING_CONTEXT = re.compile(r"\s*" + _OPENERS + r"[^,;?]*[,;]\s*(?=when\b)", re.IGNORECASE)
_WORD = re.compile(r"[a-z'-]+", re.IGNORECASE)
#: A contraction after a subject ("while *he's* yelling"): the subject is the word before it.
_CONTRACTION = re.compile(r"'(?:s|re|m|ll|d|ve)$")


def _subject_class(main: str) -> str | None:
    """The person class (``_NOUN_CLASS``) of a main clause's subject: its first person word among the three words after
    its opening ("when does *the old man* ...", "when does *his sister* ..."), or None ("when does the dog bark at the
    boy?")."""
    words = _WORD.findall(main.lower())[2:5]
    return next((_NOUN_CLASS[w] for w in words if w in _NOUN_CLASS), None)


def _ask(head: str, query: str) -> str | None:
    """``head`` with the question's closing mark, or None when it holds no more than the opening words."""
    head = head.rstrip(" ,;:-?!")
    if len(_WORD.findall(head)) <= 2:  # "when does" alone: no main clause left
        return None
    return head + ("?" if "?" in query else "")


def _context_start(text: str, m: re.Match) -> int:
    """Where the clause of the opener ``m`` (``_OPENER``) begins in ``text``: at its prefix, unless that is the "even"
    of "get even"."""
    words = _WORD.findall(text[:m.start()].lower())
    return m.start(2) if (m.group(1) or "").lower() == "even" and words[-1:] and words[-1] in _GET else m.start()


def _sets_context(text: str, m: re.Match) -> bool:
    """Whether the opener ``m`` (``_OPENER``) of ``text`` opens a clause of context: a subject follows it
    (``SUBJECT_STARTS``; after "as", ``_AFTER_AS``), "if" and "though" do not follow "as" ("look as if she will cry"
    compares), "if" does not follow a verb of asking or knowing (``_WHETHER``), the question before it does not name a
    stretch of time (``TIME_NOUNS`` after a determiner: "when is *the moment* when she looks scared?" asks for her
    look), and a clause of the main clause's own person does not say a feeling
    (``tools.signals.behaviour_words.says_feeling``: "hide because he is scared" is his own reason) unless it concedes
    (``_CONCESSIVE`` or "even": "smile although she is sad" asks for the smile)."""
    after = text[m.end():].split()
    nxt = _CONTRACTION.sub("", re.sub(r"[^a-z'-]", "", after[0].lower())) if after else ""
    opener = " ".join(m.group(2).lower().split())
    if nxt not in (_AFTER_AS if opener == "as" else SUBJECT_STARTS):
        return False
    start = _context_start(text, m)
    head = _WORD.findall(text[:m.start(2)].lower())
    if opener in ("if", "though") and head[-1:] == ["as"] or opener == "if" and set(head[-2:]) & _WHETHER:
        return False
    if any(a in _DETERMINERS and b in TIME_NOUNS for a, b in pairwise(head)):
        return False
    conceding = opener in _CONCESSIVE or start == m.start() and (m.group(1) or "").lower() == "even"
    own = nxt in _PRONOUN_CLASS and _PRONOUN_CLASS[nxt] == _subject_class(text[:start])
    return conceding or not (own and says_feeling(re.split(r"[,;?]", text[m.end():])[0]))


def main_clause(query: str) -> str | None:
    """The main clause of a question with a clause that sets its context, or None for any other question.

    A question that asks "when ..." and then opens a clause of context (``_sets_context``:
    ``tools.signals.word_forms.CLAUSE_OPENERS`` followed by a subject) gives its words before that clause, with its
    closing mark: "when does she get upset after he leaves the room?" -> "when does she get upset?"; a clause set off
    by commas inside it is left out: "when does the boy, after his mother scolds him, start to sulk?" -> "when does the
    boy start to sulk?". A question that opens with its context gives the part from its "when": "after he hangs up,
    when does she start crying?" -> "when does she start crying?". None where no such clause is found, where nothing
    but the opening words would remain, for a question framed otherwise ("how does she feel when he yells at her?": the
    clause is what it asks about) and for a viewer's memory (``memory_form``: its scene is one whole,
    ``tools.signals.memory_words.stated_feeling``).
    ``agents.intent.asked_emotions`` reads the feeling from it (``evals/RESULTS.md`` sections 177, 178, 180)."""
    if memory_form(query):
        return None
    text = query.replace("\u2019", "'")  # the same length as the query: its offsets are the query's
    if lead := _LEADING_CONTEXT.match(text):
        return _ask(query[lead.end():], query)
    first = re.match(r"\s*(?:when|whenever)\b(?![,;:])", text, re.IGNORECASE)
    if not first:
        return None
    for m in _OPENER.finditer(text, first.end()):
        if not _sets_context(text, m):
            continue
        head = query[:_context_start(text, m)]
        if head.rstrip().endswith(",") and (close := text.find(",", m.end())) != -1:  # ", after he left, she ..."
            head = f"{head.rstrip(' ,')} {query[close + 1:].strip()}"
        if (main := _ask(head, query)) is not None:  # "when during the game does she cry after he scores?": go on
            return main
    return None
