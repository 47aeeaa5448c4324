"""Questions that ask for the first or the last time a feeling shows, on benches whose questions have several labelled
moments: is the top moment the earliest (or latest) of them?

    python -m studies.moment_order build --bench B/bench.jsonl --out B/bench_order.jsonl
    python -m evals.run --bench B/bench_order.jsonl --method graph --out R     # once with the code before, once now
    python -m studies.moment_order compare --bench B/bench_order.jsonl --before R0 --after R1 [--json OUT]

``build`` keeps each question of a bench whose labelled moments make two or more episodes (moments that meet, within
0.05 s, are one episode) and asks it twice: "... for the first time?" with the earliest episode as its one labelled
moment, and "... for the last time?" with the latest. ``compare`` scores two runs of ``evals.run`` on such a bench,
question by question: R1@0.5 (the top moment's tIoU with the labelled episode at least 0.5) and Joint (that, and the
top moment's emotion is the label), each with a bootstrap 95 % interval over videos (``evals.metrics.
bootstrap_interval``), the paired difference's interval and the questions gained and lost.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

#: Labelled moments closer than this (seconds) are one episode.
MEET_S = 0.05


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def episodes(moments: list[dict]) -> list[dict]:
    """``moments`` (bench records: ``start_s``, ``end_s`` in seconds, ``emotion``) in time order, those that meet
    (within ``MEET_S``) joined into one."""
    out: list[dict] = []
    for m in sorted(moments, key=lambda m: m["start_s"]):
        if out and abs(m["start_s"] - out[-1]["end_s"]) < MEET_S:
            out[-1] = {**out[-1], "end_s": m["end_s"]}
        else:
            out.append(dict(m))
    return out


def order_questions(records: list[dict]) -> list[dict]:
    """The first- and last-time questions of a bench's ``records`` (module doc)."""
    out = []
    for r in records:
        eps = episodes(r["moments"])
        if len(eps) < 2:
            continue
        q = r["query"].rstrip(" ?")
        out.append({**r, "id": f"{r['id']}-first", "query": f"{q} for the first time?", "moments": [eps[0]]})
        out.append({**r, "id": f"{r['id']}-last", "query": f"{q} for the last time?", "moments": [eps[-1]]})
    return out


def _scores(bench: list[dict], run: Path) -> dict[str, tuple[int, int]]:
    """Per question id: (R1@0.5 hit, Joint hit) of the run's top moment."""
    from tools.core.schema import temporal_iou

    predicted = {r["id"]: r["moments"] for r in _records(run / "predictions.jsonl")}
    out = {}
    for r in bench:
        label, top = r["moments"][0], (predicted.get(r["id"]) or [None])[0]
        hit = top is not None and temporal_iou((top["start_s"], top["end_s"]), (label["start_s"], label["end_s"])) >= 0.5
        out[r["id"]] = (int(hit), int(hit and top["emotion"] == label["emotion"]))
    return out


def compare(bench_path: Path, before: Path, after: Path) -> dict:
    """R1@0.5 and Joint of the runs ``before`` and ``after`` (``evals.run --out`` folders) on ``bench_path`` (module
    doc).

    Raises:
        FileNotFoundError: a run has no ``predictions.jsonl``.
    """
    from evals.metrics import bootstrap_interval

    bench = _records(bench_path)
    a, b = _scores(bench, before), _scores(bench, after)
    videos = [r["video"] for r in bench]
    out: dict = {"bench": str(bench_path), "n": len(bench), "videos": len(set(videos))}
    for i, name in enumerate(("R1@0.5", "Joint")):
        x, y = [a[r["id"]][i] for r in bench], [b[r["id"]][i] for r in bench]

        def interval(values: list[float]) -> list[float]:
            return [round(v, 3) for v in bootstrap_interval(values, videos)]

        out[name] = {"before": round(sum(x) / len(x), 3), "before_95": interval(x), "now": round(sum(y) / len(y), 3),
                     "now_95": interval(y), "paired_95": interval([q - p for p, q in zip(x, y, strict=True)]),
                     "gained": [r["id"] for r, p, q in zip(bench, x, y, strict=True) if q > p],
                     "lost": [r["id"] for r, p, q in zip(bench, x, y, strict=True) if q < p]}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.moment_order", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write the first- and last-time questions of a bench")
    b.add_argument("--bench", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare", help="score two runs on such a bench")
    c.add_argument("--bench", type=Path, required=True)
    c.add_argument("--before", type=Path, required=True)
    c.add_argument("--after", type=Path, required=True)
    c.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "build":
        rows = order_questions(_records(args.bench))
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} questions -> {args.out}")
        return 0
    return report(functools.partial(compare, args.bench, args.before, args.after), args.json)


if __name__ == "__main__":
    sys.exit(main())
