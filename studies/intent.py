"""Reading the emotion a question asks about: the offline intent interpreter on labelled questions.

    python -m studies.intent [--split dev|test] [--json FILE]

Material: ``evals/data/questions.jsonl``, 96 vague questions about a video, 12 per AffectNet-8 emotion,
each labelled with the emotion it asks about ("when does she feel left out?" -> sadness), written before
the interpreter changes they were used to measure. They are split per emotion by a seeded shuffle
(``split``): 6 dev and 6 test questions of each emotion. The composed benches' query wording is read as
well (dev: ``evals.build_bench.TEMPLATES``; test: ``evals.composed.TEST_TEMPLATES``, 2 per emotion), since
those are the questions whose answers sections 4-5 of ``evals/RESULTS.md`` score.

Readings (``READINGS``): the shipped one, the question's emotion phrase (``tools.signals.lexicon.emotion_phrase``)
with the emotions its words name (``tools.signals.lexicon.named_emotions``, Open English WordNet); the phrase alone;
and the whole question, the first reading. Scores, per question set: **top-1** (the interpreter's first target
emotion is the label), **hit** (the label is among its targets, at most two) and **none** (it names no
emotion), overall and per emotion, with the misses (question, label, targets).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path

from evals.questions import QUESTIONS, split
from studies.command import report
from tools.core.schema import AFFECTNET8


def composed_wording(split_name: str) -> list[tuple[str, str]]:
    """(question, label) of the composed benches' query templates of ``split_name``
    (``evals.composed.query_templates``)."""
    from evals.composed import query_templates

    return [(q, emotion) for emotion, qs in query_templates(split_name).items() for q in qs]


def score(questions: list[tuple[str, str]], targets_of: Callable[[str], list[str]]) -> dict:
    """top-1, hit and none (module doc) of ``targets_of`` (question -> target emotions, most likely
    first) over ``questions``, with top-1 per emotion and the misses."""
    rows = [(q, label, targets_of(q)) for q, label in questions]

    def rates(subset: list) -> dict:
        n = len(subset)
        return {"n": n, "top1": round(sum(bool(t) and t[0] == lab for _, lab, t in subset) / n, 3),
                "hit": round(sum(lab in t for _, lab, t in subset) / n, 3),
                "none": round(sum(not t for _, _, t in subset) / n, 3)}

    return {**rates(rows),
            "per_emotion": {e: rates([r for r in rows if r[1] == e])["top1"] for e in AFFECTNET8
                            if any(r[1] == e for r in rows)},
            "misses": [{"query": q, "label": lab, "targets": t} for q, lab, t in rows if not t or t[0] != lab]}


#: The readings compared -> the arguments of ``agents.intent.asked_emotions``: the shipped one (the question's
#: emotion phrase with the emotion words it names), the phrase alone, and the whole question (the first reading).
READINGS = {"phrase_and_words": {}, "emotion_phrase": {"words": False}, "whole_question": {"whole_question": True}}


def read_sets(sets: dict[str, list[tuple[str, str]]], no_feeling: list[str] | tuple[str, ...],
              readings: dict[str, Callable[[str], list[str]]]) -> tuple[dict[str, dict], dict[str, dict[str, list[str]]]]:
    """Each reading (name -> question -> target emotions, most likely first) of the labelled question sets (name ->
    (question, AffectNet-8 label)) and of ``no_feeling`` (questions that name no feeling): per reading, the questions
    whose first target is the label, per set and ``all``, and ``no_feeling_kept_empty`` (the no-feeling questions given
    no emotion); and per reading each question's targets. Each question is read once per reading."""
    questions = [*dict.fromkeys(q for qs in sets.values() for q, _ in qs), *no_feeling]
    rows, targets = {}, {}
    for name, read in readings.items():
        targets[name] = found = {q: read(q) for q in dict.fromkeys(questions)}
        right = {s: sum(found[q][:1] == [lab] for q, lab in qs) for s, qs in sets.items()}
        rows[name] = {**right, "all": sum(right.values()),
                      "no_feeling_kept_empty": sum(not found[q] for q in no_feeling)}
    return rows, targets


def paired(now: list[bool], before: list[bool]) -> dict:
    """``{"mean", "ci95", "gained", "lost"}`` of two readings of the same questions (``now[i]``, ``before[i]``: question
    i right): the mean of ``now - before`` with its bootstrap 95 % interval over questions
    (``evals.metrics.bootstrap_interval``), rounded to 4 places, and the number of questions gained and lost.

    Raises:
        ValueError: the two lists differ in length or are empty.
    """
    from evals.metrics import bootstrap_interval

    diff = [float(a) - float(b) for a, b in zip(now, before, strict=True)]
    if not diff:
        raise ValueError("no questions to compare")
    return {"mean": round(sum(diff) / len(diff), 4), "ci95": [round(v, 4) for v in bootstrap_interval(diff)],
            "gained": diff.count(1.0), "lost": diff.count(-1.0)}


def evaluate(split_name: str) -> dict:
    """``score`` of each reading in ``READINGS`` of the offline interpreter (``agents.intent.asked_emotions``)
    on the split's questions and on the composed wording."""
    from agents.intent import asked_emotions

    out = {}
    for reading, arguments in READINGS.items():
        targets = functools.partial(asked_emotions, **arguments)
        out[reading] = {"questions": score(split(split_name), targets),
                        "composed_wording": score(composed_wording(split_name), targets)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.intent", description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev", help="questions to read (default dev)")
    ap.add_argument("--json", type=Path, default=None, help="write the scores here")
    args = ap.parse_args(argv)

    def run() -> dict:
        result = {"split": args.split, "material": str(QUESTIONS.name), **evaluate(args.split)}
        for reading in READINGS:
            for name in ("questions", "composed_wording"):
                r = result[reading][name]
                print(f"{reading:16s} {name:17s} n={r['n']} top1={r['top1']} hit={r['hit']} none={r['none']}",
                      file=sys.stderr)
        return result

    return report(run, args.json, indent=2)


if __name__ == "__main__":
    sys.exit(main())
