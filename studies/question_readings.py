"""Every development question the project has labelled, read by the shipped question reader: one figure to check a
change of the reader against, and each question's reading to compare.

    python -m studies.question_readings [--json report.json] [--compare before.json]

The questions: every committed question file of ``evals/data`` (``questions*.jsonl``) but the halves still held out
(``HELD_OUT``), each read as the offline reasoner reads a question (``agents.intent.offline_intent``: emoji, other
languages, change questions), without the words that name a part of the video (``tools.signals.time_words``), as
``agents.intent.interpret_intent`` reads it. A question is read right when the reader's first target emotion is its
labelled emotion; a question labelled with no feeling (``"emotion": null``: behaviour and open questions) when it asks
none; a question labelled with two feelings (``"emotions"``) when it asks exactly those. Negated questions (their label
is the feeling denied, not asked) and keyword queries (no label) are left out; ``studies.negation`` reads the first.
``--compare`` lists the questions whose reading differs from a stored report's, gained and lost first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tools.core.schema import AFFECTNET8

#: (file, split) halves not yet read as a test: left out of the development figures. A half read once is a
#: development set from then on (the test-reads table of evals/RESULTS.md) and is read here with the rest.
HELD_OUT = {("questions_words2.jsonl", "test")}
#: Forms whose label is not the feeling asked (``studies.negation``), that carry none, or that label a change of
#: feeling by its two sides (``studies.cessation``).
UNSCORED_FORMS = {"negated", "negated_or", "keywords", "cessation"}


def labelled_questions(folder: Path | None = None) -> list[tuple[str, str, dict]]:
    """(file name, question, record) of every development question with a label this study scores, in file order.

    Raises:
        FileNotFoundError: ``folder`` (default ``evals/data``) holds no question file.
    """
    from evals.questions import QUESTIONS, question_records

    files = sorted((folder or QUESTIONS.parent).glob("questions*.jsonl"))
    if not files:
        raise FileNotFoundError(f"{folder}: no questions*.jsonl files")
    out = []
    for path in files:
        for record in question_records(path):
            if (path.name, record.get("split")) in HELD_OUT or record.get("form") in UNSCORED_FORMS:
                continue
            if "emotions" in record or record.get("emotion", "") is None or record.get("emotion") in AFFECTNET8:
                out.append((path.name, record["query"], record))
    return out


def right(targets: list[str], record: dict) -> bool:
    """Whether ``targets`` (the reader's, best first) read ``record``'s label right (the module doc's rule)."""
    if "emotions" in record:
        return set(targets) == set(record["emotions"])
    if record["emotion"] is None:
        return not targets
    return targets[:1] == [record["emotion"]]


def readings(folder: Path | None = None) -> dict:
    """The shipped reader over ``labelled_questions``: ``right`` of ``n`` over all and per file (``files``: name ->
    [right, n]), and each question's reading (``questions``: "file|question" -> [targets, right])."""
    from agents.intent import offline_intent
    from tools.signals.time_words import asked_window, without_window

    questions, files = {}, {}
    for name, query, record in labelled_questions(folder):
        plain = without_window(query, asked_window(query))  # as the graph reads it: the part of the video named apart
        targets = list(offline_intent({"query": plain}).target_emotions)
        ok = right(targets, record)
        questions[f"{name}|{query}"] = [targets, ok]  # a question a file asks twice is listed once, counted twice
        files.setdefault(name, [0, 0])
        files[name][0] += ok
        files[name][1] += 1
    return {"right": sum(r for r, _ in files.values()), "n": sum(n for _, n in files.values()), "files": files,
            "questions": questions}


def compared(now: dict, before: dict) -> dict:
    """The questions both reports read whose reading differs: ``gained`` and ``lost`` (now right / no longer right)
    and ``changed`` (another reading, as right or wrong as before), each "file|question" -> [before, now] targets."""
    out: dict[str, dict] = {"gained": {}, "lost": {}, "changed": {}}
    for key, (targets, ok) in now["questions"].items():
        if key in before["questions"] and before["questions"][key][0] != targets:
            old, was = before["questions"][key]
            out["gained" if ok and not was else "lost" if was and not ok else "changed"][key] = [old, targets]
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.question_readings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--compare", type=Path, help="a stored report of this command: list the readings that differ")
    args = ap.parse_args(argv)

    def compute() -> dict:
        now = readings()
        if args.compare is None:
            return now
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        return {"right": [before["right"], now["right"]], "n": [before["n"], now["n"]], **compared(now, before)}

    return report(compute, args.json)


if __name__ == "__main__":
    sys.exit(main())
