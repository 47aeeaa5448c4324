"""Negation in the offline question reader: its trial on the development questions and its read on held-out ones.

    python -m studies.negation --trial [--json report.json]
    python -m studies.negation --heldout [--json report.json]
    python -m studies.negation --disjunction dev|test [--json report.json]
    python -m studies.negation --shown dev|test [--json report.json]

"when is she not happy?" asks about a moment without happiness; before this reading the sentence encoder and the
emotion words both read it as happiness. ``agents.emotion_scores.emotion_scores`` now reads the words a negation cue
governs apart (``tools.signals.negation``, after NegEx) and never asks about an emotion they name
(``agents.denied.negated_emotions``). Two readings are compared: ``negation=False`` (the reading before, but with
contractions written out: it reads 2 of the first file's 64 questions otherwise than the code before did, section 91)
and the shipped one.

The questions: ``evals.questions.NEGATION`` (written and split before the reading was built: 6 negated questions and
2 phrasings that look negated but are not, per emotion, half of each to dev and half to test by a seeded shuffle) and
``evals.questions.NEGATION2`` (written after the first file's test half was read: 3 negated and 2 not, per emotion,
eight of the latter in VQAU-Bench's memory form with a cue in the scene, "nobody wanted the party to end, felt so
joyful"). A negated question is read right when the emotion it denies is not among the targets, a not-negated one
when its emotion comes first.

``--disjunction dev|test``: the third negation file (``evals.questions.NEGATION3``, written before "or" was read
within a cue's scope), a half as the shipped reader reads it (``evals/RESULTS.md`` section 156; the reading before is
this command run in a checkout of the commit before it).

``--shown dev|test``: the fourth negation file (``evals.questions.NEGATION4``, written before a stretch after "or"
that begins as a pseudo-negation was read as shown: "can't smile or *stop* crying"), a half as the shipped reader
reads it: right when the feeling shown is asked first (``evals/RESULTS.md`` section 159).

``--trial``: the development sets of ``studies.build_word_glosses`` (260 labelled questions, idioms and memory-form
questions), the third and fourth held-out files (development sets since sections 90 and 91: 128 more), the 16
questions that name no feeling, and both halves of the first negation file (its test half read once in section 91,
a development set since). The cues, the terminators, the phrasings that do not negate and
``agents.denied.GENERAL_FEELING_WORDS`` were chosen this way (``evals/RESULTS.md`` section 91). ``--heldout``: the
second negation file, the same two ways: once, when the reading was done.
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


def negation_rows(negated: list[tuple[str, str]], plain: list[tuple[str, str]],
                  readings: dict[str, Callable[[str], list[str]]] | None = None, before: str = BEFORE,
                  now: str = NOW) -> tuple[dict, dict, dict]:
    """Per reading of ``readings`` (default ``READINGS``: without and with negation), over negated questions and
    questions that deny no feeling (``plain``; question, label): ``negated_avoided`` (negated questions whose denied
    emotion is not a target) and ``not_negated_top1``, with their counts; the paired difference of each, ``now`` minus
    ``before`` (``studies.intent.paired``); and each reading's targets per question."""
    from studies.intent import paired

    readings = _readings() if readings is None else readings
    targets = {name: {q: read(q) for q, _ in [*negated, *plain]} for name, read in readings.items()}
    avoided = {name: [lab not in found[q] for q, lab in negated] for name, found in targets.items()}
    first = {name: [found[q][:1] == [lab] for q, lab in plain] for name, found in targets.items()}
    rows = {name: {"negated_avoided": sum(avoided[name]), "of_negated": len(negated),
                   "not_negated_top1": sum(first[name]), "of_not_negated": len(plain)} for name in readings}
    return rows, {"negated_avoided": paired(avoided[now], avoided[before]),
                  "not_negated_top1": paired(first[now], first[before])}, targets


def trial() -> dict:
    """Top-1 right per development set, the no-feeling questions left without an emotion and the questions whose
    targets changed (``development_trial``), and each half of the first negation file (``first_file_rows``), without
    and with negation read."""
    return {**development_trial(_readings(), BEFORE, NOW), "negation": first_file_rows(_readings(), BEFORE, NOW)}


def development_trial(readings: dict[str, Callable[[str], list[str]]], before: str, now: str,
                      more: dict[str, list[tuple[str, str]]] | None = None) -> dict:
    """Two readings (``before``, ``now``: names in ``readings``) of the question reader's development sets since
    section 91 of ``evals/RESULTS.md`` (``studies.train_feel.dev_questions`` and the second, third and fourth
    held-out files: 388 questions), with the labelled sets of ``more`` (name -> (question, AffectNet-8 label): held-out
    files read since), and of the 16 questions that name no feeling (``studies.train_feel.NO_FEELING``):
    ``rows`` (``studies.intent.read_sets``, with the counts), ``paired_all`` (``studies.intent.paired`` over all the
    labelled questions, ``now`` against ``before``) and ``changed`` (each question whose targets differ, with both)."""
    from evals.questions import HELDOUT2, HELDOUT3, HELDOUT4, heldout
    from studies.intent import paired, read_sets
    from studies.train_feel import NO_FEELING, dev_questions

    sets = {**dev_questions(), **{f"heldout{i}": heldout(path) for i, path in ((2, HELDOUT2), (3, HELDOUT3),
                                                                                (4, HELDOUT4))}, **(more or {})}
    questions = [(q, lab) for qs in sets.values() for q, lab in qs]
    rows, targets = read_sets(sets, NO_FEELING, readings)
    for row in rows.values():
        row.update({"of": len(questions), "no_feeling": len(NO_FEELING)})
    right = {name: [targets[name][q][:1] == [lab] for q, lab in questions] for name in (before, now)}
    changed = [{"question": q, "label": lab, "before": targets[before][q], "now": targets[now][q]}
               for q, lab in [*questions, *((q, None) for q in NO_FEELING)] if targets[before][q] != targets[now][q]]
    return {"rows": rows, "paired_all": paired(right[now], right[before]), "changed": changed}


def first_file_rows(readings: dict[str, Callable[[str], list[str]]], before: str, now: str) -> dict:
    """``negation_rows`` (rows and paired differences) of each half ("dev", "test") of the first negation file under
    two readings (``before``, ``now``: names in ``readings``)."""
    from evals.questions import form_questions

    out = {}
    for half in ("dev", "test"):
        forms = (form_questions(form, half) for form in ("negated", "not_negated"))
        rows_half, paired_half, _ = negation_rows(*forms, readings, before, now)
        out[half] = {"rows": rows_half, "paired": paired_half}
    return out


def heldout_scores() -> dict:
    """``negation_rows`` of the second negation file (``evals.questions.NEGATION2``), with each question's targets
    under both readings."""
    from evals.questions import NEGATION2, form_questions

    negated, plain = form_questions("negated", path=NEGATION2), form_questions("not_negated", path=NEGATION2)
    rows, paired_rows, targets = negation_rows(negated, plain)
    return {"rows": rows, "paired": paired_rows,
            "questions": [{"question": q, "label": lab, "form": form, "before": targets[BEFORE][q],
                           "now": targets[NOW][q]}
                          for form, qs in (("negated", negated), ("not_negated", plain)) for q, lab in qs]}


def disjunction_scores(half: str) -> dict:
    """The shipped reader over ``half`` ("dev" or "test") of the third negation file (``evals.questions.NEGATION3``:
    feelings denied through "or"): ``denied_avoided``, the questions none of whose denied emotions is among the
    targets, of ``n``, with each question's targets.

    Raises:
        ValueError: ``half`` is neither "dev" nor "test".
    """
    from evals.questions import NEGATION3, read_half

    read = [(q, lab.split("|"), found) for q, lab, found in read_half(half, "negated_or", NEGATION3)]
    return {"half": half, "denied_avoided": sum(not set(denied) & set(found) for _, denied, found in read),
            "n": len(read), "questions": [{"question": q, "denied": denied, "targets": found}
                                          for q, denied, found in read]}


def shown_scores(half: str) -> dict:
    """The shipped reader over ``half`` ("dev" or "test") of the fourth negation file (``evals.questions.NEGATION4``):
    ``shown_first``, the questions whose shown feeling is the first target, of ``n``, with each question's targets.

    Raises:
        ValueError: ``half`` is neither "dev" nor "test".
    """
    from evals.questions import NEGATION4, read_half

    read = read_half(half, "shown_after_or", NEGATION4)
    return {"half": half, "shown_first": sum(found[:1] == [lab] for _, lab, found in read), "n": len(read),
            "questions": [{"question": q, "shown": lab, "targets": found} for q, lab, found in read]}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.negation", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--trial", action="store_true", help="read the development questions with and without negation")
    mode.add_argument("--heldout", action="store_true",
                      help="read the second negation file the same two ways, once")
    mode.add_argument("--disjunction", choices=("dev", "test"),
                      help="read a half of the third negation file (feelings denied through 'or') as shipped")
    mode.add_argument("--shown", choices=("dev", "test"),
                      help="read a half of the fourth negation file (a feeling shown after 'or') as shipped")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    if args.disjunction:
        return report(functools.partial(disjunction_scores, args.disjunction), args.json)
    if args.shown:
        return report(functools.partial(shown_scores, args.shown), args.json)
    return report(trial if args.trial else heldout_scores, args.json)


if __name__ == "__main__":
    sys.exit(main())
