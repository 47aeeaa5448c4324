"""The part of a video a question asks about, said in words: "in the last ten minutes", "after 12:30", "between
minute 3 and minute 5", "in the first half", "before the 2 minute mark".

A user of a long video often knows roughly where to look ("how does she react in the last five minutes?"); the
answer then searches that part only. Read from the question's words alone (lower-cased), the same for the offline
reader and a hosted one:

- ``between`` / ``from`` T ``and`` / ``to`` / ``until`` / ``-`` T (T a time: ``12:30``, ``1:02:03``, ``90 seconds``,
  ``ten minutes``, ``twenty-five minutes``, ``minute 3``, ``the 5 minute mark``; a bare number on one side takes the
  other side's unit: "between 3 and 5 minutes");
- ``in`` / ``during`` / ``within`` / ``over`` / ``for`` ``the`` ``first`` / ``opening`` / ``last`` / ``final`` /
  ``past`` / ``closing`` + an amount ("the first minute", "the past 30 seconds", "the final half hour"), or ``the
  first half`` / ``the second half``;
- ``after`` / ``past`` / ``beyond`` / ``later than`` T ("after 10 minutes", "after the first half hour", "past the
  1:00 mark"); ``before`` / ``until`` / ``till`` / ``prior to`` / ``earlier than`` T, ``up to`` / ``up until`` a
  point (a clock time, "the 3 minute mark": "up to 2 minutes" is a length); ``from`` T ``on`` / ``onward`` / ``till
  the end``, ``since`` a point; ``from`` / ``since`` T ``up to`` / ``until`` T; an "after" and a "before" joined by
  "and" or "but" are one part ("after 12:30 but before 15:00");
- a part said first before a clause mark ("first 30 secs, is she surprised?", "last quarter hour: ...", "second half
  of the meeting, ..."; not "last minute changes"); ``in the 34th minute``; two clock times said first, joined by "to"
  or a dash ("1:20:00 to 1:30:00 - ..."), or two amounts and an "in" that ends a clause ("15-20 min in?"); compact
  hours ("1h", "1h30"); "of the video" / "of the meeting" / "of the show" and the like after a part.

Not read as a part: a time with no unit and no colon ("after 3": a clock time or an episode); a time of day ("after
5:30 in the morning", "before 7:00 pm"); a length of something ("after a minute of silence", "in the last minute of
his speech"; "of the video" is read); "a second" (an ordinal: "before a second date"); "after he leaves" (a departure,
``tools.signals.change_words``); a part said not to be searched ("but not in the first half"), compared with another
("in the first half or the second?"), or a range that ends before it starts; anything in a viewer's memory. Pure
functions of the text; the window is resolved against the video's duration by ``WindowAsk.resolve``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.signals.lexicon import memory_form

#: Number words a time may be written with ("ten minutes", "the last five seconds", "twenty-five minutes").
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES)} | _TENS | {
    f"{t}{sep}{o}": v + i for t, v in _TENS.items() for i, o in enumerate(_ONES[1:10], 1) for sep in ("-", " ")}
#: Seconds per unit of a time.
UNIT_S = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600}

_NUM = r"\d+(?:\.\d+)?|" + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
_UNIT = r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
#: A clock time on the video's clock: M:SS or H:MM:SS, minutes and seconds under 60; not a time of day ("5:30 in the
#: morning", "7:00 pm", "at 3 o'clock").
_CLOCK = (r"\d{1,2}:[0-5]\d(?::[0-5]\d)?(?!\d)(?!:\d)"
          r"(?!\s*(?:am|pm|a\.m|p\.m|o'clock|in\s+the\s+(?:morning|afternoon|evening)|at\s+night)\b)")
#: Compact hours: "1h", "1h30", "1h 30m".
_HOURS = r"\d+h(?:\d{1,2}(?:m|min)?|\s+\d{1,2}(?:m|min)\b)?\b"
#: An amount: a number and its unit ("ten minutes", "90 secs", "an hour"; not "a second" nor "a min", which are an
#: ordinal and a word's start), compact hours, half or a quarter of an hour.
_AMOUNT = (rf"(?:{_HOURS}|(?:{_NUM})(?:\s*|-){_UNIT}|an?\s+(?:minute|hour)\b"
           rf"|half(?:\s+an?\s+|\s*-\s*|\s+)hour\b|an?\s+half\s+hour\b|a\s+quarter(?:\s+of\s+an|-)?\s*hour\b"
           rf"|quarter(?:\s+of\s+an|-|\s+)\s*hour\b)")
#: "of the video" and the like after a part, read with it; any other "of" after a time makes it a length ("after a
#: minute of silence", "in the last minute of his speech"), not a place.
_OF_VIDEO = (r"(?:\s+of\s+the\s+(?:video|clip|film|movie|recording|episode|footage|show|programme|program|meeting|"
             r"interview|call|talk|lecture|session|broadcast|stream|livestream|hearing|podcast|webinar))?")
_NOT_OF = r"(?!\s+of\b)"
#: Where a part said first ends: a clause mark ("first 30 secs, is she ...", "last quarter hour: ...").
_MARK = r"(?=\s*[,:;.\-\u2013\u2014])"
#: A point on the video's clock, not a length: a clock time, "the 5 minute mark", "minute 3".
_POINT = rf"(?:the\s+)?(?:{_CLOCK}|(?:{_NUM})(?:\s*|-)(?:minute|min|hour|second)s?\s+marks?|minute\s+(?:{_NUM})\b)"
#: One time: a point, an amount, or a bare number (read only beside another time's unit).
_TIME = (rf"(?:the\s+)?(?:{_CLOCK}|{_AMOUNT}|minute\s+(?:{_NUM})\b|(?:{_NUM})\b(?!:))(?:\s+marks?)?")
_BETWEEN = re.compile(rf"\b(?:between|from|since)\s+(?:minutes?\s+)?({_TIME})(?:\s+on)?"
                      rf"(?:\s+(?:and|to|until|till|up\s+to|up\s+until|up\s+till)\s+|\s*[-\u2013]\s*)"
                      rf"({_TIME}){_OF_VIDEO}{_NOT_OF}(?:\s+in(?=\s*(?:$|[,:;.?!\-])))?")
_SPAN_WORDS = r"(first|last|final|past|second|opening|closing)\s+"
_SPAN_AMOUNT = (rf"((?:{_NUM})(?:\s*|-){_UNIT}|{_HOURS}|half(?:\s+an?\s+|\s*-\s*|\s+)hour\b|quarter(?:\s+|-)hour\b"
                rf"|hour\b|minute\b|second\b|half\b(?!\s*-?\s*(?:an?\s+)?hour))")
_SPAN = re.compile(rf"\b(?:in|during|within|over|for)\s+the\s+{_SPAN_WORDS}{_SPAN_AMOUNT}{_OF_VIDEO}{_NOT_OF}")
#: The same said first, before a clause mark ("first 30 secs, is she surprised?"; "last minute changes" is no part).
_OPENING = re.compile(rf"^(?:the\s+)?{_SPAN_WORDS}{_SPAN_AMOUNT}{_OF_VIDEO}{_MARK}")
_AFTER = re.compile(rf"(?<!\bthe\s)\b(?:after|past|beyond|later\s+than)\s+(?:the\s+first\s+(?=(?:{_NUM}|half|hour|"
                    rf"minute)))?({_TIME}|(?:the\s+)?(?:hour|minute)\b(?!\s+(?:{_NUM})\b)){_OF_VIDEO}{_NOT_OF}")
#: "until" / "before" a time; "up to" only before a point ("up to the 3 minute mark": "up to 2 minutes" is a length).
_BEFORE = re.compile(rf"\b(?:(?:before|until|till|prior\s+to|earlier\s+than)\s+({_TIME})"
                     rf"|up\s+(?:to|until|till)\s+({_POINT})){_OF_VIDEO}{_NOT_OF}")
#: From a point on: "from minute 7 onward", "since 12:30", "from 12 min till the end (of the video)"; a bare amount
#: after "since" is a length ("since 10 minutes").
_ONWARD = re.compile(rf"\b(?:from\s+({_TIME})(?:\s+(?:on|onwards?|forward)(?=\s*(?:$|[,:;.?!\-]))"
                     rf"|\s+(?:till|to|until)\s+the\s+end(?!\s+of\b(?!\s+the\s+(?:video|clip|film|movie|recording|"
                     rf"episode|meeting|interview|show)\b))(?:{_OF_VIDEO}))"
                     rf"|since\s+({_POINT})(?=\s*(?:$|[,:;.?!\-])))")
#: An ordinal minute: "in the 34th minute" (the 60 s that end at its number).
_ORDINAL = re.compile(rf"\b(?:in|during)\s+the\s+(\d+)(?:st|nd|rd|th)\s+minute\b{_OF_VIDEO}{_NOT_OF}")
#: A range with no "between" / "from", said first: two clock times joined by "to" or a dash ("1:20:00 to 1:30:00 -
#: any moments of joy?"), or anywhere two amounts and "in" that ends a clause ("how do they feel 15-20 min in?";
#: "5-10 minutes in the oven" is a length).
_RANGE = re.compile(rf"(?:^({_CLOCK})\s*(?:\bto\b|[-\u2013])\s*({_CLOCK}){_MARK}"
                    rf"|(?:^|(?<=\s))({_TIME})\s*(?:\bto\b|[-\u2013])\s*({_TIME})\s+in(?=\s*(?:$|[,:;.?!\-])))")
#: Words before a named part that say it is not the part to search ("but not in the first half", "except in the last
#: ten minutes"): the question is then read whole, with no part.
_EXCEPT = re.compile(r"\b(?:not|except|apart\s+from|other\s+than|outside(?:\s+of)?|rather\s+than|instead\s+of)\s+$")
#: Words after a named part that compare it with another ("happier in the first half or the second?", "... than in
#: the last ten minutes"): a question about both, read whole, with no part.
_COMPARED = re.compile(r"\s*(?:,\s*)?(?:or|than|versus|vs\.?|compared)\b")


@dataclass(frozen=True)
class WindowAsk:
    """A part of the video a question names: ``start_s`` / ``end_s`` seconds from its start (None: open), or, with
    ``from_end``, ``start_s`` seconds before its end ("the last ten minutes"); ``half`` 1 or 2 for "the first half" /
    "the second half"; ``phrase``: the words that say it."""

    phrase: str
    start_s: float | None = None
    end_s: float | None = None
    from_end: bool = False
    half: int | None = None

    def resolve(self, duration_s: float) -> tuple[float, float] | None:
        """The window in seconds, clipped to [0, ``duration_s``]; None when it lies wholly outside the video or is
        empty."""
        if self.half is not None:
            lo, hi = (0.0, duration_s / 2) if self.half == 1 else (duration_s / 2, duration_s)
        elif self.from_end:
            lo, hi = duration_s - (self.start_s or 0.0), duration_s
        else:
            lo, hi = self.start_s or 0.0, duration_s if self.end_s is None else self.end_s
        lo, hi = max(0.0, lo), min(duration_s, hi)
        return (round(lo, 3), round(hi, 3)) if hi > lo else None


def _number(word: str) -> float:
    return float(word) if word[0].isdigit() else float(NUMBER_WORDS[word])


def time_seconds(text: str, unit_s: float | None = None) -> tuple[float, bool] | None:
    """``text`` (one ``_TIME`` match) in seconds, and whether it carried its own unit or colon; a bare number is read
    in ``unit_s`` (None: not read, returns None). "12:30" -> 750; "1:02:03" -> 3723; "ten minutes" -> 600; "half an
    hour" -> 1800; "an hour" -> 3600; "minute 3" -> 180; "the 5 minute mark" -> 300; "the first hour" -> 3600."""
    t = re.sub(r"^the\s+(?:first\s+)?|\s+marks?$", "", text.strip())
    if re.fullmatch(r"\d{1,2}:[0-5]\d(?::[0-5]\d)?", t):
        parts = [int(p) for p in t.split(":")]
        return float(sum(p * 60 ** i for i, p in enumerate(reversed(parts)))), True
    if re.fullmatch(r"half(?:\s+an?\s+|\s*-\s*|\s+)hour|an?\s+half\s+hour", t):
        return 1800.0, True
    if re.fullmatch(r"(?:a\s+)?quarter(?:\s+of\s+an|-)?\s*hour", t):
        return 900.0, True
    if m := re.fullmatch(r"(\d+)h(?:\s*(\d{1,2})(?:m|min)?)?", t):
        return int(m.group(1)) * 3600.0 + int(m.group(2) or 0) * 60.0, True
    if m := re.fullmatch(r"(?:an?\s+)?(hour|minute)", t):
        return float(UNIT_S[m.group(1)]), True
    if m := re.fullmatch(rf"minute\s+({_NUM})", t):
        return _number(m.group(1)) * 60, True
    if m := re.fullmatch(rf"({_NUM})(?:\s*|-)({_UNIT})", t):
        return _number(m.group(1)) * UNIT_S[re.sub(r"s$", "", m.group(2))], True
    if re.fullmatch(_NUM, t) and unit_s is not None:
        return _number(t) * unit_s, False
    return None


def _unit_of(text: str) -> float | None:
    m = re.search(rf"(?:{_NUM})(?:\s*|-)({_UNIT})|minute", text)
    return None if m is None else float(UNIT_S[re.sub(r"s$", "", m.group(1) or "minute")])


def _span(m: re.Match) -> WindowAsk | None:
    """The part a ``_SPAN`` or ``_OPENING`` match names: the first / last amount, or a half."""
    which, amount = m.group(1), m.group(2)
    if amount == "half":
        return WindowAsk(_phrase(m), half=2 if which in ("second", "last", "final", "closing") else 1)
    got = time_seconds(amount)
    if which == "second" or got is None:  # "in the second minute": not read
        return None
    if which in ("last", "final", "past", "closing"):
        return WindowAsk(_phrase(m), start_s=got[0], from_end=True)
    return WindowAsk(_phrase(m), start_s=0.0, end_s=got[0])


def _parts(q: str) -> list[tuple[re.Match, WindowAsk | None]]:
    """Every part ``q`` (lower-cased, commas set apart) names, in order, each with its reading (None where its times
    do not read)."""
    found: list[tuple[re.Match, WindowAsk | None]] = []
    for pattern in (_BETWEEN, _ORDINAL, _RANGE, _OPENING, _SPAN, _ONWARD, _AFTER, _BEFORE):
        for m in pattern.finditer(q):
            if any(m.start() < f.end() and f.start() < m.end() for f, _ in found):
                continue
            times = [g for g in m.groups() if g is not None]
            if pattern is _ORDINAL:
                n = int(m.group(1))
                ask = WindowAsk(_phrase(m), start_s=(n - 1) * 60.0, end_s=n * 60.0) if n > 0 else None
            elif pattern in (_BETWEEN, _RANGE):
                unit = _unit_of(m.group(0)) or (60.0 if "minute" in m.group(0) else None)
                a, b = time_seconds(times[0], unit), time_seconds(times[1], unit)
                ask = WindowAsk(_phrase(m), start_s=a[0], end_s=b[0]) if a and b and b[0] > a[0] else None
            elif pattern in (_SPAN, _OPENING):
                ask = _span(m)
            else:
                t = time_seconds(times[0])
                ask = None if t is None else WindowAsk(_phrase(m), start_s=t[0]) if pattern in (_AFTER, _ONWARD) \
                    else WindowAsk(_phrase(m), start_s=0.0, end_s=t[0])
            if ask is not None or pattern is _BETWEEN:  # a range whose times do not read is no part at all
                found.append((m, ask))
    return sorted(found, key=lambda f: f[0].start())


def _phrase(m: re.Match) -> str:
    return m.group(0).strip()


def asked_window(question: str) -> WindowAsk | None:
    """The part of the video ``question`` names (module doc), or None: none for a viewer's memory
    (``tools.signals.lexicon.memory_form``: "I remember a referee making a terrible call in the last minute, ..."),
    whose times are the scene's; none for a part said not to be searched ("but not in the first half"), for two parts
    but an "after" and a "before" (read together: "after 12:30 but before 15:00"), or for a range that does not read
    ("between 15:30 and 12:00")."""
    if memory_form(question):
        return None
    q = " ".join(re.sub(r"\s*,\s*", " , ", question.lower()).split()).rstrip("?.! ")
    parts = _parts(q)
    if not parts or any(ask is None or _EXCEPT.search(q[:m.start()]) or _COMPARED.match(q[m.end():])
                        for m, ask in parts):
        return None
    if len(parts) == 1:
        return parts[0][1]
    (m1, a1), (m2, a2) = parts[0], parts[-1]
    if len(parts) == 2 and m1.re is _AFTER and m2.re is _BEFORE and a2.end_s > (a1.start_s or 0.0) \
            and re.fullmatch(r"\s+(?:and|but)\s+", q[m1.end():m2.start()]):
        return WindowAsk(q[m1.start():m2.end()], start_s=a1.start_s, end_s=a2.end_s)
    return None


def without_window(question: str, ask: WindowAsk | None) -> str:
    """``question`` without the words of ``ask`` (matched without case; the question as it is when they are not found
    or ``ask`` is None), so the feeling and the search are read from the rest."""
    if ask is None:
        return question
    words = r"[\s,]+".join(re.escape(w) for w in ask.phrase.split())
    out = re.sub(rf"\s*\b{words}\b", "", question, count=1, flags=re.IGNORECASE)
    return " ".join(out.split()).strip(" ,;:.-\u2013\u2014") or question


def window_warnings(question: str, window: tuple[float, float] | None, duration_s: float) -> list[str]:
    """The line an answer carries when ``question`` names a part of the video (``asked_window``) that ``window`` (the
    part searched, seconds, or None) does not hold: it lies outside the video's ``duration_s`` seconds or is empty ("in
    the first 0 seconds"); the whole video was searched then."""
    ask = asked_window(question)
    if ask is None or window is not None:
        return []
    where = (f"which lies outside this {duration_s:.1f} s video" if (ask.start_s or 0.0) >= duration_s
             else "which holds no time of this video")
    return [f'the question names "{ask.phrase}", {where}; the whole video was searched']
