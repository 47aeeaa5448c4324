"""A part of the video named by its position alone: "towards the end", "early on", "about halfway through", "in the
middle", "at the very start", "in the last few minutes". Read as a share of the video (or a few minutes from an
end) that holds what such words usually mean, and searched as any named part (``tools.signals.time_words``).

The shares are a choice made on the development question files' vague parts (32 questions by four writers, each
with the stretch the writer meant, ``evals/data/questions_time*.jsonl``): "towards the end" was the last 15-20 %,
"early on" the first 12-25 %, "about halfway through" 40-60 %, "in the middle" the middle third or 40-60 %, "at
the very start" or "in the closing minutes" a few per cent. Each share here overlaps those stretches by a tIoU of 0.5
or more; a searched part is a hard bound, so the shares lean wide.

Not read: the same words about something else ("at the end of the day", "in the middle of an argument", "early on
in her career", "towards the end of his life", "halfway through his sentence", "late in life"): the words must be
followed by the end of a clause, the question, or "of / in the <video word>" ("near the end of the interview").
"""

from __future__ import annotations

import re

from tools.signals.time_patterns import VIDEO_WORDS

#: Shares of the video (start, end) for each kind of vague position.
SHARES = {"end": (0.8, 1.0), "very_end": (0.95, 1.0), "start": (0.0, 0.2), "very_start": (0.0, 0.05),
          "halfway": (0.4, 0.6), "middle": (1 / 3, 2 / 3)}
#: How many minutes or seconds a vague count stands for ("the last few minutes": 5): wide, since the part is a hard
#: bound.
COUNTS = {"few": 5, "couple": 3, "several": 7}

_VIDEO = rf"(?:\s+(?:of|in|into|through)\s+the\s+(?:[a-z]+\s+)?{VIDEO_WORDS})?"
#: What must follow: the end of a clause or the question asked ("towards the end, does ...", "... the end when she").
_FOLLOW = (r"(?=\s*(?:$|[,:;.?!\-\u2013\u2014])|\s+(?:does|do|did|is|are|was|were|can|could|will|would|has|have|had|"
           r"who|whom|whose|what|when|how|why|where|which|any|anyone|anybody|someone|somebody|everyone|he|she|they|"
           r"we|i|you|there)\b)")
_KINDS = {
    "very_end": r"(?:at|by)\s+the\s+very\s+end|right\s+at\s+the\s+end|(?:in|during)\s+the\s+(?:closing|final|dying)"
                r"\s+(?:moments|minutes|seconds)",
    "end": r"(?:towards?|near|close\s+to|nearing|by|at|around)\s+the\s+end|late\s+(?:on\s+)?in\s+the\s+(?:[a-z]+\s+)?"
           rf"{VIDEO_WORDS}|(?:in|during)\s+the\s+(?:last|final|latter|closing)\s+(?:part|stretch|section|stages|bit)",
    "very_start": r"at\s+the\s+very\s+(?:start|beginning)|right\s+at\s+the\s+(?:start|beginning)|(?:in|during)\s+the"
                  r"\s+opening\s+(?:moments|minutes|seconds)",
    "start": r"early\s+on|early\s+in\s+the\s+(?:[a-z]+\s+)?" + VIDEO_WORDS + r"|(?:at|near|towards?|around|in)\s+the"
             r"\s+(?:start|beginning|outset)|(?:in|during)\s+the\s+(?:first|early|opening)\s+(?:part|stretch|section"
             r"|stages|bit)",
    "halfway": r"(?:(?:about|around|roughly|nearly|almost|right|just)\s+)?(?:half[\s-]?way|mid[\s-]?way)"
               r"(?:\s+(?:through|in|into|point))?"
               r"|(?:at|around|near)\s+the\s+(?:half[\s-]?way|mid[\s-]?way|mid)[\s-]?point",
    "middle": r"(?<!\bmeet\s)(?<!\bmeets\s)(?<!\bmet\s)(?:somewhere\s+)?(?:in|around|near|during)\s+the\s+middle"
              r"(?:\s+(?:part|section|stretch|portion|bit))?",
}
VAGUE = re.compile("|".join(rf"\b(?P<{kind}>{words}){_VIDEO}{_FOLLOW}" for kind, words in _KINDS.items()))
#: "the last few minutes", "the first couple of minutes", "in the final several seconds".
VAGUE_COUNT = re.compile(r"\b(?:in|during|within|over|for)\s+the\s+(first|last|final|opening|closing)\s+(few|couple"
                         rf"(?:\s+of)?|several)\s+(minutes|seconds|mins|secs){_VIDEO}{_FOLLOW}")


def vague_share(m: re.Match) -> tuple[float, float]:
    """The share of the video a ``VAGUE`` match names (``SHARES``)."""
    return SHARES[next(kind for kind, said in m.groupdict().items() if said)]


def vague_count(m: re.Match) -> tuple[bool, float]:
    """A ``VAGUE_COUNT`` match as (from the end, seconds): "the last few minutes" -> (True, 300)."""
    unit = 60.0 if m.group(3).startswith("min") else 1.0
    return m.group(1) in ("last", "final", "closing"), COUNTS[m.group(2).split()[0]] * unit
