"""A question's main clause, apart from a clause that sets its context: "when does she look hurt *after he mentions her
ex*?" asks whether she looks hurt; what he does says where, not what feeling to find. ``main_clause``."""

from __future__ import annotations

import re

from tools.signals.lexicon import memory_form

#: Words that open a clause of time or cause, an adverbial clause (the subordinators of Quirk et al., 1985, *A
#: Comprehensive Grammar of the English Language*): "... *while* the teacher reads the rules".
OPENERS = ("as soon as", "whenever", "while", "when", "after", "before", "until", "once", "because", "as")
#: Words that begin a clause's subject, one of which must follow an opener for it to open a clause: "after *his*
#: mother scolds him" does, "after the game" does too (the subject's noun is not read), "one after another" and
#: "cool as a cucumber" do not. After "as", only a person's pronoun or "the" ("as a sheet" is a comparison).
SUBJECT_STARTS = frozenset({"he", "she", "they", "we", "you", "i", "it", "his", "her", "their", "my", "your", "our",
                            "its", "the", "a", "an", "someone", "somebody", "everyone", "everybody", "nobody",
                            "no", "people", "this", "that", "these", "those", "some"})
_AFTER_AS = frozenset({"he", "she", "they", "we", "you", "i", "his", "her", "their", "my", "your", "our", "the",
                       "someone", "somebody", "everyone", "everybody"})
_OPENERS = "(?:" + "|".join(o.replace(" ", r"\s+") for o in OPENERS) + r")\b"
_OPENER = re.compile(r"\b" + _OPENERS)
#: A question that opens with its context and then asks: "after he hangs up, when does she start crying?".
_LEADING_CONTEXT = re.compile(r"\s*" + _OPENERS + r"[^,;?]*[,;]\s*(?=when\b)")
_TOKENS = re.compile(r"[a-z'-]+|[^\sa-z'-]")


def main_clause(query: str) -> str | None:
    """The main clause of a question with a clause that sets its context, or None for any other question.

    A question that asks "when ..." and then opens a clause (``OPENERS`` followed by a word of ``SUBJECT_STARTS``)
    gives its words before that clause, with its closing mark: "when does she get upset after he leaves the room?" ->
    "when does she get upset?". A question that opens with its context gives the part from its "when": "after he hangs
    up, when does she start crying?" -> "when does she start crying?". None where no such clause is found, where
    nothing but the opening words would remain, for a question framed otherwise ("how does she feel when he yells at
    her?": the clause is what it asks about) and for a viewer's memory (``memory_form``: its scene is one whole,
    ``tools.signals.memory_words.stated_feeling``). ``agents.intent.asked_emotions`` reads the feeling from it
    (``evals/RESULTS.md`` section 177)."""
    if memory_form(query):
        return None
    text = query.lower().replace("\u2019", "'")
    if lead := _LEADING_CONTEXT.match(text):
        return query[lead.end():]
    first = re.match(r"\s*(?:when|whenever)\b(?![,;:])", text)
    if not first:
        return None
    for m in _OPENER.finditer(text, first.end()):
        after = text[m.end():].split()
        nxt = re.sub(r"[^a-z'-]", "", after[0]) if after else ""
        if nxt not in (_AFTER_AS if m.group() == "as" else SUBJECT_STARTS):
            continue
        head = query[:m.start()].rstrip(" ,;:-")
        if len(_TOKENS.findall(head.lower())) <= 2:  # "when does" alone: no main clause left
            return None
        return head + ("?" if query.rstrip().endswith("?") else "")
    return None
