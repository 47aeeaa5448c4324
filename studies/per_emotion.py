"""Per-emotion R1@0.5 and empty answers of finished runs, as a Markdown table.

    python -m studies.per_emotion BENCH.jsonl runs/A [runs/B ...]

Reads each run's ``metrics.json`` (per-item top-1 tIoU) and ``predictions.jsonl``; an item's emotion
is that of its first ground-truth moment. Rows: AffectNet-8 emotions present in the bench, then all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evals.bench import BenchError, load_bench
from tools.core.schema import AFFECTNET8


def table(bench: str, runs: list[str]) -> str:
    """The Markdown table (R1@0.5 per emotion per run, n, and a row of empty answers).

    Raises:
        BenchError: the bench does not load.
        FileNotFoundError: a run lacks metrics.json or predictions.jsonl.
    """
    emotion = {it.id: it.moments[0].emotion for it in load_bench(bench)}
    cols, empty = [], []
    for run in runs:
        per = {r["id"]: r["tIoU_top1"] for r in json.loads((Path(run) / "metrics.json").read_text())["per_item"]}
        preds = [json.loads(x) for x in (Path(run) / "predictions.jsonl").read_text().splitlines() if x.strip()]
        cols.append(per)
        empty.append(sum(1 for p in preds if not p["moments"]))
    lines = ["| emotion | n | " + " | ".join(Path(r).name for r in runs) + " |", "|---|---|" + "---|" * len(runs)]
    for emo in [*[e for e in AFFECTNET8 if e in emotion.values()], "all"]:
        ids = [i for i, e in emotion.items() if emo in ("all", e)]
        vals = [sum(1 for i in ids if per.get(i, 0.0) >= 0.5) / len(ids) for per in cols]
        lines.append(f"| {emo} | {len(ids)} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
    lines.append("| empty answers | | " + " | ".join(str(n) for n in empty) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: python -m studies.per_emotion BENCH.jsonl RUN_DIR [RUN_DIR ...]", file=sys.stderr)
        return 2
    try:
        print(table(args[0], args[1:]))
    except (BenchError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
