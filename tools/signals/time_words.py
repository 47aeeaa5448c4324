"""The part of a video a question asks about, said in words: "in the last ten minutes", "after 12:30", "between
minute 3 and minute 5", "in the first half", "before the 2 minute mark".

A user of a long video often knows roughly where to look ("how does she react in the last five minutes?"); the
answer then searches that part only. Read from the question's words alone (lower-cased), the same for the offline
reader and a hosted one:

- ``between T and T`` / ``from T to T`` (T a time: ``12:30``, ``1:02:03``, ``90 seconds``, ``ten minutes``,
  ``minute 3``, ``the 5 minute mark``; a bare number on one side takes the other side's unit: "between 3 and 5
  minutes");
- ``in`` / ``during`` / ``within`` / ``over the first`` / ``last`` / ``final`` + an amount ("the first minute",
  "the last 30 seconds", "the final half hour") or ``half`` ("the first half", "the second half");
- ``after`` / ``past`` + T ("after 10 minutes", "after the first ten minutes", "past the 1:00 mark");
- ``before`` / ``until`` / ``prior to`` + T.

A time with no unit and no colon is not read ("after 3" may be a clock time or an episode); "after he leaves" names no
time and is a departure (``tools.signals.change_words``), not a window. Pure functions of the text; the window is
resolved against the video's duration by ``WindowAsk.resolve``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.signals.lexicon import memory_form

#: Number words a time may be written with ("ten minutes", "the last five seconds").
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES)} | {"thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50,
                                                      "sixty": 60, "ninety": 90, "a": 1, "an": 1}
#: Seconds per unit of a time.
UNIT_S = {"second": 1, "sec": 1, "s": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "h": 3600}

_NUM = r"\d+(?:\.\d+)?|" + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS), key=len, reverse=True))
_UNIT = r"(?:hours?|hrs?|minutes?|mins?|seconds?|secs?)"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?"
#: One time: a clock time, an amount with its unit ("ten minutes", "half an hour"), "minute 3", "the 5 minute mark",
#: or a bare number (read only beside another time's unit).
_TIME = (rf"(?:the\s+)?(?:{_CLOCK}|(?:{_NUM})(?:\s*|-){_UNIT}|half\s+an?\s+hour|minute\s+(?:{_NUM})|(?:{_NUM}))"
         r"(?:\s+mark)?")
_BETWEEN = re.compile(rf"\b(?:between|from)\s+(?:minutes?\s+)?({_TIME})\s+(?:and|to|until|till)\s+({_TIME})")
_SPAN = re.compile(rf"\b(?:in|during|within|over|for)\s+the\s+(first|last|final|second|opening|closing)\s+"
                   rf"((?:{_NUM})\s+{_UNIT}|half\s+(?:an?\s+)?hour|hour|minute|second|half)\b")
_AFTER = re.compile(rf"\b(?:after|past|beyond|later\s+than)\s+(?:the\s+first\s+)?({_TIME})")
_BEFORE = re.compile(rf"\b(?:before|until|till|prior\s+to|earlier\s+than)\s+({_TIME})")


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
    hour" -> 1800; "minute 3" -> 180; "the 5 minute mark" -> 300."""
    t = re.sub(r"^the\s+|\s+mark$", "", text.strip())
    if re.fullmatch(_CLOCK, t):
        parts = [int(p) for p in t.split(":")]
        return float(sum(p * 60 ** i for i, p in enumerate(reversed(parts)))), True
    if re.fullmatch(r"half\s+an?\s+hour", t):
        return 1800.0, True
    if m := re.fullmatch(rf"minute\s+({_NUM})", t):
        return _number(m.group(1)) * 60, True
    if m := re.fullmatch(rf"({_NUM})(?:\s*|-)({_UNIT})", t):
        return _number(m.group(1)) * UNIT_S[m.group(2).rstrip("s") or "s"], True
    if re.fullmatch(_NUM, t) and unit_s is not None:
        return _number(t) * unit_s, False
    return None


def _unit_of(text: str) -> float | None:
    m = re.search(rf"(?:{_NUM})(?:\s*|-)({_UNIT})|minute", text)
    return None if m is None else UNIT_S[(m.group(1) or "minute").rstrip("s") or "s"]


def _amount(text: str) -> float:
    """Seconds of a ``_SPAN`` amount: "ten minutes", "half hour", "half an hour", "hour", "minute", "second"."""
    if text.startswith("half"):
        return 1800.0
    if text in ("hour", "minute", "second"):
        return float(UNIT_S[text])
    got = time_seconds(text)
    return got[0] if got else 0.0


def asked_window(question: str) -> WindowAsk | None:
    """The part of the video ``question`` names (module doc), or None; none for a viewer's memory
    (``tools.signals.lexicon.memory_form``: "I remember a referee making a terrible call in the last minute, ..."),
    whose times are the scene's, not the video's."""
    if memory_form(question):
        return None
    q = " ".join(question.lower().replace(",", " ").split()).rstrip("?.! ")
    if m := _BETWEEN.search(q):
        a, b = m.group(1), m.group(2)
        ua = time_seconds(a, _unit_of(b) or (60.0 if "minute" in m.group(0) else None))
        ub = time_seconds(b, _unit_of(a) or (60.0 if "minute" in m.group(0) else None))
        if ua and ub and ub[0] > ua[0]:
            return WindowAsk(m.group(0), start_s=ua[0], end_s=ub[0])
    if m := _SPAN.search(q):
        which, amount = m.group(1), m.group(2)
        if amount == "half":
            return WindowAsk(m.group(0), half=2 if which in ("second", "last", "final", "closing") else 1)
        seconds = _amount(amount)
        if which == "second" or not seconds:
            return None
        if which in ("last", "final", "closing"):
            return WindowAsk(m.group(0), start_s=seconds, from_end=True)
        return WindowAsk(m.group(0), start_s=0.0, end_s=seconds)
    if (m := _AFTER.search(q)) and (t := time_seconds(m.group(1))):
        return WindowAsk(m.group(0), start_s=t[0])
    if (m := _BEFORE.search(q)) and (t := time_seconds(m.group(1))):
        return WindowAsk(m.group(0), start_s=0.0, end_s=t[0])
    return None


def without_window(question: str, ask: WindowAsk | None) -> str:
    """``question`` without the words of ``ask`` (matched without case; the question as it is when they are not found
    or ``ask`` is None), so the feeling and the search are read from the rest."""
    if ask is None:
        return question
    words = r"[\s,]+".join(re.escape(w) for w in ask.phrase.split())
    out = re.sub(rf"\s*\b{words}\b", "", question, count=1, flags=re.IGNORECASE)
    return " ".join(out.split()) or question


def window_warnings(question: str, window: tuple[float, float] | None, duration_s: float) -> list[str]:
    """The line an answer carries when ``question`` names a part of the video (``asked_window``) that ``window`` (the
    part searched, seconds, or None) does not hold because it lies outside the video's ``duration_s`` seconds: the
    whole video was searched then."""
    ask = asked_window(question)
    if ask is None or window is not None:
        return []
    return [(f'the question names "{ask.phrase}", which lies outside this {duration_s:.1f} s video; the whole video '
             "was searched")]
