"""A viewer's memory read by the offline question reader, with and without the feeling it states.

    python -m studies.memory_form dev|test [--json report.json]

VQAU-Bench asks in a viewer's memory of a moment, which ends with how the moment felt ("I kinda remember a boy
packing up his late dad's tools, felt so bereft"). ``dev``: every memory-form question
(``tools.signals.lexicon.memory_form``) of the other development question files, as ``studies.question_readings``
gathers them (121). ``test``: the questions of ``evals/data/questions_memory.jsonl`` (48, six per AffectNet-8 emotion,
written before the change they measure; ``evals/data/SOURCES.md``), read once when the change was done (development
data since). Each question is read twice by ``agents.intent.asked_emotions``: before, the whole memory alone
(``stated=False``: the shipped reading until ``evals/RESULTS.md`` section 175), and now, the mean of the whole
memory's and the stated feeling's scores (``tools.signals.memory_words.stated_feeling``). A question is
read right when its labelled emotion is the first target. Intervals: ``evals.metrics.bootstrap_interval`` over
questions, the difference paired. "Before" differs from the code before in one place: a memory that names a behaviour
or speech is also read without those words by the shipped scorer (``agents.intent.chosen_emotions``); on these 169
memories that gives the code before's targets for every one.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from tools.core.schema import AFFECTNET8

#: The held-out memory-form questions (``test``).
MEMORY = Path(__file__).parents[1] / "evals" / "data" / "questions_memory.jsonl"


def memory_questions(split: str) -> list[tuple[str, str]]:
    """(question, labelled emotion) of ``split``: "dev" every memory-form question of the development files but
    ``MEMORY``, "test" the test questions of ``MEMORY``.

    Raises:
        ValueError: ``split`` is neither "dev" nor "test".
    """
    from evals.questions import question_records
    from studies.question_readings import labelled_questions
    from tools.signals.lexicon import memory_form

    if split == "dev":
        return [(q, r["emotion"]) for name, q, r in labelled_questions()
                if name != MEMORY.name and memory_form(q) and r.get("emotion")]
    if split == "test":
        return [(r["query"], r["emotion"]) for r in question_records(MEMORY) if r.get("split") == "test"]
    raise ValueError(f"split {split!r}: expected 'dev' or 'test'")


def memory_readings(split: str) -> dict:
    """Top-1 before and now over ``split``'s questions (``memory_questions``): right of n with a bootstrap 95 %
    interval each, the paired difference's interval, gained and lost questions, right per emotion (emotion ->
    [before, now, n]) and each question's targets both ways."""
    from agents.intent import asked_emotions
    from evals.metrics import bootstrap_interval

    rows = memory_questions(split)
    read = [(q, lab, asked_emotions(q, stated=False), asked_emotions(q)) for q, lab in rows]
    before = [float(b[:1] == [lab]) for _, lab, b, _ in read]
    now = [float(a[:1] == [lab]) for _, lab, _, a in read]

    def interval(values: list[float]) -> list[float]:
        return [round(v, 3) for v in bootstrap_interval(values)]

    return {"split": split, "n": len(read), "before": int(sum(before)), "now": int(sum(now)),
            "before_interval": interval(before), "now_interval": interval(now),
            "paired_interval": interval([a - b for a, b in zip(now, before, strict=True)]),
            "gained": [q for (q, *_), a, b in zip(read, now, before, strict=True) if a > b],
            "lost": [q for (q, *_), a, b in zip(read, now, before, strict=True) if a < b],
            "per_emotion": {e: [int(sum(b for (_, lab, *_), b in zip(read, before, strict=True) if lab == e)),
                                int(sum(a for (_, lab, *_), a in zip(read, now, strict=True) if lab == e)),
                                sum(lab == e for _, lab, *_ in read)] for e in AFFECTNET8},
            "questions": [{"question": q, "emotion": lab, "before": b, "now": a} for q, lab, b, a in read]}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.memory_form", description=__doc__.split("\n\n")[0])
    ap.add_argument("split", choices=("dev", "test"),
                    help="dev: the development files' memory-form questions; test: questions_memory.jsonl, read once")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    return report(functools.partial(memory_readings, args.split), args.json)


if __name__ == "__main__":
    sys.exit(main())
