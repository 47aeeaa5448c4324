"""The feeling-word questions read by the offline question reader: one half at a time.

    python -m studies.feeling_words dev|test [--file 1|2] [--json report.json]

The questions (``--file 1``, the default: ``evals.questions.WORDS``, ``evals/data/questions_words.jsonl``): 64
questions that name their feeling with one word or phrase ("when does she look crestfallen?", "when is he repelled?",
"when does it turn his stomach?"), eight per AffectNet-8 emotion, labelled by the emotion the word names, written
before the change they measure and split four and four per emotion by a seeded shuffle (``evals/data/SOURCES.md``);
eight of them, written anew, turned out to be asked in the same words by an earlier question file, and ``new_only``
counts the rest (``earlier_questions``). ``--file 2`` (``evals.questions.WORDS2``) reads a second file of 64 such
questions, written after the first file's read, none of which an earlier file asks. A question is read right when its
emotion is the first target of ``agents.intent.asked_emotions``. The reading before a change is this command run in
a checkout of the commit before it (``evals/RESULTS.md`` section 160: the word reader's doubled consonant before "-ed",
``tools.signals.word_forms.word_forms``).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from tools.core.schema import AFFECTNET8


def word_scores(half: str, path: Path | None = None) -> dict:
    """The shipped reader over ``half`` ("dev" or "test") of the feeling-word questions of ``path`` (default
    ``evals.questions.WORDS``): ``first_right`` of ``n``
    (the questions whose labelled emotion is the first target) with its bootstrap 95 % interval
    (``evals.metrics.bootstrap_interval`` over questions), the same per emotion (``per_emotion``: emotion ->
    [right, n]) and over the questions no earlier file asks (``new_only``: [right, n]), and each question's targets.

    Raises:
        ValueError: ``half`` is neither "dev" nor "test".
    """
    from evals.metrics import bootstrap_interval
    from evals.questions import WORDS, read_half

    path = path or WORDS
    read = read_half(half, "feeling_word", path)
    right = [found[:1] == [lab] for _, lab, found in read]
    earlier = earlier_questions(path)
    new = [r for (q, _, _), r in zip(read, right, strict=True) if q.lower() not in earlier]
    per_emotion = {e: [sum(r for (_, lab, _), r in zip(read, right, strict=True) if lab == e),
                       sum(lab == e for _, lab, _ in read)] for e in AFFECTNET8}
    return {"half": half, "first_right": sum(right), "n": len(read),
            "interval": [round(v, 3) for v in bootstrap_interval([float(r) for r in right])],
            "per_emotion": per_emotion,
            "new_only": [sum(new), len(new)],
            "questions": [{"question": q, "emotion": lab, "targets": found} for q, lab, found in read]}


#: Question files written after the two feeling-word files this study reads; the third feeling-word file repeats
#: three of their questions word for word (``evals/data/SOURCES.md``).
WRITTEN_LATER = frozenset({"questions_words3.jsonl"})


def earlier_questions(path: Path) -> set[str]:
    """The questions (lower case) of every other question file of ``path``'s folder but ``WRITTEN_LATER``, which a
    feeling-word file's questions were meant not to repeat."""
    from evals.questions import question_records

    return {r.get("query", "").lower() for other in sorted(path.parent.glob("questions*.jsonl"))
            if other != path and other.name not in WRITTEN_LATER for r in question_records(other)}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.feeling_words", description=__doc__.split("\n\n")[0])
    ap.add_argument("half", choices=("dev", "test"), help="which half of the feeling-word questions to read")
    ap.add_argument("--file", choices=("1", "2"), default="1",
                    help="the first feeling-word file (questions_words.jsonl) or the second (questions_words2.jsonl)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    from evals.questions import WORDS, WORDS2

    return report(functools.partial(word_scores, args.half, {"1": WORDS, "2": WORDS2}[args.file]), args.json)


if __name__ == "__main__":
    sys.exit(main())
