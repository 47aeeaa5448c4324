"""Negation in the offline question reader: its trial on the development questions and its read on held-out ones.

    python -m studies.negation --trial [--json report.json]
    python -m studies.negation --heldout [--json report.json]

"when is she not happy?" asks about a moment without happiness; before this reading the sentence encoder and the
emotion words both read it as happiness. ``agents.intent.emotion_scores`` now reads the words a negation cue
governs apart (``tools.signals.negation``, after NegEx) and never asks about an emotion they name
(``agents.intent.negated_emotions``). Two readings are compared: ``negation=False`` (the reading before) and the
shipped one.

The questions (``evals.questions.NEGATION``, written and split before the reading was built; 6 negated questions and
2 phrasings that look negated but are not, per emotion, half of each to dev and half to test by a seeded shuffle): a
negated question is read right when the emotion it denies is not among the targets, a not-negated one when its
emotion comes first.

``--trial``: the development sets of ``studies.build_word_glosses`` (260 labelled questions, idioms and memory-form
questions; the third held-out file, a development set since section 90: 64 more), the 16 questions that name no
feeling, and the dev half of the negation questions. The cues, the terminators, the phrasings that do not negate and
``agents.intent.GENERAL_FEELING_WORDS`` were chosen this way (``evals/RESULTS.md`` section 91). ``--heldout``: the test
half of the negation questions and the fourth held-out question file (``evals.questions.HELDOUT4``: 48 idioms and slang
phrasings, 16 memory-form questions, written before this reading), the same two ways: once, when the reading was done.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable

#: The two readings compared: name -> whether negation is read (``agents.intent.asked_emotions(negation=...)``).
READINGS = {"without negation": False, "with negation (shipped)": True}
BEFORE, NOW = READINGS


def _readings() -> dict[str, Callable[[str], list[str]]]:
    """``READINGS`` as readers of a question (``agents.intent.asked_emotions``)."""
    from agents.intent import asked_emotions

    return {name: functools.partial(asked_emotions, negation=read) for name, read in READINGS.items()}


def negation_rows(split_name: str) -> tuple[dict, dict]:
    """Per reading, for ``split_name`` of the negation questions: ``negated_avoided`` (negated questions whose denied
    emotion is not a target) and ``not_negated_top1``, with their counts; and the paired difference of each, shipped
    minus before (``studies.intent.paired``)."""
    from evals.questions import negation_questions
    from studies.intent import paired

    negated, plain = negation_questions(split_name, "negated"), negation_questions(split_name, "not_negated")
    avoided, first = {}, {}
    for name, read in _readings().items():
        avoided[name] = [lab not in read(q) for q, lab in negated]
        first[name] = [read(q)[:1] == [lab] for q, lab in plain]
    rows = {name: {"negated_avoided": sum(avoided[name]), "of_negated": len(negated),
                   "not_negated_top1": sum(first[name]), "of_not_negated": len(plain)} for name in READINGS}
    return rows, {"negated_avoided": paired(avoided[NOW], avoided[BEFORE]),
                  "not_negated_top1": paired(first[NOW], first[BEFORE])}


def trial() -> dict:
    """Top-1 right per development set, the no-feeling questions left without an emotion, the dev negation questions
    (``negation_rows``), and the questions whose targets changed, without and with negation read."""
    from evals.questions import HELDOUT2, HELDOUT3, heldout
    from studies.intent import paired, read_sets
    from studies.train_feel import NO_FEELING, dev_questions

    sets = {**dev_questions(), "heldout2": heldout(HELDOUT2), "heldout3": heldout(HELDOUT3)}
    questions = [(q, lab) for qs in sets.values() for q, lab in qs]
    rows, targets = read_sets(sets, NO_FEELING, _readings())
    for row in rows.values():
        row.update({"of": len(questions), "no_feeling": len(NO_FEELING)})
    before, now = ([targets[name][q][:1] == [lab] for q, lab in questions] for name in READINGS)
    changed = [{"question": q, "label": lab, "before": targets[BEFORE][q], "now": targets[NOW][q]}
               for q, lab in [*questions, *((q, None) for q in NO_FEELING)] if targets[BEFORE][q] != targets[NOW][q]]
    neg_rows, neg_paired = negation_rows("dev")
    return {"rows": rows, "paired_all": paired(now, before), "changed": changed,
            "negation_dev": neg_rows, "negation_dev_paired": neg_paired}


def heldout_scores() -> dict:
    """The test half of the negation questions (``negation_rows``) and ``studies.intent.score`` of the fourth held-out
    file per form, without and with negation read, with the paired interval of the file's top-1."""
    from evals.questions import HELDOUT4, heldout
    from studies.intent import paired, read_sets, score

    neg_rows, neg_paired = negation_rows("test")
    _, targets = read_sets({"heldout4": heldout(HELDOUT4)}, (), _readings())
    file4 = {name: {form: score(heldout(HELDOUT4, form), targets[name].__getitem__) for form in ("idiom", "memory")}
             for name in READINGS}
    right = {name: [targets[name][q][:1] == [lab] for q, lab in heldout(HELDOUT4)] for name in READINGS}
    return {"negation_test": neg_rows, "negation_test_paired": neg_paired, "heldout4": file4,
            "heldout4_paired_top1": paired(right[NOW], right[BEFORE])}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.negation", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--trial", action="store_true", help="read the development questions with and without negation")
    mode.add_argument("--heldout", action="store_true",
                      help="read the negation test half and the fourth held-out file the same two ways, once")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    return report(trial if args.trial else heldout_scores, args.json)


if __name__ == "__main__":
    sys.exit(main())
