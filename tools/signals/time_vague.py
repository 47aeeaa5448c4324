"""A part of the video named by its position alone: "towards the end", "early on", "about halfway through", "in the
middle", "at the very start", "in the last few minutes". Read as a share of the video (or a few minutes from an
end) that holds what such words usually mean, and searched as any named part (``tools.signals.time_words``).

The shares are a choice made on the development question files' vague parts (64 questions by five writers, each
with the stretch the writer meant, ``evals/data/questions_time*.jsonl``; the fifth file read once first, section 204 of
``evals/RESULTS.md``): "towards the end" was the last 15-20 %, "early on" the first 12-25 %, "about halfway through"
40-60 %, "in the middle" the middle third or 40-60 %, "at the very start" or "in the closing minutes" a few per cent,
"later on" and "the latter part" the second half. A searched part is a hard bound, so the shares lean wide.

Not read: the same words about something else ("at the end of the day", "in the middle of an argument", "early on
in her career", "towards the end of his life", "halfway through his sentence", "late in life"): the words must be
followed by the end of a clause, the question, or "of / in the <video word>" ("near the end of the interview").
"""

from __future__ import annotations

import re

from tools.signals.time_patterns import THE_VIDEO, VIDEO_WORDS

#: Shares of the video (start, end) for each kind of vague position.
SHARES = {"end": (0.8, 1.0), "very_end": (0.95, 1.0), "start": (0.0, 0.2), "very_start": (0.0, 0.05),
          "halfway": (0.4, 0.6), "middle": (1 / 3, 2 / 3), "before_halfway": (0.0, 0.5), "after_halfway": (0.5, 1.0),
          "later": (0.5, 1.0)}
#: How many minutes or seconds a vague count stands for ("the last few minutes": 5, "the closing minutes": 5, "the
#: final seconds": 30): wide, since the part is a hard bound.
COUNTS = {"few": 5, "couple": 3, "several": 7}
CLOSING_MINUTES, CLOSING_SECONDS = 5, 30
#: The shortest vague part searched, seconds: a share of a short video ("at the very start" of 10 s) is grown to it,
#: from its middle and within the video, so the part holds a few of the index's clips. A choice.
VAGUE_MIN_S = 30.0

#: "of / in the <video word>" after the words; not another video ("the previous video", "the next meeting").
_VIDEO = (r"(?:\s+(?:of|in|into|through)\s+the\s+"
          r"(?!(?:previous|next|other|earlier|later|following|prior|last|first|second|third)\b)"
          rf"(?:[a-z]+\s+)?{VIDEO_WORDS})?")
#: What must follow: the end of a clause (a dash only with a space before it: not "end-of-year") or the question
#: asked ("towards the end, does ...", "... at the end when she ...").
_FOLLOW = (r"(?=\s*(?:$|[,:;.?!])|\s+[-\u2013\u2014]|\s+(?:does|do|did|is|are|was|were|can|could|will|would|has|have|"
           r"had|who|whom|whose|what|when|how|why|where|which|any|anyone|anybody|someone|somebody|everyone|he|she|"
           r"they|we|i|you|there)\b)")
#: Words before that make the position a place ("the girl in the middle", "sitting at the end", "who's that at the
#: end?"), a state ("are we halfway?"), a name ("the battle of midway") or a compromise ("meet you somewhere in the
#: middle").
_PLACE_BEFORE = re.compile(r"\b(?:man|woman|guy|girl|boy|person|one|kid|child|lady|gentleman|people|player|dog|car|"
                           r"seat|row|table|line|queue|sitting|sits|sat|seated|standing|stands|stood|stuck|caught|"
                           r"placed|lying|lies|parked|who's|that|this|of)\s+$|\bwho\s+is\s+$"
                           r"|\b(?:are|is|am|was|were)\s+(?:we|they|you|i|he|she)\s+$"
                           r"|\b(?:we're|they're|i'm|you're)\s+$"
                           r"|\b(?:meet|meets|met|compromise)\b[^,.;:?!]*$")
_KINDS = {
    "very_end": r"(?:at|by)\s+the\s+(?:very|tail)\s+end|right\s+at\s+the\s+end|(?:in|during)\s+the\s+(?:closing"
                r"|final|dying)\s+moments|(?:in|during)\s+the\s+outro",
    "later": rf"later\s+(?:on\s+)?in\s+{THE_VIDEO}|(?:in|during)\s+the\s+latter\s+(?:part"
             r"|stretch|section|stages|bit)",
    "end": r"(?:towards?|near|close\s+to|nearing|by|at|around)\s+the\s+end|late\s+(?:on\s+)?in\s+"
           rf"{THE_VIDEO}|late\s+on"
           r"|(?:in|during)\s+the\s+(?:last|final|closing)\s+(?:part|stretch|section|stages|bit)",
    "very_start": r"at\s+the\s+very\s+(?:start|beginning)|right\s+at\s+the\s+(?:start|beginning)|(?:in|during)\s+the"
                  r"\s+opening(?:\s+moments)?|(?:in|during)\s+the\s+intro",
    "start": rf"early\s+on|early\s+in\s+{THE_VIDEO}|(?:at|near|towards?|around|in)\s+the"
             r"\s+(?:start|beginning|outset)|(?:in|during)\s+the\s+(?:first|early|opening)\s+(?:part|stretch|section"
             r"|stages|bit)",
    "before_halfway": r"(?:before|until|till|up\s+to)\s+(?:the\s+)?(?:half[\s-]?way|mid[\s-]?way)"
                      r"(?:[\s-]?(?:point|mark))?",
    "after_halfway": r"(?:after|past|since|from)\s+(?:the\s+)?(?:half[\s-]?way|mid[\s-]?way)(?:[\s-]?(?:point|mark))?"
                     r"(?:\s+on(?:wards?)?)?",
    "halfway": r"(?:(?:about|around|roughly|nearly|almost|right|just)\s+)?(?:half[\s-]?way|mid[\s-]?way)(?!\s+there\b)"
               r"(?:\s+(?:through|in|into|point|mark))?"
               r"|(?:at|around|near)\s+the\s+(?:(?:half[\s-]?way|mid[\s-]?way|mid)[\s-]?(?:point|mark)|(?:exact\s+)?"
               r"midpoint)",
    "middle": r"(?:somewhere\s+)?(?:in|around|near|during|towards?)\s+the\s+middle"
              r"(?:\s+(?:part|section|stretch|portion|bit))?",
}
VAGUE = re.compile("|".join(rf"\b(?P<{kind}>{words}){_VIDEO}{_FOLLOW}" for kind, words in _KINDS.items()))
#: Words of a comparison or a change across the video.
_CHANGE = re.compile(r"\b(?:but|compared|than|versus|vs|changes?|changing|starts?\s+off|as\s+it\s+goes\s+on"
                     r"|from\s+the\s+(?:start|beginning)|(?:gets?|getting|becomes?|becoming|grows?|growing)\s+(?:more"
                     r"|less|happier|sadder|angrier|calmer|better|worse|madder|quieter|louder|tenser|grumpier|gloomier"
                     r"|friendlier|colder|warmer|bolder|braver|weaker|stronger|livelier|crankier|edgier))\b")
#: The same words wherever they stand: two in one question compare parts ("happier at the start or at the end?").
_ANY_POSITION = re.compile("|".join(rf"\b(?:{words})" for words in _KINDS.values()))
#: "in the last few minutes", "in the first couple of minutes", "in the closing minutes", "the final seconds", also
#: said first ("the last few minutes, ..."); not a length up to now ("for / over the last few minutes he's been ...").
VAGUE_COUNT = re.compile(r"(?:\b(?:in|during|within)\s+the\s+|^(?:the\s+)?)(first|last|final|opening|closing)\s+"
                         r"(?:(few|couple(?:\s+of)?|several)\s+)?(minutes|seconds|mins|secs)"
                         rf"{_VIDEO}{_FOLLOW}")


def vague_read(q: str, m: re.Match) -> bool:
    """Whether a ``VAGUE`` or ``VAGUE_COUNT`` match in ``q`` (the lower-cased question) names a part of the video: not
    a place or a compromise (``_PLACE_BEFORE``), nor one of two positions compared ("at the start or at the end"),
    nor the later side of a change ("does she get happier towards the end?", "nervous at first but at the end ...":
    the change is searched over the whole video)."""
    return not _PLACE_BEFORE.search(q[:m.start()]) and len(_ANY_POSITION.findall(q)) <= 1 and not _CHANGE.search(q)


def vague_share(m: re.Match) -> tuple[float, float]:
    """The share of the video a ``VAGUE`` match names (``SHARES``)."""
    return SHARES[next(kind for kind, said in m.groupdict().items() if said)]


def vague_count(m: re.Match) -> tuple[bool, float] | None:
    """A ``VAGUE_COUNT`` match as (from the end, seconds): "the last few minutes" -> (True, 300), "the closing
    minutes" -> (True, 300), "the opening seconds" and "the last few seconds" -> 30 s; None for "the first minutes"
    (a plain count, not vague: "the first" / "the last" want one)."""
    minutes = m.group(3).startswith("min")
    if m.group(2):
        seconds = COUNTS[m.group(2).split()[0]] * 60.0 if minutes else float(CLOSING_SECONDS)
    elif m.group(1) in ("final", "opening", "closing"):
        seconds = CLOSING_MINUTES * 60.0 if minutes else float(CLOSING_SECONDS)
    else:
        return None
    return m.group(1) in ("last", "final", "closing"), seconds


def covers_the_video(window: tuple[float, float], duration_s: float) -> bool:
    """Whether the part ``window`` (seconds) is all of a ``duration_s``-second video, to within 0.5 s (a vague part of
    a video shorter than ``VAGUE_MIN_S`` grown to all of it: ``widened``)."""
    return window[1] - window[0] >= duration_s - 0.5


def vague_note(phrase: str, window: tuple[float, float], duration_s: float) -> str:
    """The line an answer carries when it searched a part named by its position alone: what ``phrase`` was read as
    (``window``, seconds, of a ``duration_s``-second video), so a user who meant otherwise ("at the end" for "in the
    end") can ask again; or that the video is too short for such a part (under ``VAGUE_MIN_S``: all of it searched)."""
    lo, hi = window
    if covers_the_video(window, duration_s):
        return f'"{phrase}" names no part of a video this short ({duration_s:.1f} s); the whole video was searched'
    return f'"{phrase}" was read as {lo:.0f}-{hi:.0f} s of the video; ask without it to search the whole video'


def widened(lo: float, hi: float, duration_s: float) -> tuple[float, float]:
    """The part ``lo``-``hi`` (seconds) grown to ``VAGUE_MIN_S`` from its middle, kept within [0, ``duration_s``]."""
    width = min(VAGUE_MIN_S, duration_s)
    lo = min(max(0.0, (lo + hi - width) / 2), duration_s - width)
    return lo, lo + width
