"""Open feeling questions on a joined bench: "how does someone feel?" asked of every video, each labelled clip a
right answer when the moment lands on it and names its label.

    python -m studies.open_questions build --bench B/bench.jsonl --out B/open.jsonl
    python -m evals.run --bench B/open.jsonl --method graph --out R
    python -m studies.open_questions labels --run R [--run R2 ...] [--json OUT]

``build`` writes, for each video of a joined bench (``evals.build_bench``: labelled clips one after another), one
question per wording of ``WORDINGS`` whose ground truth is every labelled clip of the video: R1@0.5 and Joint
(``evals.metrics``) then say whether the top moment lands on a clip and names that clip's label, mAP and R5@0.5 how
many of the answer's moments do. A question that asks which feeling someone shows names none, so the answer should
show the feelings the video holds, each read right (``evals/RESULTS.md`` section 145). ``labels`` counts the labels
of each run's top moments and the moments of its answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from tools.core.argtypes import CommandParser

#: The open wordings asked of every video, written before the change of section 145.
WORDINGS = ("how does someone feel?", "what emotions do the people show?", "how are they feeling?")


def build(bench: Path, out: Path) -> int:
    """Write the open questions of ``bench``'s videos to ``out`` (bench JSONL); returns how many.

    Raises:
        evals.bench.BenchError: ``bench`` is missing or not JSON Lines, or a line lacks ``video`` or ``moments``.
        OSError: ``out`` cannot be written.
    """
    from evals.bench import read_records

    clips: dict[str, list[dict]] = {}
    for item in read_records(bench, needs=("video", "moments")):
        clips.setdefault(item["video"], []).extend(item["moments"])
    lines = [{"id": f"{Path(video).stem}-open{k}", "video": video, "query": wording,
              "moments": sorted(moments, key=lambda m: m["start_s"])}
             for video, moments in sorted(clips.items()) for k, wording in enumerate(WORDINGS)]
    out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def labels(run: Path) -> dict:
    """The labels of a run's top moments (``{label: count}``), and its answers' moments in all and per question.

    Raises:
        evals.bench.BenchError: ``run``'s ``predictions.jsonl`` is missing or not JSON Lines, or a line lacks
            ``moments``.
    """
    from evals.bench import read_records

    rows = read_records(run / "predictions.jsonl", needs=("moments",))
    moments = sum(len(r["moments"]) for r in rows)
    return {"questions": len(rows), "top_labels": dict(Counter(r["moments"][0]["emotion"] for r in rows
                                                              if r["moments"]).most_common()),
            "moments": moments, "moments_per_question": round(moments / max(len(rows), 1), 2)}


def main(argv: list[str] | None = None) -> int:
    ap = CommandParser(prog="python -m studies.open_questions", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="the open questions of a joined bench's videos")
    b.add_argument("--bench", type=Path, required=True)
    b.add_argument("--out", type=Path, required=True)
    lab = sub.add_parser("labels", help="the labels of each run's top moments")
    lab.add_argument("--run", type=Path, action="append", required=True)
    lab.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        print(_run(args))
    except (OSError, KeyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _run(args: argparse.Namespace) -> str:
    """One command's work (``main``), its report as text; ``labels --json`` also writes it there."""
    if args.cmd == "build":
        return f"wrote {build(args.bench, args.out)} questions to {args.out}"
    text = json.dumps({str(run): labels(run) for run in args.run}, indent=1)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return text

if __name__ == "__main__":
    sys.exit(main())
