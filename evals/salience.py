"""Moments that stand out against a person's own usual look: emotion questions on the long transitions videos.

    python -m evals.salience build --bench DIR/bench.jsonl        # writes DIR/bench_salience.jsonl
    python -m evals.salience score --bench DIR/bench_salience.jsonl --predictions NAME=FILE ... [--json OUT]

Issue 32 defines an emotional moment as one that stands out against the same person's usual look and sound, not
one whose absolute score is high. The long transitions videos (``evals.transitions build --minutes``) hold both:
subjects who go from one posed emotion to another once (two recorded CK+ sequences), among recurring still shots
of other subjects who always show the same posed face. ``build`` asks, for each emotion shown by a moving
subject, "when does someone look <emotion>?"; the annotated moments are the moving subjects' segments showing it.
A still subject who always shows that emotion is not a moment by this definition, and this bench counts an
answer there as wrong: it measures the definition, so a reader of absolute scores is expected to lose on it.

Scoring (``score``): the top moment is right when its middle lies inside an annotated segment; right place and
emotion when its label is the asked one too. Two readings alone in the same table (``--reading``): the 1 fps clip
with the highest summed probability of the asked emotion as read, and the same against each person's own baseline
(``tools.signals.timeline.baseline_shifts``). Intervals: 95 % bootstrap over questions.
"""

from __future__ import annotations

import bisect
import json
import sys
from pathlib import Path

from evals.bench import BenchError, prediction_files, prediction_runs, read_records
from evals.metrics import bootstrap_interval
from evals.transitions import WORDS
from tools.core.argtypes import CommandParser


def build(bench: Path) -> Path:
    """Write ``bench_salience.jsonl`` beside ``bench`` (a long transitions bench with ``segments``): one question
    per emotion a moving subject shows, its moments every moving segment of that emotion.

    Raises:
        BenchError: the bench is missing, empty or not JSON Lines, its items carry no ``segments`` (built before they
            were recorded), or a segment's emotion is not an AffectNet-8 label.
    """
    items = read_records(bench, ("id", "video"))
    if not all("segments" in it for it in items):
        raise BenchError(f"{bench}: items without segments; rebuild with python -m evals.transitions build --minutes")
    if bad := sorted({str(seg.get("emotion")) for it in items for seg in it["segments"]} - set(WORDS)):
        raise BenchError(f"{bench}: segment emotion(s) {', '.join(bad)} not AffectNet-8 labels ({', '.join(WORDS)})")
    by_emotion: dict[str, list[dict]] = {}
    for it in items:
        for seg in it["segments"]:
            by_emotion.setdefault(seg["emotion"], []).append({**seg, "video": it["video"], "rationale": None,
                                                               "evidence_modalities": ["visual"]})
    out = bench.with_name("bench_salience.jsonl")
    lines = []
    for emotion, segs in sorted(by_emotion.items()):
        video = segs[0]["video"]
        lines.append({"id": f"{Path(video).stem}-{emotion}", "video": video, "form": "salience",
                      "query": f"when does someone look {WORDS[emotion]}?",
                      "moments": [{k: v for k, v in s.items() if k != "video"} for s in segs]})
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def _right(item: dict, start: float | None, end: float | None, label: str | None) -> tuple[float, float]:
    if start is None:
        return 0.0, 0.0
    mid = (start + end) / 2
    place = any(m["start_s"] <= mid < m["end_s"] for m in item["moments"])
    return float(place), float(place and label == item["moments"][0]["emotion"])


def reading_alone(bench: Path, item: dict, own_baseline: bool, cache_dir: Path | None) -> tuple[float, float, str]:
    """(start, end, emotion) of the 1 fps clip whose faces read the asked emotion highest (module doc)."""
    from graphs.pipeline import open_index

    index = open_index(bench.parent / item["video"], cache_dir=cache_dir)
    emotion = item["moments"][0]["emotion"]
    times = [fr.t for fr in index.faces]  # the index's frames are in time order

    def score(clip) -> float:
        lo, hi = bisect.bisect_left(times, clip.start_s), bisect.bisect_left(times, clip.end_s)
        faces = [f for fr in index.faces[lo:hi] for f in fr.faces]
        if not faces:
            return -1.0
        read = (index.salient_p(f, [emotion]) if own_baseline else f.expression.get(emotion, 0.0) for f in faces)
        return sum(read) / len(faces)

    best = max(index.clips, key=score)
    return best.start_s, best.end_s, emotion


def score(bench: Path, predictions: dict[str, Path], reading: bool, cache_dir: Path | None = None) -> dict:
    """Per method (run name -> its ``predictions.jsonl``): share of questions whose top moment is
    in an annotated segment ("place") and also names the asked emotion ("both"), each [value, low, high].

    Raises:
        BenchError: as ``evals.bench.read_records`` and ``prediction_runs``.
        tools.core.media.VideoError: with ``reading``, a bench video that cannot be read.
    """
    items = read_records(bench, ("id", "video", "moments"))
    runs: dict[str, list[tuple[float, float]]] = {}
    for name, preds in prediction_runs(predictions, items).items():
        tops = [((preds.get(it["id"]) or {}).get("moments") or [None])[0] for it in items]
        runs[name] = [_right(it, *((m["start_s"], m["end_s"], m["emotion"]) if m else (None, None, None)))
                      for it, m in zip(items, tops, strict=True)]
    if reading:
        for name, own in (("reading alone", False), ("reading alone, own baseline", True)):
            runs[name] = [_right(it, *reading_alone(bench, it, own, cache_dir)) for it in items]
    out = {"bench": str(bench), "items": len(items), "methods": {}}
    for name, rows in runs.items():
        out["methods"][name] = {key: [round(sum(v) / len(v), 3), *bootstrap_interval(v)]
                                for key, v in (("place", [r[0] for r in rows]), ("both", [r[1] for r in rows]))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m evals.salience", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write bench_salience.jsonl beside a long transitions bench")
    b.add_argument("--bench", type=Path, required=True)
    s = sub.add_parser("score", help="score predictions.jsonl files")
    s.add_argument("--bench", type=Path, required=True)
    s.add_argument("--predictions", nargs="+", required=True, metavar="NAME=FILE")
    s.add_argument("--reading", action="store_true", help="add the two readings alone")
    s.add_argument("--cache-dir", type=Path, default=None)
    s.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            print(f"wrote {build(args.bench)}")
            return 0
        result = score(args.bench, prediction_files(args.predictions), args.reading, args.cache_dir)
    except (OSError, ValueError, KeyError, TypeError) as e:  # BenchError and VideoError are ValueErrors
        print(f"error: {e}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
