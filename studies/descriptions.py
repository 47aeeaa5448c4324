"""The label descriptions of the offline question reader: each change's trial on the development questions and its
read on a held-out file written before it.

    python -m studies.descriptions --trial [--change 101|102] [--json report.json]
    python -m studies.descriptions --heldout [--change 101|102] [--json report.json]

The question reader scores a question's emotion phrase by its cosine similarity to each AffectNet-8 label's
descriptions (``tools.signals.lexicon.EMOTION_DESCRIPTIONS``, best phrase). Two changes added phrases, each written
from the development questions' misses and judged by a rule written before its held-out read (``evals/RESULTS.md``):

- section 101: neutral's fourth and fifth phrases, an unmoved face ("impassive, expressionless, unemotional, deadpan,
  indifferent") and an ordinary scene ("ordinary, routine, nothing special, business as usual"); read on the fifth
  held-out file (``evals.questions.HELDOUT5``); kept.
- section 102: ``TRIED_102``, one more phrase for every label but happiness, two for sadness, chosen one at a time on
  the development questions (a phrase was taken when it named at least two more of them first and left no fewer
  no-feeling questions empty, negated questions of the first negation file avoided and its plain ones named first);
  read on the sixth held-out file (``evals.questions.HELDOUT6``); not kept (one question fewer named first).

``--trial``: the development sets of ``studies.negation.development_trial`` (388 labelled questions), for section 102
the fifth held-out file too (452), the 16 questions that name no feeling, and both halves of the first negation file.
``--heldout``: the change's held-out file, per form (idioms and slang; memory form), read once when the change was
done.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from tools.perception.text_emotion import TextEmotion

#: Each label's phrase count before section 101 (neutral's first three; the others as shipped).
_BEFORE_101 = {"neutral": 3, "happiness": 4, "sadness": 4, "surprise": 3, "fear": 3, "disgust": 4, "anger": 3,
               "contempt": 3}
#: The phrases section 102 added to section 101's descriptions, tried and not kept (label -> phrases).
TRIED_102: dict[str, list[str]] = {
    "neutral": ["unbothered, unfazed, without any reaction, just going along"],
    "sadness": ["gloomy, mopey, bleak, in low spirits", "heartbroken, gutted, choked up, in tears"],
    "surprise": ["a sudden shock, a double take, jaw dropping in disbelief"],
    "fear": ["terrified, petrified, trembling, frozen with dread"],
    "disgust": ["creeped out by something filthy, slimy or foul"],
    "anger": ["losing one's temper, exploding with rage, snapping at someone"],
    "contempt": ["sneering at someone, mean and arrogant, demeaning"],
}
#: Each section's reading: (how many of each label's shipped phrases, the first ones of
#: ``EMOTION_DESCRIPTIONS[label]``, or None for all; phrases added after them, label -> phrases).
SECTIONS: dict[str, tuple[dict[str, int] | None, dict[str, list[str]]]] = {
    "100": (_BEFORE_101, {}), "101": ({**_BEFORE_101, "neutral": 5}, {}), "102": (None, TRIED_102)}


class Change(NamedTuple):
    """One change to the descriptions: its two readings, each as (name in the result files, ``SECTIONS`` key), the
    ``evals.questions`` file it was read on once, and the held-out files read before it, development sets by then."""

    before: tuple[str, str]
    after: tuple[str, str]
    heldout: str
    development: tuple[str, ...] = ()


CHANGES: dict[str, Change] = {
    "101": Change(("neutral's three descriptions", "100"), ("neutral's five descriptions (shipped)", "101"),
                  "HELDOUT5"),
    "102": Change(("section 101's descriptions (shipped)", "101"),
                  ("one more for every label but happiness (not kept)", "102"), "HELDOUT6", ("HELDOUT5",)),
}


def descriptions(section: str) -> dict[str, list[str]]:
    """Each AffectNet-8 label's phrases as section ``section`` read them (``SECTIONS``)."""
    from tools.signals.lexicon import EMOTION_DESCRIPTIONS

    counts, added = SECTIONS[section]
    return {k: [*(v if counts is None else v[:counts[k]]), *added.get(k, [])] for k, v in EMOTION_DESCRIPTIONS.items()}


@functools.cache
def scorer(section: str) -> TextEmotion:
    """The shipped question scorer's encoder and words head with section ``section``'s ``descriptions``."""
    from tools.perception.text_emotion import TextEmotion, load_text_emotion

    return TextEmotion(load_text_emotion().encoder, descriptions=descriptions(section))


def read_question(question: str, section: str) -> list[str]:
    """``agents.intent.asked_emotions(question)`` with section ``section``'s ``descriptions``."""
    from agents.intent import asked_emotions

    return asked_emotions(question, text=scorer(section))


def _readings(change: str) -> tuple[dict[str, Callable[[str], list[str]]], str, str]:
    """The change's two readings as readers of a question, with the names of the one before and the one after."""
    pair = CHANGES[change][:2]
    return ({name: functools.partial(read_question, section=section) for name, section in pair},
            pair[0][0], pair[1][0])


def question_file(name: str) -> Path:
    """The path ``evals.questions`` names ``name`` ("HELDOUT6")."""
    import evals.questions

    return getattr(evals.questions, name)


def trial(change: str = "102") -> dict:
    """Top-1 right per development set, the no-feeling questions left without an emotion, and the questions whose
    targets changed (``studies.negation.development_trial``, with the held-out files read before the change), and
    each half of the first negation file (``studies.negation.first_file_rows``), under the change's two readings."""
    from evals.questions import heldout
    from studies.negation import development_trial, first_file_rows

    readings, before, now = _readings(change)
    more = {name.lower(): heldout(question_file(name)) for name in CHANGES[change].development}
    return {**development_trial(readings, before, now, more), "negation": first_file_rows(readings, before, now)}


def heldout_scores(change: str = "102") -> dict:
    """``studies.intent.score`` of the change's held-out file, per form (idioms and slang; memory form), under both
    readings, each top-1 with its bootstrap 95 % interval over questions, the paired interval of top-1 over all the
    file's questions and each question's targets."""
    from evals.metrics import bootstrap_interval
    from evals.questions import heldout
    from studies.intent import paired, read_sets, score

    path = question_file(CHANGES[change].heldout)
    readings, before, now = _readings(change)
    _, targets = read_sets({"heldout": heldout(path)}, (), readings)
    out = {name: {form: {**score(qs := heldout(path, form), targets[name].__getitem__),
                         "top1_ci95": [round(v, 3) for v in bootstrap_interval(
                             [float(targets[name][q][:1] == [lab]) for q, lab in qs])]}
                  for form in ("idiom", "memory")}
           for name in readings}
    right = {name: [targets[name][q][:1] == [lab] for q, lab in heldout(path)] for name in readings}
    return {**out, "paired_top1": paired(right[now], right[before]),
            "questions": [{"question": q, "label": lab, "before": targets[before][q], "now": targets[now][q]}
                          for q, lab in heldout(path)]}


def main(argv: list[str] | None = None) -> int:
    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.descriptions", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--trial", action="store_true",
                      help="read the development questions with the descriptions before the change and after it")
    mode.add_argument("--heldout", action="store_true", help="read the change's held-out file the same two ways, once")
    ap.add_argument("--change", choices=sorted(CHANGES), default="102",
                    help="the section of evals/RESULTS.md whose change to compare (default: %(default)s)")
    ap.add_argument("--json", help="write the report here")
    args = ap.parse_args(argv)
    run = trial if args.trial else heldout_scores
    return report(functools.partial(run, args.change), args.json)


if __name__ == "__main__":
    sys.exit(main())
