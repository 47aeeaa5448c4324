"""Gesture questions on a long video: does the index-time gesture timeline help the localizer?

    python -m studies.gesture_loop [--workdir DIR] [--json FILE] [--query Q ...] [--default-index-only]

The video is the benchmark's dialogue unit (``benches/bench_index.py``: real speech under the pictures
of the two shared clips, hamilton then KatieHill, repeated) looped to about 11 minutes. The only
labelled gestures are the performer's in the bundled sample (watched: he points and shows an open palm
between 4 and 7.5 s of ``samples/hamilton_short.mp4``, ``evals/RESULTS.md`` section 10), so every copy
of those seconds is a labelled pointing span; other people's gestures (the KatieHill speaker's hands)
are not labelled, so only the pointing question is scored.

The same code answers each question (``QUERY``, or those given with ``--query``) over two indexes of the video:
with hands and pose in the 1 fps index pass (the default) and without (``--no-index-gestures``: gestures only on the
verifier's candidates; left out with ``--default-index-only``). Scored per question: whether the top moment overlaps a
pointing span and the share of the returned moments (at most 5) that do; the time to open each index (its build, when
not cached). The questions are also asked of the sample itself, scored against ``POINTING_S`` alike.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

from studies.command import report

REPO = Path(__file__).resolve().parents[1]
QUERY = "when does the performer point at someone?"
#: The performer's pointing and open palm in ``samples/hamilton_short.mp4`` (seconds, watched).
POINTING_S = (4.0, 7.5)


def pointing_spans(unit_s: float, duration_s: float) -> list[tuple[float, float]]:
    """Every copy of ``POINTING_S`` in the looped video (seconds): the unit shows the hamilton frames
    then the KatieHill frames as ``iter_frames(src, 25)`` yields them, each written at 1/25 s, repeated
    to the unit's length; the unit is then looped."""
    from benches.bench_index import MEDIA
    from tools.core.frames import iter_frames

    times = [t for t, _ in iter_frames(MEDIA / "hamilton_short.mp4", 25)]
    n_other = sum(1 for _ in iter_frames(MEDIA / "WDA_KatieHill_000.mp4", 25))
    inside = [i for i, t in enumerate(times) if POINTING_S[0] <= t <= POINTING_S[1]]
    lo_off, hi_off, period = inside[0] / 25, (inside[-1] + 1) / 25, (len(times) + n_other) / 25
    spans = []
    for r in range(int(duration_s // unit_s) + 1):
        for k in range(int(unit_s // period) + 1):
            s0 = r * unit_s + k * period
            lo, hi = s0 + lo_off, min(s0 + hi_off, (r + 1) * unit_s, duration_s)
            if lo < hi:
                spans.append((round(lo, 3), round(hi, 3)))
    return spans


def scored(answer, spans: list[tuple[float, float]]) -> dict:
    """An answer's moments, whether its top moment overlaps one of ``spans`` (seconds), the share of its moments (at
    most 5) that do, and how many of ``spans`` they overlap (two moments on one pointing count once)."""
    found = [{i for i, (lo, hi) in enumerate(spans) if m.start_s < hi and m.end_s > lo} for m in answer.moments[:5]]
    return {"moments": [[m.start_s, m.end_s, m.emotion] for m in answer.moments], "top_hit": bool(found and found[0]),
            "share_of_moments_hit": round(sum(map(bool, found)) / max(1, len(found)), 2),
            "pointing_spans_found": len(set().union(*found)),
            "labels_on_pointing": [m.emotion for m, f in zip(answer.moments, found, strict=False) if f]}


def measure(work: Path, queries: tuple[str, ...] = (QUERY,), both: bool = True) -> dict:
    """Build (or reuse) the looped video and its indexes under ``work`` (the default index's alone unless ``both``)
    and score each of ``queries`` there and on the sample (module doc)."""
    from benches.bench_index import dialogue_video, loop_video
    from graphs.pipeline import ask, open_index, run_query
    from memory.index_config import IndexConfig
    from tools.core.media import probe

    work.mkdir(parents=True, exist_ok=True)
    base, video = work / "base.mp4", work / "v10.mp4"
    if not video.is_file():
        loop_video(dialogue_video(base), video, 600)
    unit_s, duration_s = probe(base).duration_s, probe(video).duration_s
    spans = pointing_spans(unit_s, duration_s)
    result: dict = {"duration_s": round(duration_s, 1), "pointing_spans": len(spans)}
    for query in queries:
        row = result.setdefault(query, {})
        for name, gestures in (("index gestures (default)", True), ("--no-index-gestures", False))[:2 if both else 1]:
            cache = work / ("cache-gestures" if gestures else "cache-nogestures")
            answer = run_query(str(video), query, index_config=IndexConfig(index_gestures=gestures),
                               cache_dir=str(cache)).answer
            row[name] = {**scored(answer, spans),
                         "index_s": answer.timings_s.get("index_total")}  # a cached index: its load time
            print(query, name, row[name], file=sys.stderr, flush=True)
    sample = open_index(REPO / "samples" / "hamilton_short.mp4", cache_dir=str(work / "cache-gestures"))
    result["the sample"] = {query: scored(ask(sample, query), [POINTING_S]) for query in queries}
    for name in ("the loop", "the sample"):
        rows = [result[q]["index gestures (default)"] if name == "the loop" else result[name][q] for q in queries]
        result.setdefault("top hits", {})[name] = f"{sum(r['top_hit'] for r in rows)} of {len(rows)}"
        result.setdefault("pointing spans found", {})[name] = sum(r["pointing_spans_found"] for r in rows)
        # every pointing span shows the same seconds of the same performer: one feeling, read alike or not
        labels = Counter(label for r in rows for label in r["labels_on_pointing"])
        result.setdefault("labels on pointing spans", {})[name] = dict(labels.most_common())
    return result


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(REPO))
    ap = argparse.ArgumentParser(prog="python -m studies.gesture_loop", description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=None, help="keep the video and caches here (default: temporary)")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    ap.add_argument("--query", action="append", default=None, metavar="Q",
                    help=f"a question about the pointing, repeatable (default: {QUERY!r})")
    ap.add_argument("--default-index-only", action="store_true",
                    help="ask only the default index (hands and pose in the index pass), not --no-index-gestures too")
    args = ap.parse_args(argv)
    queries = tuple(args.query or [QUERY])

    def compute() -> dict:
        if args.workdir:
            return measure(args.workdir, queries, not args.default_index_only)
        with tempfile.TemporaryDirectory() as tmp:
            return measure(Path(tmp), queries, not args.default_index_only)

    return report(compute, args.json, indent=2)

if __name__ == "__main__":
    sys.exit(main())
