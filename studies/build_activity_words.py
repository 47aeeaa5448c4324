"""The verbs of doing that the offline question reader reads as an activity, drawn from Open English WordNet.

    python -m studies.build_activity_words --wordnet DIR [--out tools/data/activity_verbs.json]

``DIR`` is a clone or bare git directory of github.com/globalwordnet/english-wordnet (Open English WordNet: CC BY
4.0, derived from Princeton WordNet under the WordNet licence); its YAML sources are read (``src/yaml/entries-*.yaml``
for each word's verb senses in WordNet's order, ``verb.*.yaml`` for the lexicographer file of each synset).

Method: a verb of one word is an activity when its first verb sense, the one WordNet lists first (its most frequent
in the tagged corpus where it was counted), lies in one of ``ACTIVITY_FILES`` (for a word written like another, such
as "tear", rip, and "tear", shed tears, the first sense of each): verbs of walking, running and moving
(``verb.motion``), of eating and drinking (``verb.consumption``), of touching, hitting and holding
(``verb.contact``), of making and cooking (``verb.creation``) and of games and sports (``verb.competition``), as
WordNet's lexicographers filed them (Miller, Fellbaum et al., 1990, "Introduction to WordNet: an on-line lexical
database"), and none of those first senses is defined through a feeling: a definition that holds a word of the
emotion lexicon (``tools.signals.lexicon.emotion_words``, less the activity verbs themselves, since "eat" defines
"dine") makes a sign of a feeling, not an activity ("cringe": "draw back, as with fear or pain"; "shiver": "tremble
convulsively, as from fear or excitement"; the lexicon's noise drops some plain verbs too, "hop": "jump lightly").
Every other verb of one word is listed too ("other"), so that a word read one way as an activity and
another way not ("pining": "pin" and "pine") is read as neither (``tools.signals.activity_words``). The files were
chosen on the development questions of ``studies.question_readings`` (``evals/RESULTS.md`` section 191): with
``verb.body`` too, "gasp" and "beam" ask no feeling; with ``verb.change``, "stay level-headed" and "upset"; with
``verb.possession`` and ``verb.stative``, "have a blast", "find it gross" and "seething".
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

from evals.data.sources import repository_files
from studies.build_emotion_words import wordnet_arguments, wordnet_provenance
from tools.signals.lexicon import emotion_words
from tools.signals.word_forms import matched_phrases

#: WordNet's lexicographer files whose verbs are ways of doing something with the body or with things.
ACTIVITY_FILES = ("verb.motion", "verb.consumption", "verb.contact", "verb.creation", "verb.competition")
_YAML = re.compile(r"(?:^|/)src/yaml/(entries-[^/]+|verb\.[a-z]+)\.yaml$")


def first_verb_files(wordnet: Path) -> dict[str, list[tuple[str, str]]]:
    """word (lower case, one word) -> (lexicographer file, definition) of the first sense of each of its verb entries,
    over an Open English WordNet checkout: one entry for most words, two or more for words written alike and said apart
    ("tear", rip, and "tear", shed tears: ``verb.contact``, ``verb.body``).

    Raises:
        FileNotFoundError: ``wordnet`` does not exist or holds none of the YAML sources.
    """
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    first_synsets: dict[str, list[str]] = {}
    files: dict[str, tuple[str, str]] = {}
    for rel, data in repository_files(wordnet, _YAML):
        records = yaml.load(data, Loader=loader)
        name = rel.rsplit("/", 1)[-1].removesuffix(".yaml")
        if name.startswith("entries-"):
            for lemma, by_pos in records.items():
                word = str(lemma).lower()
                firsts = [entry["sense"][0]["synset"] for pos, entry in by_pos.items()
                          if pos.split("-")[0] == "v" and entry.get("sense")]
                if firsts and re.fullmatch(r"[a-z]+", word):
                    first_synsets.setdefault(word, []).extend(firsts)
        else:
            files.update({sid: (name, " ".join(record.get("definition", []))) for sid, record in records.items()})
    if not first_synsets or not files:
        raise FileNotFoundError(f"{wordnet}: no Open English WordNet YAML sources (src/yaml/*.yaml)")
    return {word: [files[sid] for sid in sids if sid in files] for word, sids in sorted(first_synsets.items())}


def main(argv: list[str] | None = None) -> int:
    args = wordnet_arguments(argv, "studies.build_activity_words", __doc__, "activity_verbs.json")
    try:
        first = first_verb_files(args.wordnet)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    by_file = {w for w, found in first.items() if found and all(f in ACTIVITY_FILES for f, _ in found)}
    feeling = {w: e for w, e in emotion_words().items() if w not in by_file}  # "eat" defines "dine": no feeling
    activity = [w for w in sorted(by_file) if not any(matched_phrases(d.lower(), feeling) for _, d in first[w])]
    record = {**wordnet_provenance(args.wordnet, "studies.build_activity_words"), "files": list(ACTIVITY_FILES),
              "activity": activity, "other": sorted(set(first) - set(activity))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=0) + "\n")
    print(f"wrote {len(activity)} activity verbs and {len(first) - len(activity)} others to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
