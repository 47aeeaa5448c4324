"""Questions that ask which feeling someone shows without naming one: "how does she feel?", "what is he feeling while
he reads the letter?", "what mood is the host in?", "how does the crowd react to him?". The feeling is what the
answer must find, so the offline reader asks for none (``agents.intent.chosen_emotions``) and the label comes from
what was observed; the clause that places the moment ("when he yells at her", "when the crowd laughs") says where to
look, not what the person feels (``evals/RESULTS.md`` section 145).
"""

from __future__ import annotations

import re

from tools.signals.lexicon import named_emotions, names_behaviour, names_speech

#: The auxiliary of a wh-question ("how *does* she feel", "what *is* he feeling").
_AUX = r"(?:does|do|did|is|are|was|were|will|would|can|could|might|should|has|have|had)"
#: Verbs whose object, in "how ... ?", is the feeling itself ("how does she feel", "how does he react").
_HOW_VERBS = (r"(?:feel|feels|felt|feeling|react|reacts|reacted|reacting|respond|responds|responded|responding|"
              r"seem|seems|seemed|come\s+across|take\s+it|taking\s+it|cope|coping)")
#: Nouns for a feeling asked for by "what" or "which" ("what emotion does he show", "what kind of mood is she in").
_FEELING_NOUNS = (r"(?:emotion|emotions|feeling|feelings|mood|moods|reaction|reactions|emotional\s+state|"
                  r"state\s+of\s+mind)")
_SUBJECT = r"(?:[a-z'-]+\s+){1,6}?"
_OPEN = re.compile(
    rf"^(?:so\s+|and\s+|tell\s+me\s+|i\s+wonder\s+)?(?:how\s+{_AUX}\s+(?P<how>{_SUBJECT}){_HOW_VERBS}"
    rf"|what\s+{_AUX}\s+(?P<what>{_SUBJECT})(?:feel|feels|felt|feeling)"
    rf"|(?:what|which)\s+(?:kind\s+of\s+|sort\s+of\s+)?{_FEELING_NOUNS}"
    rf"(?:\s+{_AUX}\s+(?P<noun>{_SUBJECT})(?:show|shows|showing|have|has|having|express|expresses|expressing|display|"
    rf"displays|convey|conveys|feel|feels|in|seem|seems|give|gives))?)\b")
#: Words that open the clause placing the moment: what follows them is where to look, not the feeling asked for.
_PLACING = re.compile(r"\b(?:when|whenever|while|as|after|before|during|at|in|on|about|if|once|towards?|with|"
                      r"throughout|since|until|by|to|toward)\b")


def _open_frame(query: str) -> re.Match | None:
    """The frame of a question asking which feeling someone shows (``asks_open_feeling``), or None."""
    text = " ".join(re.findall(r"[a-z'-]+", query.lower()))
    m = _OPEN.match(text)
    if m is None:
        return None
    rest = text[m.end():]
    placing = _PLACING.search(rest)
    return None if named_emotions(rest[: placing.start()] if placing else rest) else m


def asks_open_feeling(query: str) -> bool:
    """Whether ``query`` asks which feeling someone shows and names none before the clause that places it: "how
    does she feel when he yells at her?" (True), "what emotion does he show when he points?" (True), "how does she
    feel, happy or sad?" (False: it names the feelings to choose from), "what does he feel disgusted by?" (False),
    "when is she happy?" (False: no such frame). English questions only; a change of feeling ("what does he feel
    next?") is read before this (``agents.change.ask_change``)."""
    return _open_frame(query) is not None


def feeling_subject(query: str) -> str:
    """Whose feeling an open question (``asks_open_feeling``) asks about: the words of its frame's subject ("how does
    the crowd react to him?" -> "the crowd", "what mood is she in when he talks?" -> "she"), or "" when the frame
    has none ("which feeling shows on her face?") or the question is no such question. The other people it names
    ("him", "he" of the placing clause) say where to look."""
    m = _open_frame(query)
    return next((g.strip() for g in m.groups() if g), "") if m else ""


#: Speaking said of someone without what is said ("while he speaks", "as she is talking"; not "when she talks about
#: her family", "when he speaks to her"): it places no words the transcript could match.
_BARE_SPEECH = re.compile(r"\b(?:while|when|whenever|as)\s+(?:[a-z'-]+\s+){1,3}?(?:is\s+|are\s+|was\s+|were\s+)?"
                          r"(?:speak|speaks|speaking|spoke|talk|talks|talking|talked)\b"
                          r"(?!\s+(?:about|of|on|to|with|that|in)\b)")


def placed_by_nothing(query: str) -> bool:
    """Whether an open question (``asks_open_feeling``) names no gesture, look or speech to place its moment by
    (``tools.signals.lexicon.names_behaviour``, ``names_speech``; speaking without what is said, "while he speaks",
    places nothing): "how is the audience feeling?" and "how does he feel while he speaks?" (True), "what emotion
    does he show when he points?" and "what does she feel when she talks about her family?" (False). Such a moment
    is where the feeling shows, from its onset to its offset; otherwise the gesture or the words set it."""
    text = " ".join(re.findall(r"[a-z'-]+", query.lower()))
    return not names_behaviour(query) and not names_speech(_BARE_SPEECH.sub(" ", text))
