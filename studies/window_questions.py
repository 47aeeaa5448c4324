"""Questions that name the part of the video to search ("... in the last 40 seconds?"), made from a bench's own.

    python -m studies.window_questions BENCH.jsonl --out WINDOWED.jsonl
    python -m studies.window_questions evals/data/questions_time.jsonl --read [--json OUT]

For each item of a bench, the third of its video (first, middle or last, by the video's duration from
``tools.core.media.probe``) that holds the middle of its first labelled moment is named in the question, in one of the
forms ``tools.signals.time_words`` reads: "in the first N seconds" (first third), "between M:SS and M:SS" (middle
third), "in the last N seconds" (last third), the amounts rounded to whole seconds; the question's trailing "?" stays
last. The item keeps the labelled moments whose middle lies in the named part (the first always does), so a moment
of the same feeling outside it no longer counts. Items are written in the bench's order with their ids suffixed
``-window``; the videos are the bench's, as absolute paths. Run both codes on the written bench
with ``python -m evals.run`` and compare with ``evals.summary``: the window restricts where the answer looks
(``agents.localizer.in_window``), so this measures that the part named is searched and the feeling asked is still
read with the phrase in the question (``evals/RESULTS.md`` section 199). ``--read`` reads written questions instead
(``read_time_questions``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evals.bench import BenchError, BenchItem, load_bench
from tools.core.media import VideoError, probe
from tools.core.schema import temporal_iou
from tools.signals.time_words import asked_window, without_window


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
    query = f"{item.query.rstrip().rstrip('?').rstrip()} {phrase}?"
    lo_s, hi_s = asked_window(query).resolve(duration_s)  # the part as the pipeline reads it
    moments = [m.model_dump() for m in item.moments if lo_s <= (m.start_s + m.end_s) / 2 <= hi_s]
    return {**item.model_dump(exclude={"moments"}), "id": f"{item.id}-window", "query": query,
            "moments": moments or [first.model_dump()]}


#: How far (seconds) each end of a window read may lie from the labelled one and count as right.
END_TOLERANCE_S = 1.0
#: A point in time ("at 14:00") is read as a window around it (``tools.signals.time_words.POINT_HALF_S``), whose
#: width the writer of a question sets otherwise (+-15 s, +-60 s, the next minute): such a reading counts as right
#: under ``point`` scoring when it holds the middle of the labelled window and both are at most this wide (seconds).
POINT_MAX_WIDTH_S = 120.0
#: A part named by its position alone ("towards the end") has no one right stretch: its reading counts as right when
#: it overlaps the writer's by at least this tIoU (the field's R1@0.5 criterion for a moment).
VAGUE_MIN_TIOU = 0.5


def window_right(got: tuple[float, float] | None, want: list[float] | None, point: bool = False,
                 vague: bool = False) -> bool:
    """Whether the window read (``got``, seconds, or None) is the labelled one (``want``): both none, or both ends
    within ``END_TOLERANCE_S``; with ``point`` (the reading names a point in time), also when ``got`` holds the middle
    of ``want`` and neither is wider than ``POINT_MAX_WIDTH_S``; with ``vague`` (a part named by its position), when
    their tIoU is at least ``VAGUE_MIN_TIOU``."""
    if got is None or want is None:
        return got is None and want is None
    if all(abs(a - b) <= END_TOLERANCE_S for a, b in zip(got, want, strict=True)):
        return True
    if vague:
        return temporal_iou(got, want) >= VAGUE_MIN_TIOU
    return point and got[0] <= (want[0] + want[1]) / 2 <= got[1] and max(got[1] - got[0], want[1] - want[0]) \
        <= POINT_MAX_WIDTH_S


def read_time_questions(path: Path) -> dict:
    """Written questions that name a part of a video or only sound as if they did (``evals/data/
    questions_time.jsonl``: ``query``, ``duration_s``, ``window`` [start_s, end_s] or null, ``emotion`` or null,
    ``kind`` part / no_part, ``vague`` for a part said without a time), read as the graph reads them: the part
    (``asked_window`` resolved on ``duration_s``; right when both ends lie within ``END_TOLERANCE_S`` of the label's,
    or both are none: ``{kind}_window``; or, for a point in time, as ``window_right`` with ``point``:
    ``{kind}_window_point``; and for a point or a vague part, as ``window_right`` with ``point`` and ``vague``:
    ``{kind}_window_loose``) and the feeling asked first by the offline reader of the question without the part's words,
    against the question as written (the code before, which read the part's words as part of the feeling). Returns
    counts per kind with 95 % intervals, and every question read otherwise than labelled."""
    from agents.intent import offline_intent
    from evals.metrics import bootstrap_interval

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out: dict = {"n": len(rows), "misses": []}
    scores: dict[str, list[float]] = {}
    for r in rows:
        ask = asked_window(r["query"])
        got = ask.resolve(float(r["duration_s"])) if ask else None
        want = r["window"]
        window_ok = window_right(got, want)
        point_ok = window_right(got, want, point=ask is not None and ask.point)
        loose_ok = window_right(got, want, point=ask is not None and ask.point, vague=ask is not None and ask.vague)
        asked = [r["emotion"]] if r["emotion"] else []
        now = offline_intent({"query": without_window(r["query"], ask)}).target_emotions[:1]
        before = offline_intent({"query": r["query"]}).target_emotions[:1]
        kind = "vague" if r.get("vague") else r["kind"]
        for name, ok in ((f"{kind}_window", window_ok), (f"{kind}_window_point", point_ok),
                         (f"{kind}_window_loose", loose_ok),
                         (f"{kind}_feeling_now", now == asked), (f"{kind}_feeling_before", before == asked)):
            scores.setdefault(name, []).append(float(ok))
        if not loose_ok or now != asked:
            out["misses"].append({"query": r["query"], "window": want, "read": got, "emotion": r["emotion"],
                                  "feeling_read": now})
    out["scores"] = {k: {"right": int(sum(v)), "n": len(v), "interval": [round(x, 3) for x in bootstrap_interval(v)]}
                     for k, v in sorted(scores.items())}
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line entry (see the module doc)."""
    ap = argparse.ArgumentParser(prog="python -m studies.window_questions", description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", type=Path, help="a bench to ask again (with --out), or a time-question file (--read)")
    ap.add_argument("--out", type=Path, help="write the windowed bench here")
    ap.add_argument("--read", action="store_true", help="read BENCH as written time questions (read_time_questions)")
    ap.add_argument("--json", type=Path, help="with --read: write the counts and misses here")
    args = ap.parse_args(argv)
    if args.read:
        got = read_time_questions(args.bench)
        for k, v in got["scores"].items():
            print(f"{k:28} {v['right']:3} of {v['n']:3}  {v['interval']}")
        if args.json:
            args.json.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
        return 0
    if args.out is None:
        ap.error("--out is needed to write a windowed bench")
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
