"""Per-emotion R1@0.5 and Joint of finished runs, and the emotion each top moment names, as a Markdown table.

    python -m studies.per_emotion BENCH.jsonl runs/A [runs/B ...] [--json FILE]

Reads each run's ``metrics.json`` (per-item top-1 tIoU) and ``predictions.jsonl``; an item's emotion
is that of its first ground-truth moment (every moment of an item of the joined benches has the same emotion). Rows: AffectNet-8 emotions present in the bench, then all; each cell
"R1@0.5 / Joint" (Joint: the top moment at tIoU >= 0.5 and naming the item's emotion). ``--json`` also writes, per
run, the emotions the top moments name for each asked emotion (``named``: the confusions of the answer's label, the
place aside) and the count of empty answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from evals.bench import BenchError, load_bench
from tools.core.schema import AFFECTNET8


def scores(bench: str, runs: list[str]) -> dict:
    """``{run: {"by_emotion": {emotion or "all": {"n", "R1@0.5", "Joint"}}, "named": {asked: {named: count}},
    "empty": count}}``.

    Raises:
        BenchError: the bench does not load.
        FileNotFoundError: a run lacks metrics.json or predictions.jsonl.
    """
    emotion = {it.id: it.moments[0].emotion for it in load_bench(bench)}
    out = {}
    for run in runs:
        per = {r["id"]: r["tIoU_top1"] for r in json.loads((Path(run) / "metrics.json").read_text())["per_item"]}
        preds = [json.loads(x) for x in (Path(run) / "predictions.jsonl").read_text().splitlines() if x.strip()]
        named = {p["id"]: (p["moments"][0]["emotion"] if p["moments"] else None) for p in preds}
        rows = {}
        for emo in [*[e for e in AFFECTNET8 if e in emotion.values()], "all"]:
            ids = [i for i, e in emotion.items() if emo in ("all", e)]
            hit = [i for i in ids if per.get(i, 0.0) >= 0.5]
            rows[emo] = {"n": len(ids), "R1@0.5": round(len(hit) / len(ids), 3),
                         "Joint": round(sum(1 for i in hit if named.get(i) == emotion[i]) / len(ids), 3)}
        confusions = {e: dict(Counter(str(named.get(i)) for i, a in emotion.items() if a == e).most_common())
                      for e in AFFECTNET8 if e in emotion.values()}
        name = Path(run).name if Path(run).name not in out else str(run)  # two runs of one folder name stay apart
        out[name] = {"by_emotion": rows, "named": confusions,
                               "empty": sum(1 for p in preds if not p["moments"])}
    return out


def table(got: dict) -> str:
    """The Markdown table of a ``scores`` result (R1@0.5 / Joint per emotion per run, n, and a row of empty answers)."""
    names = list(got)
    first = got[names[0]]["by_emotion"]
    lines = ["| emotion | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for emo in first:
        cells = [f"{got[r]['by_emotion'][emo]['R1@0.5']:.3f} / {got[r]['by_emotion'][emo]['Joint']:.3f}" for r in names]
        lines.append(f"| {emo} | {first[emo]['n']} | " + " | ".join(cells) + " |")
    lines.append("| empty answers | | " + " | ".join(str(got[r]["empty"]) for r in names) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.per_emotion", description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--json", type=Path, default=None, help="write the scores here")
    args = ap.parse_args(argv)
    try:
        got = scores(args.bench, args.runs)
        print(table(got))
        if args.json:
            args.json.write_text(json.dumps(got, indent=1) + "\n")
    except (BenchError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
