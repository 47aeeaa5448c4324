"""Questions about a feeling ending, read by the offline question reader: "when does he stop smiling?" asks for the
change from his smile to whatever follows, not for his smile.

    python -m studies.cessation dev|test [--before before.json] [--json report.json]

The questions: ``evals/data/questions_cessation.jsonl`` (``evals/data/SOURCES.md``), split ``dev`` (24, written to
develop the reading) and ``test`` (52, written before the change they measure by a writer who saw neither the reader's
code nor the earlier question files). A question with ``"change": true`` asks when the feeling ``before`` ends (and,
where ``after`` is given, gives way to that one): it is read right when the reading is a change of feeling
(``agents.schema.Intent.change``) whose first feeling before is ``before`` and, where ``after`` is given, whose first
feeling after is ``after``. A control (``"change": false``: a feeling that goes on, "when can't she stop laughing?", or
an action that stops, "when does he stop talking?") is read right when it is no change and its first target is its
``emotion`` (none for ``null``). Each question is read by ``agents.intent.offline_intent``. Reports right of n with a
bootstrap 95 % interval (``evals.metrics.bootstrap_interval`` over questions), the two kinds apart, and each question's
reading; with ``--before`` (this command's report from a checkout of the code before a change) the paired difference's
interval and the questions gained and lost.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

#: The questions of this form, both splits.
CESSATION = Path(__file__).parents[1] / "evals" / "data" / "questions_cessation.jsonl"


def read_right(record: dict, reading: dict) -> bool:
    """Whether ``reading`` (``targets``, and ``before`` and ``after`` of a change or None) reads ``record`` right (the
    module doc's rule)."""
    if record["change"]:
        return (reading["before"] is not None and reading["before"][:1] == [record["before"]]
                and (record["after"] is None or reading["after"][:1] == [record["after"]]))
    if reading["before"] is not None:
        return False
    return reading["targets"][:1] == [record["emotion"]] if record["emotion"] else not reading["targets"]


def cessation_readings(split: str, before: dict | None = None, path: Path = CESSATION) -> dict:
    """The reading of ``split``'s questions (module doc): ``right``, ``n``, ``interval``, ``kinds`` ("ending" and
    "control" -> [right, n]) and ``questions`` (each: question, label, reading, right); with ``before`` (such a report
    of the same questions) also ``before_right``, ``paired_interval``, ``gained`` and ``lost``.

    Raises:
        ValueError: ``path`` has no question of ``split``, or ``before`` read other questions.
    """
    from agents.intent import offline_intent
    from evals.questions import question_records
    from studies.context_clauses import read_against

    records = [r for r in question_records(path) if r.get("split") == split]
    if not records:
        raise ValueError(f"{path.name} has no '{split}' questions")
    rows = []
    for r in records:
        intent = offline_intent({"query": r["query"]})
        change = intent.change
        reading = {"targets": list(intent.target_emotions), "before": None if change is None else list(change.before),
                   "after": None if change is None else list(change.after)}
        rows.append({"question": r["query"], "label": {k: r[k] for k in ("change", "before", "after", "emotion")},
                     "reading": reading, "right": read_right(r, reading)})
    out = read_against(rows, before, "kinds", lambda q: "ending" if q["label"]["change"] else "control")
    return {"split": split, **out}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.cessation", description=__doc__.split("\n\n")[0])
    ap.add_argument("split", choices=("dev", "test"), help="dev: the questions written to develop the reading; test: "
                                                          "the held-out ones, read once")
    ap.add_argument("--before", type=Path, help="this command's report from the code before a change")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    return report(functools.partial(cessation_readings, args.split, before), args.json,
                  errors=(FileNotFoundError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
