"""Questions that ask for the first or the last time a feeling shows, on benches whose questions have several labelled
moments: is the top moment the earliest (or latest) of them?

    python -m studies.moment_order build --bench B/bench.jsonl --out B/bench_order.jsonl
    python -m evals.run --bench B/bench_order.jsonl --method graph --out R     # once with the code before, once now
    python -m studies.moment_order compare B/bench_order.jsonl R0 R1 [B2/bench_order.jsonl R2 R3 ...] [--json OUT]

``build`` keeps each question of a bench whose labelled moments make two or more episodes (moments that meet, within
0.05 s, are one episode) and asks it twice: "... for the first time?" with the earliest episode as its one labelled
moment, and "... for the last time?" with the latest. ``compare`` scores two runs of ``evals.run`` (the code before
and now) on each such bench given, question by question: R1@0.5 (the top moment's tIoU with the labelled episode at
least 0.5) and Joint (that, and the top moment's emotion is the label), each with a bootstrap 95 % interval over
videos (``evals.metrics.bootstrap_interval``), the paired difference's interval and the questions gained and lost;
with several benches, also all their questions pooled (videos told apart by bench).
"""

from __future__ import annotations

import sys
from pathlib import Path

from evals.questions import question_records

#: Labelled moments closer than this (seconds) are one episode.
MEET_S = 0.05


def episodes(moments: list[dict]) -> list[dict]:
    """``moments`` (bench records: ``start_s``, ``end_s`` in seconds, ``emotion``) in time order, those that meet
    (within ``MEET_S``) joined into one."""
    out: list[dict] = []
    for m in sorted(moments, key=lambda m: m["start_s"]):
        if out and m["start_s"] <= out[-1]["end_s"] + MEET_S:  # meets or overlaps the episode before
            out[-1] = {**out[-1], "end_s": max(out[-1]["end_s"], m["end_s"])}
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

    predicted = {r["id"]: r["moments"] for r in question_records(run / "predictions.jsonl")}
    out = {}
    for r in bench:
        label, top = r["moments"][0], (predicted.get(r["id"]) or [None])[0]
        hit = top is not None and temporal_iou((top["start_s"], top["end_s"]), (label["start_s"], label["end_s"])) >= 0.5
        out[r["id"]] = (int(hit), int(hit and top["emotion"] == label["emotion"]))
    return out


def _rates(x: list[int], y: list[int], groups: list[str], ids: list[str]) -> dict:
    """Shares before (``x``) and now (``y``) with intervals over ``groups``, the paired interval
    (``studies.command.paired_shares``), the counts right, gained and lost."""
    from studies.command import paired_shares

    return {**paired_shares(x, y, groups), "right": [sum(x), sum(y)],
            "gained": [i for i, p, q in zip(ids, x, y, strict=True) if q > p],
            "lost": [i for i, p, q in zip(ids, x, y, strict=True) if q < p]}


def compare(runs: list[tuple[Path, Path, Path]]) -> dict:
    """R1@0.5 and Joint of the runs before and after (``evals.run --out`` folders) on each bench of ``runs`` ((bench,
    before, after) each; module doc), and over all of them pooled when there are several.

    Raises:
        FileNotFoundError: a run has no ``predictions.jsonl``.
    """
    benches, pooled = [], {"ids": [], "videos": [], "x": ([], []), "y": ([], [])}
    for bench_path, before, after in runs:
        bench = question_records(bench_path)
        a, b = _scores(bench, before), _scores(bench, after)
        ids, videos = [r["id"] for r in bench], [r["video"] for r in bench]
        row: dict = {"bench": str(bench_path), "n": len(bench), "videos": len(set(videos))}
        for i, name in enumerate(("R1@0.5", "Joint")):
            x, y = [a[k][i] for k in ids], [b[k][i] for k in ids]
            row[name] = _rates(x, y, videos, ids)
            pooled["x"][i].extend(x)
            pooled["y"][i].extend(y)
        pooled["ids"].extend(f"{bench_path}|{k}" for k in ids)
        pooled["videos"].extend(f"{bench_path}|{v}" for v in videos)
        benches.append(row)
    out: dict = {"benches": benches}
    if len(benches) > 1:
        out["pooled"] = {"n": len(pooled["ids"]), "videos": len(set(pooled["videos"])),
                         **{name: {k: v for k, v in _rates(pooled["x"][i], pooled["y"][i], pooled["videos"],
                                                           pooled["ids"]).items() if k not in ("gained", "lost")}
                            for i, name in enumerate(("R1@0.5", "Joint"))}}
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import bench_questions_command

    return bench_questions_command(argv, "python -m studies.moment_order", __doc__, "first- and last-time questions",
                                   lambda bench: order_questions(question_records(bench)), compare)


if __name__ == "__main__":
    sys.exit(main())
