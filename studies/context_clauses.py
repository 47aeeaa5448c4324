"""Questions whose feeling sits in a main clause beside a clause that sets the context, read by the offline question
reader: "when does she look hurt after he mentions her ex?" asks whether she looks hurt.

    python -m studies.context_clauses [--file F] [--split S] [--before before.json] [--json report.json]

Reads the ``--split`` questions (default "test") of ``--file`` (default ``evals/data/questions_context.jsonl``: 48
questions about a feeling, six per AffectNet-8 label, and 12 about a behaviour beside someone's feeling, labelled
``null``; written before the change they measure, ``evals/data/SOURCES.md``) as the offline reasoner reads a question
(``agents.intent.offline_intent``) and scores each as ``studies.question_readings.right`` does: the labelled emotion
first, or, for a ``null`` label, no feeling asked. Reports right of n with a bootstrap 95 % interval
(``evals.metrics.bootstrap_interval`` over questions), per label, and each question's reading. With ``--before`` (this
command's report from a checkout of the code before a change, on the same questions) it adds the paired difference's
interval and the questions gained and lost.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path

#: The held-out questions of this form.
CONTEXT = Path(__file__).parents[1] / "evals" / "data" / "questions_context.jsonl"


def context_readings(path: Path = CONTEXT, split: str = "test", before: dict | None = None) -> dict:
    """The reading of ``split``'s questions of ``path`` (module doc): ``right``, ``n``, ``interval``, ``per_label``
    (label or "none" -> [right, n]) and ``questions`` (each: question, label, targets, right); with ``before`` (such a
    report) also ``before_right``, ``paired_interval``, ``gained`` and ``lost``.

    Raises:
        ValueError: ``path`` has no question of ``split``, or ``before`` read other questions.
    """
    from agents.intent import offline_intent
    from evals.questions import question_records
    from studies.question_readings import right

    records = [r for r in question_records(path) if r.get("split") == split]
    if not records:
        raise ValueError(f"{path.name} has no '{split}' questions")
    rows = []
    for r in records:
        targets = list(offline_intent({"query": r["query"]}).target_emotions)
        rows.append({"question": r["query"], "label": r["emotion"], "targets": targets, "right": right(targets, r)})
    return {"file": path.name, "split": split,
            **read_against(rows, before, "per_label", lambda q: q["label"] or "none")}


def read_against(rows: list[dict], before: dict | None, by: str, group: Callable[[dict], str]) -> dict:
    """The report of a question study's ``rows`` (each: ``question``, ``right``): ``right``, ``n``, ``interval`` (a
    bootstrap 95 % interval over questions, ``evals.metrics.bootstrap_interval``), ``by`` (``group`` of a row -> [right,
    n]) and ``questions``; with ``before`` (such a report of the code before) also ``before_right``,
    ``paired_interval``, ``gained`` and ``lost``. Shared by ``studies.context_clauses`` and ``studies.cessation``.

    Raises:
        ValueError: ``before`` read other questions.
    """
    from evals.metrics import bootstrap_interval

    scores = [float(q["right"]) for q in rows]
    groups: dict[str, list[int]] = {}
    for q in rows:
        cell = groups.setdefault(group(q), [0, 0])
        cell[0] += q["right"]
        cell[1] += 1
    out = {"right": int(sum(scores)), "n": len(rows), "interval": [round(v, 3) for v in bootstrap_interval(scores)],
           by: groups, "questions": rows}
    if before is not None:
        old = {q["question"]: q["right"] for q in before["questions"]}
        if set(old) != {q["question"] for q in rows}:
            raise ValueError("the report given as before read other questions")
        out["before_right"] = sum(old.values())
        out["paired_interval"] = [round(v, 3) for v in bootstrap_interval(
            [q["right"] - old[q["question"]] for q in rows])]
        out["gained"] = [q["question"] for q in rows if q["right"] and not old[q["question"]]]
        out["lost"] = [q["question"] for q in rows if old[q["question"]] and not q["right"]]
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.context_clauses", description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, default=CONTEXT, help="a question file (default: questions_context.jsonl)")
    ap.add_argument("--split", default="test", help="the split of its questions to read (default: test)")
    ap.add_argument("--before", type=Path, help="this command's report from the code before a change")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    return report(functools.partial(context_readings, args.file, args.split, before), args.json,
                  errors=(FileNotFoundError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
