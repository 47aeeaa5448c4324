"""The part of a video a question asks about, said in words: "in the last ten minutes", "after 12:30", "between
minute 3 and minute 5", "in the first half", "before the 2 minute mark".

A user of a long video often knows roughly where to look ("how does she react in the last five minutes?"); the
answer then searches that part only. Read from the question's words alone (lower-cased), the same for the offline
reader and a hosted one:

- ``between`` / ``from`` T ``and`` / ``to`` / ``until`` / ``-`` T (T a time: ``12:30``, ``1:02:03``, ``90 seconds``,
  ``ten minutes``, ``twenty-five minutes``, ``minute 3``, ``the 5 minute mark``; a bare number on one side takes the
  other side's unit: "between 3 and 5 minutes");
- ``in`` / ``during`` / ``within`` / ``over`` / ``for`` (or "check" / "watch" / "look at") ``the`` ``first`` /
  ``opening`` / ``last`` / ``final`` / ``past`` / ``closing`` + an amount ("the first minute", "the past 30 seconds",
  "the final half hour", "the first 90s", "the last 20% of the vid", "the first 2/3 of the show"; a share said as a
  number only when said to be the video's, said first or after "check": "only check the last 20%"), or a share of
  the video ("the first
  half", "the 2nd half", "the latter half", "the middle third", "the last quarter of the video"); two shares said to
  be the video's ("between 40% and 60% of the lecture");
- ``after`` / ``past`` / ``beyond`` / ``later than`` T ("after 10 minutes", "after the first half hour", "past the
  1:00 mark"); ``before`` / ``until`` / ``till`` / ``prior to`` / ``earlier than`` T, ``up to`` / ``up until`` a
  point (a clock time, "the 3 minute mark": "up to 2 minutes" is a length); ``from`` T ``on`` / ``onward`` / ``till
  the end``, T ``onwards``, ``since`` a point that cannot be a time of day ("since 33:20", "since the 12:30 mark";
  not "since 6:15"); ``from`` / ``since`` T ``up to`` / ``until`` T; an "after" and a
  "before" joined by "and" or "but" are one part ("after 12:30 but before 15:00"); an amount after or before a point
  ("in the 10 min after 1:30:00", "the 2 minutes before the goal at 30:00");
- one minute or hour by its place: ``in the 34th minute``, ``during the sixth minute``, ``in the second hour``,
  ``during minute 12`` (the twelfth, 11:00-12:00; "after minute 12" and "at minute 12" read the point 12:00);
- a point in time, as a window around it (``POINT_HALF_S``; ``APPROX_HALF_S`` after "around", "near", "about"): a
  mark ("at the 10-minute mark", "around the 20:00 mark"), an amount in ("about 5 minutes in, ..."), a clock time that
  cannot be a time of day ("near 58:30", "around 1:05:00") or is said to be the video's ("at 14:00 in the video"), or
  one said first ("at 14:00 exactly, what's her expression?", "1:02:03 - is the witness scared?");
- a part said first before a clause mark ("first 30 secs, is she surprised?", "last quarter hour: ...", "second half
  of the meeting, ...", "3rd minute: ..."; not "last minute changes") or after the question as a sentence of its own
  ("are they smug? last quarter of the podcast"); two clock times or compact hours said first ("1:20:00 to 1:30:00 -
  ...", "1h05 to 1h20: ...", "0:00-2:30 does ..."); two clock times after "at" ("at 14:20-14:50"), or in hours,
  minutes and seconds anywhere ("1:10:00-1:25:00"); two compact amounts or "min N-M" at the start of a clause or
  after a word that places them ("22m-27m anger ...", "is he happy at 22m-27m?", "min 25-30 is ..."); two amounts and
  an "in" that ends a clause ("15-20 min in?"); compact hours ("1h", "1h30"); "of the video" / "of the meeting" / "of
  the cooking show" and the like after a part.

Not read as a part: a time with no unit and no colon ("after 3": a clock time or an episode); a time of day ("after
5:30 in the morning", "before 7:00 pm", "at 6:00-7:00 every day", "the party is at 8:00", "at 9:30 she has a
meeting", "school starts at 8:15"; a clock time inside a question that could be a time of day is one: "is he happy at
14:00?" searches the whole video); a time someone says in quotes; a length of something ("after a minute of
silence", "in the last minute of his speech", "5 minutes to 10 minutes - how long ...", "5 minutes in the oven"; "of
the video" is read); "a second" (an ordinal: "before a second date"); "after he leaves" (a departure,
``tools.signals.change_words``); decades, ages, distances and counts ("the 90s", "in her 20s-30s", "the final 50m",
"at 5m deep", "after 2m views"; so compact minutes are no point: "at 27m"); a game's, a set's or a class's part ("in
the first half of the game"), a quarter not said to be the video's ("in the 4th quarter", "over the past quarter"), a
share of something else ("the top 20% of her class", "the last 1/4 mile", "between 15 and 20 percent", "when her
phone is in the last 10%"); "N minutes in" after a verb ("he gave up 10 minutes in"); a part said
not to be searched ("but not in the first half"), compared with another ("in the first half or the second?"), or a
range that ends before it starts; anything in a viewer's memory. A part named by its position alone ("towards the
end", "early on", "about halfway through", "in the last few minutes") is read as a share of the video
(``tools.signals.time_vague``). Pure functions of the text; the window is resolved against the video's duration by
``WindowAsk.resolve``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.signals import time_patterns as tp
from tools.signals import time_vague as tv
from tools.signals.lexicon import memory_form
from tools.signals.time_patterns import time_seconds

__all__ = ["WindowAsk", "asked_window", "time_seconds", "window_warnings", "without_window"]


@dataclass(frozen=True)
class WindowAsk:
    """A part of the video a question names: ``start_s`` / ``end_s`` seconds from its start (None: open), or, with
    ``from_end``, ``start_s`` seconds before its end ("the last ten minutes"); ``fraction`` (start, end) as shares of
    the video's duration for "the first half", "the last third", "the last 20%"; ``point``: a window around a point
    in time ("at 14:00", "around the 20 minute mark"); ``vague``: a part named by its position alone ("towards the
    end", ``tools.signals.time_vague``); ``phrase``: the words that say it."""

    phrase: str
    start_s: float | None = None
    end_s: float | None = None
    from_end: bool = False
    fraction: tuple[float, float] | None = None
    point: bool = False
    vague: bool = False

    def resolve(self, duration_s: float) -> tuple[float, float] | None:
        """The window in seconds, clipped to [0, ``duration_s``]; None when it lies wholly outside the video or is
        empty. A vague part is at least ``tools.signals.time_vague.VAGUE_MIN_S`` long, grown from its middle ("at the
        very start" of a 10 s video is not its first 0.5 s)."""
        if self.fraction is not None:
            lo, hi = duration_s * self.fraction[0], duration_s * self.fraction[1]
        elif self.from_end:
            lo, hi = duration_s - (self.start_s or 0.0), duration_s
        else:
            lo, hi = self.start_s or 0.0, duration_s if self.end_s is None else self.end_s
        if self.vague and hi - lo < tv.VAGUE_MIN_S:
            lo, hi = tv.widened(lo, hi, duration_s)
        lo, hi = max(0.0, lo), min(duration_s, hi)
        return (round(lo, 3), round(hi, 3)) if hi > lo else None


#: Half the width of the window a point in time names ("at 14:00": 13:30-14:30), and of an approximate one ("around
#: 14:00": 13:00-15:00), seconds: room for the reaction beside the time said. A choice, not a measured figure.
POINT_HALF_S, APPROX_HALF_S = 30.0, 60.0


def share_of(amount: str) -> float | None:
    """The share a number says: "20%" -> 0.2, "10 percent" -> 0.1, "2/3" -> 0.667, "two thirds" -> 0.667; None for
    anything else or a share outside (0, 1]."""
    t = amount.strip()
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)", t):
        p = float(m.group(1)) / 100
    elif m := re.fullmatch(r"(\d)/(\d\d?)", t):
        p = int(m.group(1)) / int(m.group(2)) if int(m.group(2)) else 0.0
    elif m := re.fullmatch(r"(two|three)[\s-](thirds|quarters)", t):
        p = {"two": 2, "three": 3}[m.group(1)] / {"thirds": 3, "quarters": 4}[m.group(2)]
    else:
        return None
    return p if 0 < p <= 1 else None


def _share(which: str, amount: str, of_video: bool) -> tuple[float, float] | None:
    """The share of the video "the ``which`` ``amount``" names: "first half" -> (0, 0.5), "middle third" -> (1/3,
    2/3), "last 20%" -> (0.8, 1), "first 2/3" -> (0, 0.667), "last quarter of the video" -> (0.75, 1); None for one
    that names no share ("the fourth third", "the second 20%"), or a quarter not said to be the video's (``of_video``:
    "in the 4th quarter" is a game's, "over the past quarter" a year's)."""
    if amount not in tp.FRACTIONS:
        p = share_of(amount)
        if p is not None and which in tp.FROM_END:
            return 1 - p, 1.0
        return (0.0, p) if p is not None and which in tp.FROM_START else None
    n = tp.FRACTIONS[amount]
    if amount == "quarter" and not of_video:
        return None
    if which in tp.FROM_END:
        place = n
    else:
        place = 2 if which == "middle" and n == 3 else tp.FRACTION_PLACE.get(which, 0)
    return ((place - 1) / n, place / n) if 1 <= place <= n else None


def _span(m: re.Match) -> WindowAsk | None:
    """The part a ``SPAN`` or ``OPENING`` match names: the first / last amount, or a share of the video."""
    which, amount = [g for g in m.groups() if g is not None][:2]
    if amount in tp.FRACTIONS or share_of(amount) is not None:
        if amount not in tp.FRACTIONS and " of the " not in m.group(0) and re.match(tp.SHARE_ASIDE, m.group(0)):
            return None  # "in the last 10%" inside a sentence is a share of something ("when her phone is ...")
        share = _share(which, amount, " of the " in m.group(0))
        return None if share is None else WindowAsk(_phrase(m), fraction=share)
    got = time_seconds(amount)
    if got is None or which not in (*tp.FROM_END, *tp.FROM_START):  # "the second ten minutes": not read
        return None
    if which in tp.FROM_END:
        return WindowAsk(_phrase(m), start_s=got[0], from_end=True)
    return WindowAsk(_phrase(m), start_s=0.0, end_s=got[0])


def _range(m: re.Match) -> WindowAsk | None:
    """The part a ``BETWEEN`` or ``RANGE`` match names: from its first time to its second; a bare number takes the
    unit of the other side (or minutes, where "minute" or "min" is said); None for a range that does not read or ends
    before it starts."""
    times = [g for g in m.groups() if g is not None]
    unit = tp.unit_of(m.group(0))
    a, b = time_seconds(times[0], unit), time_seconds(times[1], unit)
    return WindowAsk(_phrase(m), start_s=a[0], end_s=b[0]) if a and b and b[0] > a[0] else None


def _place(m: re.Match) -> WindowAsk | None:
    """The minute or hour an ``ORDINAL`` match names by its place: "the 34th minute" -> 33:00-34:00, "the second
    hour" -> 1:00:00-2:00:00, "minute 12" -> 11:00-12:00; None for "minute 3.5"."""
    word = next(g for g in m.groups() if g is not None)
    n = tp.ordinal(word) if re.fullmatch(tp.ORD, word) else tp.number(word)
    unit = 3600.0 if re.search(r"\bhour\b", m.group(0)) else 60.0
    return WindowAsk(_phrase(m), start_s=(n - 1) * unit, end_s=n * unit) if n >= 1 and n == int(n) else None


def _point(m: re.Match) -> WindowAsk | None:
    """The window an ``AT_POINT`` match names: the time said, +-``POINT_HALF_S`` ("at 14:00", "1:02:03 - ..."), or
    +-``APPROX_HALF_S`` after "around", "near", "about" and the like."""
    t = time_seconds(next(g for g in m.groups() if g is not None))
    if t is None:
        return None
    half = APPROX_HALF_S if re.search(rf"\b(?:{tp.APPROX})\b", m.group(0)) else POINT_HALF_S
    return WindowAsk(_phrase(m), start_s=t[0] - half, end_s=t[0] + half, point=True)


def _relative(m: re.Match) -> WindowAsk | None:
    """The part a ``RELATIVE`` match names: the amount after ("the 10 min after 1:30:00") or before a point."""
    amount, point = time_seconds(m.group(1)), time_seconds(m.group(3) or m.group(4))
    if amount is None or point is None:
        return None
    if m.group(2) in ("after", "following"):
        return WindowAsk(_phrase(m), start_s=point[0], end_s=point[0] + amount[0])
    return WindowAsk(_phrase(m), start_s=point[0] - amount[0], end_s=point[0])


def _reading(pattern: re.Pattern, m: re.Match) -> WindowAsk | None:
    """The part one match of ``pattern`` names, or None where its times do not read."""
    if pattern is tv.VAGUE:
        return WindowAsk(_phrase(m), fraction=tv.vague_share(m), vague=True)
    if pattern is tv.VAGUE_COUNT:
        if (count := tv.vague_count(m)) is None:
            return None
        return WindowAsk(_phrase(m), start_s=count[1] if count[0] else 0.0, end_s=None if count[0] else count[1],
                         from_end=count[0], vague=True)
    if pattern is tp.ORDINAL:
        return _place(m)
    if pattern is tp.AT_POINT:
        return _point(m)
    if pattern is tp.RELATIVE:
        return _relative(m)
    if pattern is tp.SHARE_RANGE:
        lo, hi = float(m.group(1)) / 100, float(m.group(2)) / 100
        return WindowAsk(_phrase(m), fraction=(lo, hi)) if 0 <= lo < hi <= 1 else None
    if pattern in (tp.BETWEEN, tp.RANGE):
        return _range(m)
    if pattern in (tp.SPAN, tp.OPENING):
        return _span(m)
    t = time_seconds(next(g for g in m.groups() if g is not None))
    if t is None:
        return None
    return WindowAsk(_phrase(m), start_s=t[0]) if pattern in (tp.AFTER, tp.ONWARD) else \
        WindowAsk(_phrase(m), start_s=0.0, end_s=t[0])


def _parts(q: str) -> list[tuple[re.Match, WindowAsk | None]]:
    """Every part ``q`` (lower-cased, commas set apart) names, in order, each with its reading (None where its times
    do not read)."""
    found: list[tuple[re.Match, WindowAsk | None]] = []
    quoted = [m.span() for m in re.finditer(r"(?:^|(?<=\s))['\"\u2018\u201c].*?['\"\u2019\u201d](?=\s|$|[,.;:?!])", q)]
    for pattern in (tp.SHARE_RANGE, tp.RELATIVE, tp.BETWEEN, tp.ORDINAL, tp.RANGE, tp.OPENING, tp.SPAN, tp.ONWARD,
                    tp.AFTER, tp.BEFORE, tp.AT_POINT, tv.VAGUE_COUNT, tv.VAGUE):
        for m in pattern.finditer(q):
            if any(m.start() < f.end() and f.start() < m.end() for f, _ in found):
                continue
            if any(a <= m.start() < b for a, b in quoted) or pattern in (tv.VAGUE, tv.VAGUE_COUNT) \
                    and not tv.vague_read(q, m):
                continue  # a time someone says ("he says 'meet me at 5:30'"), a place ("the girl in the middle")
            ask = _reading(pattern, m)
            if ask is not None or pattern is tp.BETWEEN:  # a range whose times do not read is no part at all
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
    if not parts or any(ask is None or tp.EXCEPT.search(q[:m.start()]) or tp.COMPARED.match(q[m.end():])
                        for m, ask in parts):
        return None
    if len(parts) == 1:
        return parts[0][1]
    (m1, a1), (m2, a2) = parts[0], parts[-1]
    if len(parts) == 2 and m1.re is tp.AFTER and m2.re is tp.BEFORE and a2.end_s > (a1.start_s or 0.0) \
            and re.fullmatch(r"\s+(?:and|but)\s+", q[m1.end():m2.start()]):
        return WindowAsk(q[m1.start():m2.end()], start_s=a1.start_s, end_s=a2.end_s)
    return None


def without_window(question: str, ask: WindowAsk | None) -> str:
    """``question`` without the words of ``ask`` (matched without case; the question as it is when they are not found
    or ``ask`` is None), so the feeling and the search are read from the rest."""
    if ask is None:
        return question
    words = r"[\s,]+".join(re.escape(w) for w in ask.phrase.split())
    out = re.sub(rf"\s*(?<!\w){words}(?!\w)", "", question, count=1, flags=re.IGNORECASE)
    return " ".join(out.split()).strip(" ,;:.-\u2013\u2014") or question


def window_warnings(question: str, window: tuple[float, float] | None, duration_s: float) -> list[str]:
    """The line an answer carries when ``question`` names a part of the video (``asked_window``) that ``window`` (the
    part searched, seconds, or None) does not hold: it lies outside the video's ``duration_s`` seconds or is empty ("in
    the first 0 seconds"); the whole video was searched then. A part named by its position alone ("towards the end")
    is said as read (``tools.signals.time_vague.vague_note``)."""
    ask = asked_window(question)
    if ask is not None and ask.vague and window is not None:
        return [tv.vague_note(ask.phrase, window, duration_s)]
    if ask is None or window is not None:
        return []
    where = (f"which lies outside this {duration_s:.1f} s video" if (ask.start_s or 0.0) >= duration_s
             else "which holds no time of this video")
    return [f'the question names "{ask.phrase}", {where}; the whole video was searched']
