"""The words of questions about a change of feeling (EmoTrans's tasks, seed 003): a change between two named feelings
("when does he go from calm to angry?"), any change ("when does her mood change?"), the feeling after another
("how does she feel after being angry?"), the feeling that comes next ("what does he feel next?"), the feeling
after someone leaves ("how does she feel after he leaves?") and a feeling that ends ("when does he stop smiling?").
Read by ``agents.change.ask_change``.
"""

from __future__ import annotations

import re

from tools.signals.word_forms import OPENER_WORDS

#: Words for a state of feeling and for its change, in questions about a change (EmoTrans's transitions).
_FEELING_NOUNS = r"(?:mood|moods|feeling|feelings|emotion|emotions|attitude|demeanou?r|tone|spirits|affect)"
_CHANGE_WORDS = r"(?:change|changes|changed|changing|shift|shifts|shifted|shifting|swing|swings|turn|turns|flip|flips)"
_FROM_TO = re.compile(r"\b(?:go|goes|going|went|turn|turns|turning|turned|switch|switches|move|moves|shift|shifts|"
                      r"change|changes|changing|swing|swings|flip|flips)\s+from\s+(.+?)\s+(?:to|into)\s+(.+)$")
_MOOD_CHANGE = re.compile(rf"\b{_FEELING_NOUNS}\s+(?:[\w'-]+\s+){{0,3}}{_CHANGE_WORDS}\b|\b{_CHANGE_WORDS}\s+(?:in\s+)?"
                          rf"(?:(?:her|his|their|its|the|someone's|somebody's|one's)\s+)?{_FEELING_NOUNS}\b")
_FEEL_AFTER = re.compile(r"\bfeel\w*\s+(?:right\s+)?after\s+(?:being|getting|feeling|turning|becoming)\s+(.+)$")
#: The feeling that comes next: "what does he feel next?", "her next emotion" (not "anxious about what comes next").
_NEXT = re.compile(r"\b(?:feel|feels|show|shows|look|looks|seem|seems)\s+next\b|\bnext\s+(?:emotion|feeling|mood|"
                   r"reaction)\b")
#: Someone leaving the picture as a question names it ("after he leaves", "once the man has walked out", "when she is
#: gone"; not "left out", "left alone"), with the place left ("after he leaves *the room*"): EmoTrans's feeling after an
#: event (seed 003); ``departure_clause``.
_DEPARTURE = re.compile(
    r"\b(?:right\s+)?(?:after|once|when|as\s+soon\s+as)\s+(?:he|she|they|someone|somebody|everyone|everybody|(?:the|his|"
    r"her|their|a|an|that|this)\s+[\w'-]+(?:\s+[\w'-]+)?|(?!(?:being|getting|feeling|does|did|do|is|was|are|were|will|"
    r"would|can|could)\b)[a-z'-]+)\s+(?:has\s+|had\s+|is\s+|was\s+)?(?:leaves|left|(?:walks|walked)\s+(?:out|off|away)|"
    r"(?:goes|went)\s+(?:away|out)|gone|exits|exited|departs|departed|(?:steps|stepped)\s+out)"
    r"(?!\s+(?:out|behind|alone|over|in\s+the\s+cold)\b)\b(?:\s+(?:the|his|her|their|my|our|your|a|an)\s+[a-z'-]+)?")


#: A feeling shown by an action that stops: "when does he *stop smiling*?", "when does she *quit sulking* and *start*
#: laughing?"; ``ending_phrases``.
_STOP = re.compile(r"\b(?:stop|stops|stopped|quit|quits)\s+([a-z'-]+ing\b.*)$")
#: What follows the action that stops: "... and start laughing", "... and smile", "... and then look sad".
_AND = re.compile(r"\s+and\s+(?:then\s+)?")
_STARTS = re.compile(r"^(?:start|starts|started|begin|begins|began)\s+")
#: Words before "stop" by which the action goes on: "when *can't* she stop laughing?", "when does he *not* talk or stop
#: laughing?".
_GOES_ON = frozenset({"can't", "cannot", "won't", "couldn't", "wouldn't", "doesn't", "don't", "didn't", "never", "not"})
#: A feeling or its sign as the subject of a verb of ending ("when does *her smile* fade?", "when does *the panic*
#: wear off?", "when does *his poker face* crack?"), or of giving way to another ("when does *his calm* give way to
#: anger?"); ``ending_phrases``.
_ENDS = re.compile(
    r"^(?:when|at what (?:point|moment|time))\s+(?:does|do|did|will|would)\s+(.+?)\s+(?:finally\s+|slowly\s+)?(?:"
    r"(?:fade|fades|faded|die|dies|died|melt|melts|melted|drain|drains|drained|ebb|ebbs|ebbed)(?:\s+(?:away|down))?|"
    r"wear\s+off|wears\s+off|wore\s+off|subside|subsides|subsided|disappear|disappears|disappeared|vanish|vanishes|"
    r"vanished|go\s+away|goes\s+away|went\s+away|crack|cracks|cracked|break|breaks|broke|slip|slips|slipped"
    r"|(?:give|gives|gave)\s+way\s+to\s+(.+)|(?:turn|turns|turned)\s+into\s+(.+))$")


#: Openers of a clause with a verb of its own: a "stop" after one is that clause's ("once he stops yelling"); "during"
#: opens a phrase ("when during the speech does she stop laughing?").
_CLAUSE_WORDS = OPENER_WORDS - {"during"}


def _own_clause(words: list[str]) -> list[str]:
    """``words`` up to the first that opens another clause (``tools.signals.word_forms.OPENER_WORDS``): an ending after
    one is the context's, not the question's ("when does she smile *once he stops yelling*?"), and a side ends before
    one ("stop talking *after he leaves*")."""
    return words[:next((i for i, w in enumerate(words) if w in OPENER_WORDS), len(words))]


def ending_phrases(text: str) -> tuple[str, str] | None:
    """For a question about a feeling ending, what it says of the feeling that ends and of the one that follows (""
    when it names none); None for any other question. EmoTrans (seed 003) reads such a moment as a change of emotion.
    "when does he stop smiling?" -> ("smiling", ""); "when does she stop crying and start laughing?" -> ("crying",
    "laughing"); "when does she stop crying and smile?" -> ("crying", "smile"); "when does he stop laughing and
    crying?" -> ("laughing and crying", ""); "when does her smile fade?" -> ("her smile", ""); "when does his calm give
    way to anger?" -> ("his calm", "anger"). None where it goes on ("when can't she stop laughing?"), where it is only
    tried or asked for ("when does she try to stop crying?", "when does he tell her to stop crying?") and where the
    ending is in a clause of context ("when does she smile once he stops yelling?"). The words only: whether they name
    a feeling ("when does he stop talking?") is the reader's to say (``agents.intent.feeling_change``,
    ``agents.change.ask_change``)."""
    t = " ".join(re.findall(r"[a-z'-]+", text.lower()))
    if m := _STOP.search(t):
        before = t[:m.start()].split()
        if set(before) & _GOES_ON or set(before[1:]) & _CLAUSE_WORDS or before[-1:] == ["to"]:
            return None
        ended, *follows = (" ".join(_own_clause(side.split())) for side in _AND.split(m.group(1), maxsplit=1))
        if follows and re.match(r"[a-z'-]+ing\b", follows[0]):  # "stop laughing and crying": both end
            return f"{ended} and {follows[0]}", ""
        return ended, _STARTS.sub("", "".join(follows))
    if (m := _ENDS.match(t)) and not set(m.group(1).split()) & (_GOES_ON | _CLAUSE_WORDS):
        return m.group(1), " ".join(_own_clause((m.group(2) or m.group(3) or "").split()))
    return None


#: Words by which a question asks for the earliest or the latest of the moments it describes: "for the (very) first
#: time", "the last time she laughs", "for the final time", "when does she first smile?" (the word between the subject
#: and its verb), "who speaks first?"; ``asked_order``. Not a "last" that is the verb ("how long does her smile
#: last?", "when does the applause last?").
_ORDER = re.compile(r"\b(?:for\s+the|the)\s+(?:very\s+)?(first|last|final)\s+time\b"
                    r"|^(?:[a-z'-]+\s+){0,3}?(?:when|where|at\s+what\s+(?:point|moment|time))\s+"
                    r"(?:does|do|did|will|would|is|are|was|were)\s+(?:he|she|they|someone|somebody|anyone|everyone|"
                    r"(?:the|a|an|his|her|their)\s+(?:[a-z'-]+\s+)?[a-z'-]+)\s+"
                    r"(first|last)\s+[a-z]"
                    r"|^who\s+(?:[a-z'-]+\s+){1,3}?(first|last)$")


def asked_order(text: str) -> str | None:
    """"first" or "last" where a question asks for the earliest or the latest moment of what it describes (``_ORDER``:
    "when does she smile for the first time?", "when is the last time he gets angry?", "when does she first smile?",
    "who speaks first?"), else None ("her first week", "on the last day", "at last", "how long does it last?" say no
    order; ``agents.intent.interpret_intent`` reads it in the main clause, ``tools.signals.clauses``). The answer's
    moments then go in that order of time (``agents.moments.draft_moments``; ``evals/RESULTS.md`` section 179)."""
    m = _ORDER.search(" ".join(re.findall(r"[a-z'-]+", text.lower())))
    found = next((g for g in m.groups() if g), None) if m else None
    return "last" if found == "final" else found


def departure_clause(text: str) -> str | None:
    """The clause of a question that names someone leaving the picture, with the place left ("how does she feel after
    he leaves?" -> "after he leaves"; "... once his friend leaves the room?" -> "once his friend leaves the room"), or
    None."""
    m = _DEPARTURE.search(" ".join(re.findall(r"[a-z'-]+", text.lower())))
    return m.group(0) if m else None


def change_phrases(text: str) -> tuple[str, str] | None:
    """For a question about a change of feeling, what it says of the feeling before and after ("" when it
    names none); None for any other question. "when does he go from calm to angry?" -> ("calm", "angry");
    "how does she feel after being angry?" -> ("angry", ""); "when does her mood change?" -> ("", "");
    "what does he feel next?" -> ("", "") (``asks_next``); "when is she angry?" -> None. A feeling after someone leaves
    is ``departure_clause``'s, not a change here.
    """
    t = " ".join(re.findall(r"[a-z'-]+", text.lower()))
    if m := _FROM_TO.search(t):
        return m.group(1), m.group(2)
    if m := _FEEL_AFTER.search(t):
        return m.group(1), ""
    return ("", "") if _MOOD_CHANGE.search(t) or _NEXT.search(t) else None


def from_to_sides(text: str) -> tuple[str, str] | None:
    """The two sides of a question's "go from A to B" ("when does he go from calm to angry?" -> ("calm", "angry"),
    "when does she go from sitting to standing?" -> ("sitting", "standing")), or None: the words only; whether they
    name feelings is the reader's to say (``agents.intent.offline_intent``)."""
    m = _FROM_TO.search(" ".join(re.findall(r"[a-z'-]+", text.lower())))
    return (m.group(1), m.group(2)) if m else None


def names_feeling_noun(text: str) -> bool:
    """Whether ``text`` names a state of feeling by a general noun ("mood", "feelings", "tone", "spirits")."""
    return re.search(rf"\b{_FEELING_NOUNS}\b", text.lower()) is not None


def asks_next(text: str) -> bool:
    """Whether a question asks for the feeling that comes next ("what does he feel next?", "what is her next
    emotion?"): EmoTrans's next-emotion question, read over a whole video as the first change of feeling."""
    return bool(_NEXT.search(" ".join(re.findall(r"[a-z'-]+", text.lower()))))
