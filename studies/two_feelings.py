"""Questions that name two feelings ("when is she angry or disgusted?"): are both asked?

    python -m studies.two_feelings [--json evals/results/two_feelings.json]

``evals/data/questions_two_feelings.jsonl``: 32 questions, each joining two feeling words with "or" or "and", with the
two AffectNet-8 emotions they name; written before ``tools.signals.coordination`` existed, half development and half
test. Each question is read by the offline interpreter (``agents.intent.offline_intent``) without and with
``joined_emotions``; reported per split: questions whose targets hold both emotions, and whose first target is one of
them (``evals/RESULTS.md`` section 154).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from unittest import mock

from studies.command import report

QUESTIONS = Path(__file__).resolve().parents[1] / "evals" / "data" / "questions_two_feelings.jsonl"


def read(split: str, joined: bool) -> dict:
    """Each ``split`` question's targets, without (``joined`` False) or with the coordination reading."""
    from agents import intent

    rows = [r for r in map(json.loads, QUESTIONS.read_text().splitlines()) if r["split"] == split]
    with mock.patch.object(intent, "joined_emotions", intent.joined_emotions if joined else lambda q, s: []):
        targets = [intent.offline_intent({"query": r["query"]}).target_emotions for r in rows]
    questions = [{"query": r["query"], "emotions": r["emotions"], "targets": t, "both": set(r["emotions"]) <= set(t),
                  "first_named": bool(t) and t[0] in r["emotions"]} for r, t in zip(rows, targets, strict=True)]
    return {"both_asked": sum(q["both"] for q in questions), "first_named": sum(q["first_named"] for q in questions),
            "n": len(questions), "questions": questions}


def evaluate(splits: tuple[str, ...]) -> dict:
    """``read`` of each split of ``splits``, before and now, keyed "<split>/before" and "<split>/now"."""
    return {f"{split}/{name}": read(split, joined) for split in splits
            for name, joined in (("before", False), ("now", True))}


def main(argv: list[str] | None = None) -> int:
    """The command line (module doc); exit status 0, or 2 when the question file is missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("dev", "test", "both"), default="dev")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(("dev", "test") if args.split == "both" else (args.split,)), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
