"""Side-by-side results of runs: ``python -m evals.report runs/A runs/B ... [--out DIR]``.

Writes ``results.md`` and ``results.csv`` (one row per run), ``r1.png`` (R1@tIoU per method),
``confusion.png`` (emotion confusion matrix per run), ``cost.png`` (cost per item) and ``results.html``
(the table and the plots inlined) into ``--out`` (default: the first run's parent folder), and prints
the markdown table.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from tools.core.argtypes import CommandParser

COLUMNS = [
    ("run", None), ("method", None), ("items", None),
    ("R1@0.3", ("localization", "R1@0.3")), ("R1@0.5", ("localization", "R1@0.5")),
    ("R1@0.7", ("localization", "R1@0.7")), ("mIoU", ("localization", "mIoU")), ("mAP", ("localization", "mAP")),
    ("R5@0.5", ("localization", "R5@0.5")), ("Joint", ("localization", "Joint")), ("emo acc", ("emotion", "accuracy")),
    ("emo macro-F1", ("emotion", "macro_f1")), ("emo n", ("emotion", "n")),
    ("sim trace", ("rationale", "similarity_trace")), ("sim step", ("rationale", "similarity_step")),
    ("modality sim", ("rationale", "modality_similarity")), ("emo-word overlap", ("rationale", "emotion_word_overlap")),
    ("grounding", ("rationale", "grounding")), ("s/item", ("cost_per_item", "wall_s")),
    ("tool calls/item", ("cost_per_item", "tool_calls")), ("frames/item", ("cost_per_item", "frames")),
]


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def load_rows(runs: list[Path]) -> list[dict]:
    """One row per run directory with ``COLUMNS`` values.

    Raises:
        FileNotFoundError: a run has no metrics.json (not finished).
    """
    rows = []
    for run in runs:
        metrics = json.loads((run / "metrics.json").read_text())
        config = json.loads((run / "config.json").read_text())
        row = {"run": run.name, "method": config["method"], "items": metrics["n_items"]}
        for name, path in COLUMNS[3:]:
            row[name] = metrics[path[0]].get(path[1])  # None ("-") for a metric older runs lack
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    """The rows as a markdown table."""
    names = [c for c, _ in COLUMNS]
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in names) + " |" for r in rows]
    return "\n".join(lines)


def length_table(metrics: dict) -> str:
    """One run's Markdown table by ground-truth moment length (all, then QVHighlights' short <= 10 s,
    middle 10-30 s, long > 30 s): n, R1@{0.3,0.5,0.7}, mIoU, mAP, Joint and emotion Accuracy, in the run's
    label set (``metrics`` as ``evals.evaluate.evaluate`` returns it)."""
    keys = ("R1@0.3", "R1@0.5", "R1@0.7", "mIoU", "mAP", "Joint", "Accuracy")
    overall = {**metrics["localization"], "Accuracy": metrics["emotion"]["accuracy"], "n": metrics["n_items"]}
    rows = [("all", overall)] + [(name, metrics["by_moment_length"][name]) for name in ("short", "middle", "long")
                                 if name in metrics["by_moment_length"]]
    lines = [f"| moments ({metrics.get('labels', 'AffectNet-8')}) | n | " + " | ".join(keys) + " |",
             "|---|---|" + "---|" * len(keys)]
    lines += [f"| {name} | {row['n']} | " + " | ".join(_fmt(row.get(k)) for k in keys) + " |" for name, row in rows]
    return "\n".join(lines)


def plot_r1(rows: list[dict], path: Path) -> None:
    """Grouped bars of R1@0.3/0.5/0.7 per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    ths = ["R1@0.3", "R1@0.5", "R1@0.7"]
    x = np.arange(len(ths))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.8 / max(1, len(rows))
    for i, r in enumerate(rows):
        ax.bar(x + i * width, [r[t] or 0.0 for t in ths], width, label=r["run"])
    ax.set_xticks(x + width * (len(rows) - 1) / 2, ths)
    ax.set_ylim(0, 1)
    ax.set_ylabel("recall of the top-1 moment")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_confusion(runs: list[Path], path: Path) -> None:
    """One confusion matrix per run over the run's own label set (``metrics.json``'s ``emotion.labels``: AffectNet-8,
    VQAU-13, ...; rows: annotated, columns: predicted)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3.6), squeeze=False)
    for ax, run in zip(axes[0], runs, strict=True):
        emo = json.loads((run / "metrics.json").read_text())["emotion"]
        n = len(emo["labels"])
        cm = np.array(emo["confusion"] or np.zeros((n, n)))
        ax.imshow(cm, cmap="Blues")
        short = [label[:4] for label in emo["labels"]]
        ax.set_xticks(range(n), short, rotation=90, fontsize=7)
        ax.set_yticks(range(n), short, fontsize=7)
        for (i, j), v in np.ndenumerate(cm):
            if v:
                ax.text(j, i, str(int(v)), ha="center", va="center", fontsize=8)
        ax.set_title(run.name, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_cost(rows: list[dict], path: Path) -> None:
    """Seconds, tool calls and perception frames per item, per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(10, 3))
    for ax, key in zip(axes, ("s/item", "tool calls/item", "frames/item"), strict=True):
        ax.bar([r["run"] for r in rows], [r[key] or 0.0 for r in rows])
        ax.set_title(key, fontsize=9)
        ax.tick_params(axis="x", labelrotation=45, labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def html_page(table_md: str, images: list[Path], path: Path) -> None:
    """A self-contained HTML page: the table and the plots inlined as base64 PNGs."""
    import base64
    import html

    lines = [ln for ln in table_md.splitlines() if not ln.startswith("|---")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cells[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in cells[1:])
    imgs = "".join(f'<img alt="{p.stem}" src="data:image/png;base64,{base64.b64encode(p.read_bytes()).decode()}">'
                   for p in images)
    path.write_text(f"""<!doctype html><html><head><meta charset="utf-8"><title>affectseek results</title>
<style>body{{font:13px system-ui,sans-serif;margin:20px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 6px}}img{{display:block;margin:12px 0;max-width:100%}}</style></head>
<body><h1>Results</h1><table><tr>{head}</tr>{body}</table>{imgs}</body></html>""")


def main(argv: list[str] | None = None, prog: str = "python -m evals.report") -> int:
    """Write results.md/.csv/.html and the plots for ``runs``; returns the exit code (2: a run is missing)."""
    p = CommandParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="run folders of `affectseek eval` (--out)")
    p.add_argument("--out", type=Path,
                   help="folder for results.md/.csv/.html and the plots (default: the folder holding the first run)")
    args = p.parse_args(argv)
    try:
        rows = load_rows(args.runs)
    except FileNotFoundError as exc:
        print(f"error: {exc.filename}: missing (is the run finished?)", file=sys.stderr)
        return 2
    out = args.out or args.runs[0].resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    table = markdown(rows)
    (out / "results.md").write_text(table + "\n")
    with (out / "results.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[c for c, _ in COLUMNS])
        w.writeheader()
        w.writerows(rows)
    plot_r1(rows, out / "r1.png")
    plot_confusion(args.runs, out / "confusion.png")
    plot_cost(rows, out / "cost.png")
    html_page(table, [out / "r1.png", out / "confusion.png", out / "cost.png"], out / "results.html")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
