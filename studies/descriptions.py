"""The neutral label's descriptions in the offline question reader: their trial on the development questions and
their read on the fifth held-out file.

    python -m studies.descriptions --trial [--json report.json]
    python -m studies.descriptions --heldout [--json report.json]

The question reader scores a question's emotion phrase by its cosine similarity to each AffectNet-8 label's
descriptions (``tools.signals.lexicon.EMOTION_DESCRIPTIONS``, best phrase). Until section 101 of ``evals/RESULTS.md``
neutral had three, all of a calm face or even speech, and the development questions' commonest misses were neutral
ones that say so otherwise: an unmoved face ("deadpan", "indifferent", "unfazed") or an ordinary scene ("business as
usual", "nothing special"). Neutral now has two more phrases, written from those misses: "impassive, expressionless,
unemotional, deadpan, indifferent" and "ordinary, routine, nothing special, business as usual". Two readings are
compared: neutral with its first ``PREVIOUS_NEUTRAL`` phrases (the reading before) and the shipped one.

``--trial``: the development sets of ``studies.negation`` (388 labelled questions: the labelled 96, the benches' 32
phrasings, the idioms, memory-form questions and issue idioms of the first held-out file, and the second, third and
fourth held-out files), the 16 questions that name no feeling, and both halves of the first negation file.
``--heldout``: the fifth held-out file (``evals.questions.HELDOUT5``, 64 questions written before this change), the
same two ways: once, when the change was done.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.perception.text_emotion import TextEmotion

#: How many of neutral's descriptions the reading before had (the first ones of ``EMOTION_DESCRIPTIONS["neutral"]``).
PREVIOUS_NEUTRAL = 3
#: The readings compared: name -> whether neutral keeps only its first ``PREVIOUS_NEUTRAL`` descriptions.
READINGS = {"neutral's three descriptions": True, "neutral's five descriptions (shipped)": False}
BEFORE, NOW = READINGS


@functools.cache
def _previous_scorer() -> TextEmotion:
    """The shipped question scorer's encoder and words head, with neutral described as before (module doc)."""
    from tools.perception.text_emotion import TextEmotion, load_text_emotion
    from tools.signals.lexicon import EMOTION_DESCRIPTIONS

    shipped = load_text_emotion()
    previous = {**EMOTION_DESCRIPTIONS, "neutral": EMOTION_DESCRIPTIONS["neutral"][:PREVIOUS_NEUTRAL]}
    return TextEmotion(shipped.encoder, descriptions=previous)


def read_question(question: str, previous: bool) -> list[str]:
    """``agents.intent.asked_emotions(question)`` with neutral described as before (``previous``) or as shipped."""
    from agents.intent import asked_emotions

    return asked_emotions(question, text=_previous_scorer() if previous else None)


def _readings() -> dict[str, Callable[[str], list[str]]]:
    """``READINGS`` as readers of a question (``read_question``)."""
    return {name: functools.partial(read_question, previous=previous) for name, previous in READINGS.items()}


def trial() -> dict:
    """Top-1 right per development set, the no-feeling questions left without an emotion, and the questions whose
    targets changed (``studies.negation.development_trial``), and each half of the first negation file
    (``studies.negation.first_file_rows``), under both readings."""
    from studies.negation import development_trial, first_file_rows

    return {**development_trial(_readings(), BEFORE, NOW), "negation": first_file_rows(_readings(), BEFORE, NOW)}


def heldout_scores() -> dict:
    """``studies.intent.score`` of the fifth held-out file, per form (idioms and slang; memory form), under both
    readings, each top-1 with its bootstrap 95 % interval over questions, the paired interval of top-1 over its 64
    questions and each question's targets."""
    from evals.metrics import bootstrap_interval
    from evals.questions import HELDOUT5, heldout
    from studies.intent import paired, read_sets, score

    _, targets = read_sets({"heldout5": heldout(HELDOUT5)}, (), _readings())
    out = {name: {form: {**score(qs := heldout(HELDOUT5, form), targets[name].__getitem__),
                         "top1_ci95": [round(v, 3) for v in bootstrap_interval(
                             [float(targets[name][q][:1] == [lab]) for q, lab in qs])]}
                  for form in ("idiom", "memory")}
           for name in READINGS}
    right = {name: [targets[name][q][:1] == [lab] for q, lab in heldout(HELDOUT5)] for name in READINGS}
    return {**out, "paired_top1": paired(right[NOW], right[BEFORE]),
            "questions": [{"question": q, "label": lab, "before": targets[BEFORE][q], "now": targets[NOW][q]}
                          for q, lab in heldout(HELDOUT5)]}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.descriptions", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--trial", action="store_true",
                      help="read the development questions with neutral's three and five descriptions")
    mode.add_argument("--heldout", action="store_true", help="read the fifth held-out file the same two ways, once")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    return report(trial if args.trial else heldout_scores, args.json)


if __name__ == "__main__":
    sys.exit(main())
