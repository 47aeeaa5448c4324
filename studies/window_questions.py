"""Questions that name the part of the video to search ("... in the last 40 seconds?"), made from a bench's own.

    python -m studies.window_questions BENCH.jsonl --out WINDOWED.jsonl

For each item of a bench, the third of its video (first, middle or last, by the video's duration from
``tools.core.media.probe``) that holds the middle of its first labelled moment is named in the question, in one of the
forms ``tools.signals.time_words`` reads: "in the first N seconds" (first third), "between M:SS and M:SS" (middle
third), "in the last N seconds" (last third), the amounts rounded to whole seconds; the question's trailing "?" stays
last. The item keeps the labelled moments whose middle lies in the named part (the first always does), so a moment
of the same feeling outside it no longer counts. Items are written in the bench's order with their ids suffixed
``-window``; the videos are the bench's, as absolute paths. Run both codes on the written bench
with ``python -m evals.run`` and compare with ``evals.summary``: the window restricts where the answer looks
(``agents.localizer.in_window``), so this measures that the part named is searched and the feeling asked is still
read with the phrase in the question (``evals/RESULTS.md`` section 199).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evals.bench import BenchError, BenchItem, load_bench
from tools.core.media import VideoError, probe


def _clock(t: float) -> str:
    return f"{int(t) // 60}:{int(t) % 60:02d}"


def windowed(item: BenchItem, duration_s: float) -> dict:
    """``item`` (a bench item) as a record asking about the third of its ``duration_s``-second video that holds the
    middle of its first labelled moment (module doc)."""
    first = item.moments[0]
    third = min(2, int(3 * (first.start_s + first.end_s) / 2 / duration_s))
    lo, hi = (round(duration_s * third / 3), round(duration_s * (third + 1) / 3))
    phrase = (f"in the first {hi} seconds" if third == 0 else f"in the last {round(duration_s) - lo} seconds"
              if third == 2 else f"between {_clock(lo)} and {_clock(hi)}")
    lo_s, hi_s = (0.0, float(hi)) if third == 0 else (duration_s - (round(duration_s) - lo), duration_s) \
        if third == 2 else (float(lo), float(hi))
    query = item.query.rstrip().rstrip("?").rstrip()
    moments = [m.model_dump() for m in item.moments if lo_s <= (m.start_s + m.end_s) / 2 <= hi_s]
    return {**item.model_dump(exclude={"moments"}), "id": f"{item.id}-window", "query": f"{query} {phrase}?",
            "moments": moments or [first.model_dump()]}


def main(argv: list[str] | None = None) -> int:
    """Command line entry (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m studies.window_questions", description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        items = load_bench(args.bench)
        durations: dict[Path, float] = {}
        records = []
        for item in items:
            video = item.video_path(args.bench)
            if video not in durations:
                durations[video] = probe(video).duration_s
            records.append({**windowed(item, durations[video]), "video": str(video.resolve())})
    except (BenchError, VideoError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"wrote {len(records)} questions to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
