"""Which look a question asks about: toward or away, and toward or away from the camera, someone, or nothing named.

"when does she look away from the camera?" and "when does she look at the camera?" differ in one word, which a
sentence encoder weighs little: all-MiniLM-L6-v2 puts either close to the evidence "person 0 looks at the camera in
16 of 16 frames", so a look-away question was answered with a look at the camera (``evals/RESULTS.md`` section 173).
``asked_look`` reads the look from the question's words, so the verifier's behaviour reader
(``agents.behaviour_evidence.behaviour_match``) does not take a look the question denies as support.

The first look the question says sets it (the main clause comes first in "when does she look back at the camera after
looking away?"). A look is **away** when it is looking or glancing away, turning away (from someone, or the head or
eyes), breaking or losing eye contact, averting, dropping or lowering the eyes or gaze, avoiding someone's gaze, or
looking down ("look down on" is contempt; "look down at her" is a look at her), or taking the eyes off someone. It is
**toward** when it is eye contact, a gaze or eyes met or held, eyes kept on (fixed on, glued to) someone or the camera,
a look "in the eye", who someone looks at, or a look, glance, stare, glare, peek,
peer or gaze at, into or toward a person word (``tools.signals.lexicon.PERSON_WORDS``, "each other", "me") or the
camera, ending there ("at her", not "at her phone" nor "at the man's face"). A negation in the three words before it,
or inside a look toward, turns it round: "when doesn't he look at her?", "when does he avoid eye contact?", "make no
eye contact", "can't look him in the eye" are away; "when does she not look away?", "stop avoiding eye contact" (two
negations) are toward. A question that opens with its negation asks a yes or no ("doesn't he look at her when she
cries?") and is not turned. A look at anything else ("stare at the screen", "look up at his father": a noun the
lexicon does not know as a person) is no look here, so nothing is denied: looking at a screen is looking away from the
camera, and no rule here tells a screen from a person the lexicon lacks. Nor is "nobody looks at her": it asks for a
look that does not happen, which the exclusion event reads (``tools.signals.events``).

What the look is toward or away from (``AskedLook.target``) is read from its own words: ``"camera"`` for the camera,
the lens or the viewer; ``"other"`` for a person word ("look her in the eye", "avoid his gaze", "eye contact with
her") or anything a look is away from but the camera ("away from the interviewer", "away from her phone": a look away
from the camera there may be one toward it); None where they name nothing ("when does she look away?", "avoid eye
contact", "avert her eyes": her own; "look down at his notes").
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from tools.signals.lexicon import PERSON_WORDS, spaced_words

Look = Literal["toward", "away"]
Target = Literal["camera", "other"]


class AskedLook(NamedTuple):
    """The look a question asks about: its direction and what it is toward or away from (None: not said)."""

    direction: Look
    target: Target | None


_LOOK = (r"(?:look|looks|looking|looked|glance|glances|glancing|glanced|stare|stares|staring|stared|gaze|gazes|gazing"
         r"|gazed|glare|glares|glaring|glared|peek|peeks|peeking|peeked|peer|peers|peering|peered)")
_OWN = r"(?:his|her|their|my|your|the)"
_CAMERA = r"(?:camera|cameras|lens|viewer|viewers)"
_PEOPLE = sorted({*PERSON_WORDS, "me", "us", "them", "each other", "one another", "anyone", "everyone"}
                 - {"i", "his", "he", "she", "they"}, key=len, reverse=True)
_PERSON = rf"(?:the |a |an )?(?:{'|'.join(re.escape(p) for p in _PEOPLE)})"
#: A look's object ends where the words after it cannot be a noun it owns ("at her phone" is a look at a phone).
_END = (r"(?!'s)(?=$| [,.;:!?]| (?:with|while|when|and|as|again|for|in|during|before|after|from|across|like|until|so"
        r"|then|or|but|because|if|without|instead|once|whenever|at|throughout|all the time|all along|the whole"
        r"|the entire|except|briefly|sometimes|often|twice|here|there|anymore)\b)")
_THING = rf"(?:{_PERSON}|(?:the |a |an )?{_CAMERA}){_END}"
_OBJECT = rf"(?P<obj>{_PERSON}|(?:the |a |an )?{_CAMERA}){_END}"
_BODY = rf"(?: {_OWN} (?:head|face|eyes|gaze))?"
_AWAY = (rf"{_LOOK}{_BODY} away"
         rf"|(?:turn|turns|turning|turned){_BODY} away(?= from|$| [,.;:!?])"
         r"|(?:break|breaks|breaking|broke|broken|lose|loses|losing|lost)(?: off)? eye contact"
         rf"|(?:avert|averts|averting|averted|drop|drops|dropping|dropped|lower|lowers|lowering|lowered) {_OWN}"
         r" (?:eyes|gaze)"
         rf"|(?:avoid|avoids|avoiding|avoided) (?P<gazer>{_PERSON}|his|her|their|the [a-z]+'s) (?:eyes|gaze)"
         rf"|(?:look|looks|looking|looked) down\b(?! (?:on|upon)\b)(?! (?:at|into|to|toward|towards) {_THING})"
         rf"|(?:take|takes|taking|took|taken) {_OWN} eyes off(?: (?P<off>{_PERSON}|(?:the |a |an )?{_CAMERA}))?{_END}")
_TOWARD = (rf"{_LOOK}(?: up| down| over| straight| right| directly| back| right back)? (?:at|into|toward|towards)"
           rf" {_OBJECT}"
           r"|(?:(?:make|makes|making|made|keep|keeps|keeping|kept|hold|holds|holding|held|maintain|maintains"
           r"|maintaining|maintained|meet|meets|meeting|met)(?: [a-z']+)? )?eye contact"
           rf"(?: with (?P<with>{_PERSON}|(?:the |a |an )?{_CAMERA}))?"
           rf"|(?:meet|meets|meeting|met|hold|holds|holding|held) (?P<met>his|her|their|my|your|the [a-z]+'s)"
           r" (?:gaze|eyes)"
           rf"|{_LOOK} (?P<eye>him|her|them|me|us)(?: right| straight)? in the eyes?"
           rf"|{_LOOK} (?:deep |straight |right )?(?:into|in) (?P<into>his|her|their|my|your) eyes"
           rf"|^who(?:'s| is| does| did| was| do| are| were)\b.*\b{_LOOK} at\b"
           rf"|{_OWN} eyes (?:on|fixed on|glued to|locked on) (?P<on>{_PERSON}|(?:the |a |an )?{_CAMERA}){_END}")
_LOOKS = re.compile(rf"\b(?:(?P<away>{_AWAY})|(?P<toward>{_TOWARD}))")
_NEGATOR = re.compile(r"^(?:not|never|no|without|cannot|unable|[a-z]+n't|avoid|avoids|avoiding|avoided|stop|stops"
                      r"|stopping|stopped|refuse|refuses|refusing|refused|fail|fails|failing|failed|struggle"
                      r"|struggles|struggling|struggled)$")
_NOBODY = re.compile(rf"\b(?:nobody|no one|noone|none of [a-z']+(?: [a-z']+)?)(?: [a-z']+){{0,2}} {_LOOK}\b")
#: Words before a look that a negation can sit in.
NEGATION_WINDOW = 3
#: Words and marks that end the clause a negation before a look must share with it.
_CLAUSE_WORDS = frozenset({"and", "but", "or", "while", "whereas", "although", "though", "yet", ",", ";", ":", "."})


def _negations(words: list[str]) -> int:
    """How many of ``words`` negate ("not", "avoid", "can't", "unable", ...)."""
    return sum(bool(_NEGATOR.match(w)) for w in words)


def _target(match: re.Match) -> Target | None:
    """What the matched look is toward or away from (module doc), from its own words and an "away from X" after it."""
    named = next((match.group(g) for g in ("obj", "with", "gazer", "met", "eye", "into", "on", "off") if match.group(g)), None)
    if named is None:
        after = re.match(rf" from (?:(?P<cam>(?:the |a |an )?{_CAMERA}\b)|[a-z'])",
                         match.string[match.end():]) if match.group("away") else None
        return None if after is None else ("camera" if after.group("cam") else "other")
    return "camera" if re.search(rf"\b{_CAMERA}\b", named) else "other"


def _first_look(text: str) -> re.Match | None:
    """The first look ``text`` (as ``spaced_words`` spaces it) says, which sets the look it asks; None where it says none
    or asks for nobody's look ("nobody looks at her")."""
    return None if _NOBODY.search(text) else _LOOKS.search(text)


def asked_look(query: str) -> AskedLook | None:
    """The look ``query`` asks about (``AskedLook``), or None: no look, a look at a thing, or nobody's look. See the
    module doc for the words read."""
    text = spaced_words(query)
    match = _first_look(text)
    if match is None:
        return None
    before = text[:match.start()].split()
    if before and _NEGATOR.match(before[0]) and len(before) <= NEGATION_WINDOW:
        before = before[1:]  # "doesn't he look at her ...?" asks a yes or no
    cut = max((i for i, w in enumerate(before) if w in _CLAUSE_WORDS), default=-1)
    before = before[cut + 1:]  # "he is never nervous and looks at her": the negation is another clause's
    flips = _negations(before[-NEGATION_WINDOW:])
    if match.group("toward"):
        flips += _negations(match.group("toward").split())
    away = bool(match.group("away")) != (flips % 2 == 1)
    return AskedLook("away" if away else "toward", _target(match))


#: A look said to hold all along: a span of time, or "never" with a look, or a look kept or maintained ("keeps looking
#: away" and "keeps glancing at" are looks again and again, not all along).
_THROUGHOUT = re.compile(
    r"\b(?:the (?:whole|entire) (?:time|video|clip|way through)|all (?:the time|along)|throughout|always|continuously"
    rf"|at all times|never (?:[a-z']+ )?(?:{_LOOK}|breaks?|breaking|broke|makes?|making|made|averts?|averting|averted"
    r"|lowers?|lowering|lowered|drops?|dropping|dropped|turns?|turning|turned|takes?|taking|took|meets?|meeting|met)"
    r"|(?:keep|keeps|keeping|kept) (?:on )?(?:looking|staring|gazing)(?! away)"
    r"|(?:keep|keeps|keeping|kept|maintain|maintains|maintaining|maintained) (?:[a-z']+ )?eye contact)\b")
#: Words that take "all along" back: a hedge, an exception, a time it is not, or a condition ("almost the whole time",
#: "except for one glance", "otherwise", "only once", "always looks away when he speaks", "never ... until the end").
_NOT_ALL_ALONG = re.compile(r"\b(?:almost|nearly|mostly|most of|practically|virtually|largely|much of|except|apart from"
                            r"|other than|save for|but for|otherwise|once|briefly|occasionally|now and then|at times"
                            r"|sometimes|when|whenever|while|until|till|unless|if|after|before)\b")
_DENIAL = re.compile(r"^(?:not|never|no|without|cannot|[a-z]+n't)$")
_CLAUSE = re.compile(r" (?:but|and|whereas|although|though|yet|or|[,;:]) ")
#: An answer's opening word, which denies or grants the question, not the option's look ("No, ...", "Not at all: ...").
_ANSWER_WORD = re.compile(r"^(?:yes|no|yeah|nope|not at all|not really)(?: [,;:.!])? ")


def says_throughout(text: str) -> bool:
    """Whether the look ``text`` says (``asked_look``: its first) holds all along, said in that look's clause: "the
    whole time", "throughout", "all the time", "always", "never" with a look ("never looks away"), "keeps looking at",
    "keeps his eyes on", "maintains eye contact". Not where hedged, excepted or made a condition anywhere in ``text``
    ("almost the whole time", "except for one glance", "otherwise", "only once", "always looks away when he speaks"),
    nor denied before it in its clause ("she doesn't always look at the camera"; an answer's opening "No," denies
    nothing, and "without looking away" after it holds it). Such a claim is contradicted by one look the other way;
    "she looks away at times" is not, by looks at the camera (``agents.choice``)."""
    words = _ANSWER_WORD.sub("", spaced_words(text))
    look = None if _NOT_ALL_ALONG.search(words) else _first_look(words)
    if look is None:
        return False
    start = max((m.end() for m in _CLAUSE.finditer(words, 0, look.start() + 1)), default=0)
    after = _CLAUSE.search(words, look.end())
    clause = words[start:after.start() if after else len(words)]
    held = _THROUGHOUT.search(clause)
    if held is None:
        return False
    return not any(_DENIAL.match(w) for w in clause[:held.start()].split())


def look_polarity(query: str) -> Look | None:
    """The direction of the look ``query`` asks about (``asked_look``): ``"toward"``, ``"away"`` or None."""
    look = asked_look(query)
    return look.direction if look else None


def without_look_words(query: str) -> str:
    """``query`` (as ``spaced_words`` spaces it) without the words of the looks it says: what else it asks ("when does he
    look at her and point?" -> "when does he and point ?")."""
    return " ".join(_LOOKS.sub(" ", spaced_words(query)).split())
