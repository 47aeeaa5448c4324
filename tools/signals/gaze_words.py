"""Which look a question asks about: toward or away, and from or at the camera or something else.

"when does she look away from the camera?" and "when does she look at the camera?" differ in one word, which a
sentence encoder weighs little: all-MiniLM-L6-v2 puts either close to the evidence "person 0 looks at the camera in
16 of 16 frames", so a look-away question was answered with a look at the camera (``evals/RESULTS.md`` section 173).
``asked_look`` reads the look from the question's words, so the verifier's behaviour reader
(``agents.behaviour_evidence.behaviour_match``) does not take a look the question denies as support.

A look is **away** when the question says looking, glancing or turning away; avoiding, breaking, stopping, refusing,
losing or not making eye contact ("no eye contact", "never makes eye contact"); avoiding or refusing to look at
someone; averting the eyes; avoiding, dropping or lowering the gaze or eyes; looking down ("look down on" is
contempt, and "look down at her" a look at her); or not looking at someone ("won't look at him", "when doesn't she
look at him?"; not "not look at all happy", nor a question that opens with the negation, "doesn't he look at her when
she cries?"). It is **toward** when the question asks for eye contact made, kept, held or met, a gaze met, a look
"in the eye", who someone looks at, or a look, glance, stare, glare, peek, peer or gaze at, into or toward a person
word (``tools.signals.lexicon.PERSON_WORDS``, "each other", "me") or the camera, ending there ("at her", not "at her
phone" nor "at the man's face"). A look at anything else ("stare at the screen", "look up at his father": a noun the
lexicon does not know as a person) is neither, so nothing is denied: looking at a screen is looking away from the
camera, and no rule here tells a screen from a person the lexicon lacks. "nobody looks at her" is neither too: it asks
for a look that does not happen, which the exclusion event reads (``tools.signals.events``).

What the look is toward or away from (``AskedLook.target``): ``"camera"`` where the question names the camera, the
lens or the viewer; ``"other"`` where it names someone or something else ("away from the interviewer", "avoid his
gaze", "eye contact with her"); None where it names nothing ("when does she look away?", "avoid eye contact", "avert
her eyes": her own).
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from tools.signals.lexicon import PERSON_WORDS

Look = Literal["toward", "away"]
Target = Literal["camera", "other"]


class AskedLook(NamedTuple):
    """The look a question asks about: its direction and what it is toward or away from (None: not said)."""

    direction: Look
    target: Target | None


_LOOK = (r"(?:look|looks|looking|looked|glance|glances|glancing|glanced|stare|stares|staring|stared|gaze|gazes|gazing"
         r"|gazed|glare|glares|glaring|glared|peek|peeks|peeking|peeked|peer|peers|peering|peered)")
_NOT = (r"(?:won't|wouldn't|doesn't|does not|didn't|did not|don't|do not|can't|cannot|could not|couldn't|isn't|is not"
        r"|aren't|are not|wasn't|was not|weren't|were not|never|not)")
_AVOID = r"(?:avoid|avoids|avoiding|avoided|refuse|refuses|refusing|refused|stop|stops|stopping|stopped)"
_CAMERA = r"(?:camera|cameras|lens|viewer|viewers)"
_PEOPLE = sorted({*PERSON_WORDS, "me", "us", "them", "each other", "one another", "anyone", "everyone"}
                 - {"i", "his", "he", "she", "they"}, key=len, reverse=True)
#: A look's object ends where the words after it cannot be a noun it owns ("at her phone" is a look at a phone).
_END = (r"(?!'s)(?=$| [,.;:!?]| (?:with|while|when|and|as|again|for|in|during|before|after|from|across|like|until|so"
        r"|then|or|but|because|if|without|instead|once|whenever)\b)")
_OBJECT = rf"(?:the |a |an )?(?:{'|'.join(re.escape(p) for p in _PEOPLE)}|{_CAMERA}){_END}"
_AWAY = re.compile(
    rf"\b(?:(?:{_LOOK}|turn|turns|turning|turned)(?: [a-z']+){{0,2}} away"
    rf"|(?:{_AVOID}|break|breaks|breaking|broke|lose|loses|losing|lost)(?: [a-z']+){{0,2}} eye contact"
    r"|(?:no|without)(?: [a-z']+){0,2} eye contact"
    rf"|(?<= ){_NOT}(?: [a-z']+){{0,2}} eye contact"
    rf"|{_AVOID}(?: [a-z']+)? (?:looking|to look)(?: [a-z']+)? at"
    r"|avert|averts|averting|averted"
    r"|(?:avoid|avoids|avoiding|avoided|drop|drops|dropping|dropped|lower|lowers|lowering|lowered)"
    r" (?:his|her|their|my|your|the|the [a-z]+'s) (?:gaze|eyes)"
    rf"|(?:look|looks|looking|looked) down\b(?! (?:on|upon)\b)(?! at {_OBJECT})"
    rf"|(?<= ){_NOT}(?: [a-z']+){{0,2}} {_LOOK}(?: [a-z']+)? at\b(?! all\b| ease\b))")
_TOWARD = re.compile(
    rf"\b(?:{_LOOK}(?: up| down| over| straight| right| directly| back| right back)? (?:at|into|toward|towards)"
    rf" {_OBJECT}"
    r"|(?:make|makes|making|made|keep|keeps|keeping|kept|hold|holds|holding|held|maintain|maintains|maintaining"
    r"|maintained|meet|meets|meeting|met)(?: [a-z']+)? eye contact"
    r"|eye contact with"
    r"|(?:meet|meets|meeting|met) (?:his|her|their|my|your|the [a-z]+'s) (?:gaze|eyes)"
    rf"|{_LOOK} (?:him|her|them|me|us)(?: right| straight)? in the eyes?"
    rf"|{_LOOK} (?:deep |straight |right )?(?:into|in) (?:his|her|their|my|your) eyes"
    rf"|^who(?:'s| is| does| did| was| do| are| were)\b.*\b{_LOOK} at\b)")
_NOBODY = re.compile(rf"\b(?:nobody|no one|noone|none of [a-z']+(?: [a-z']+)?)(?: [a-z']+){{0,2}} {_LOOK}\b")
_OTHER = re.compile(rf"\b(?:away from|at|into|toward|towards|with|in the eyes?)(?: (?:the|a|an|his|her|their|my|your))?"
                    rf" (?!{_CAMERA}\b)[a-z']+|\b(?:avoid|avoids|avoiding|avoided|meet|meets|meeting|met)"
                    r" (?:his|her|their|my|your|the [a-z]+'s) (?:gaze|eyes)\b")


def _text(query: str) -> str:
    """``query`` in lower case, curly apostrophes straight, its words and stops spaced."""
    return " ".join(re.findall(r"[a-z']+|[,.;:!?]", query.lower().replace("\u2019", "'")))


def asked_look(query: str) -> AskedLook | None:
    """The look ``query`` asks about (``AskedLook``), or None: no look, a look at a thing, or nobody's look. Away wins
    where both are said ("when does she look away from him?" says "look ... him" too); see the module doc."""
    text = _text(query)
    if _NOBODY.search(text):
        return None
    match = _AWAY.search(text) or _TOWARD.search(text)
    if match is None:
        return None
    direction: Look = "away" if match.re is _AWAY else "toward"
    if re.search(rf"\b{_CAMERA}\b", text):
        return AskedLook(direction, "camera")
    return AskedLook(direction, "other" if _OTHER.search(text[match.start():]) else None)


def look_polarity(query: str) -> Look | None:
    """The direction of the look ``query`` asks about (``asked_look``): ``"toward"``, ``"away"`` or None."""
    look = asked_look(query)
    return look.direction if look else None


def without_look_words(query: str) -> str:
    """``query`` (as ``_text`` spaces it) without the words of the look it asks about: what else it asks ("when does
    he look at her and point?" -> "when does he and point ?")."""
    text = _text(query)
    return " ".join(_TOWARD.sub(" ", _AWAY.sub(" ", text)).split())
