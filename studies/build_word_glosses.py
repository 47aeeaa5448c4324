"""The word glosses of the offline question reader, drawn from Open English WordNet, and their trial on the
development questions.

    python -m studies.build_word_glosses --wordnet DIR [--out tools/data/word_glosses.json]
    python -m studies.build_word_glosses --trial [--json report.json]
    python -m studies.build_word_glosses --heldout [--json report.json]

``DIR`` is a clone or bare git directory of github.com/globalwordnet/english-wordnet (Open English WordNet: CC BY
4.0, derived from Princeton WordNet under the WordNet licence); its YAML sources are read. Words such as "snide",
"seething", "repugnant" or "fuming" say their feeling to a reader of English but not to the sentence encoder,
and WordNet files them under no feeling (``tools/data/emotion_words.json`` lacks them); their dictionary sense says
it ("expressive of contempt", "offensive to the mind"). After SentiWordNet's reading of a word through its glosses
(Esuli & Sebastiani, 2006, "SentiWordNet: A Publicly Available Lexical Resource for Opinion Mining", LREC), without
its trained classifier: each sense's gloss is scored as the question reader scores a question, by its cosine
similarity to the AffectNet-8 descriptions (``tools.perception.text_emotion``, the shipped encoder).

Kept: a WordNet lemma of one word (letters, hyphens, apostrophes), lower case, with at most
``studies.build_emotion_words.MAX_SENSES`` senses over every part of speech (the emotion words' rule), that is not an
English stop word, a question-frame, person, behaviour or speech word of ``tools.signals.lexicon``, nor already an
emotion word; its senses in the adjective, verb and ``noun.feeling`` / ``noun.state`` / ``noun.attribute`` files are
read, and the word keeps the gloss of its sense with the highest similarity to any emotion when that reaches
``FLOOR``. Nothing is labelled: the interpreter reads the gloss beside the question (``agents.intent``).

The trial (``--trial``): the asked emotion of the development questions (``studies.build_idiom_glosses``' 196 and the
second held-out file, a development set since section 86: 260; and 16 questions that name no feeling, which should
stay without one), read as shipped and without the word glosses. ``FLOOR`` was chosen this way (``evals/RESULTS.md``
section 90). ``--heldout`` reads the third held-out question file (``evals.questions.HELDOUT3``, written before this
list) the same two ways: once, when the list was done.
"""

from __future__ import annotations

import collections
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path

import yaml

from evals.data.sources import repository_files
from studies.command import gloss_table_command

#: A gloss is kept when its cosine similarity to some emotion's descriptions reaches this (0.35-0.55 tried on the
#: development questions, ``evals/RESULTS.md`` section 90; unrelated text scores about 0.0-0.15).
FLOOR = 0.5
#: The WordNet files whose senses are read: adjectives, verbs, and the nouns of feelings, states and attributes.
READ_FILES = re.compile(r"^(?:adj\.all|adj\.ppl|verb\.[a-z]+|noun\.feeling|noun\.state|noun\.attribute)$")
_YAML = re.compile(r"(?:^|/)src/yaml/(entries-[^/]+|(?:adj|verb|noun)\.[a-z]+)\.yaml$")
_WORD = re.compile(r"^[a-z][a-z'-]*[a-z]$")


def read_glosses(wordnet: Path) -> tuple[dict[str, list[str]], dict[str, tuple[str, str]]]:
    """(senses, synsets) of an Open English WordNet checkout: lemma (lower case) -> the synset ids of its senses, in
    WordNet's order over every part of speech; synset id -> (lexicographer file, first definition).

    Raises:
        FileNotFoundError: ``wordnet`` does not exist or holds none of the YAML sources.
        ValueError: a YAML source is not of Open English WordNet's form (a mapping of entries or synsets; a sense
            without its synset), or ``wordnet`` is a git directory ``git`` cannot read.
        yaml.YAMLError: a YAML source does not parse.
    """
    import subprocess

    senses: dict[str, list[str]] = collections.defaultdict(list)
    synsets: dict[str, tuple[str, str]] = {}
    try:
        for rel, data in repository_files(wordnet, _YAML):
            records = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            name = rel.rsplit("/", 1)[-1][:-len(".yaml")]
            if not isinstance(records, dict):
                raise TypeError(f"{rel}: not a mapping of Open English WordNet records")
            if name.startswith("entries-"):
                for lemma, by_pos in records.items():
                    for entry in by_pos.values():
                        senses[str(lemma).lower()] += [sense["synset"] for sense in entry.get("sense", [])]
            else:
                synsets.update({sid: (name, (record.get("definition") or [""])[0]) for sid, record in records.items()})
    except (KeyError, AttributeError, TypeError) as exc:
        raise ValueError(f"{wordnet}: a record not of Open English WordNet's form: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise ValueError(f"{wordnet}: git cannot read it ({exc.returncode})") from exc
    if not senses or not synsets:
        raise FileNotFoundError(f"{wordnet}: no Open English WordNet YAML sources (src/yaml/*.yaml)")
    return dict(senses), synsets


def candidate_senses(senses: dict[str, list[str]], synsets: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    """word -> the synset ids read for it (module doc: one word, few senses, not a stop, frame, person, behaviour,
    speech or emotion word; senses of ``READ_FILES`` with a definition)."""
    from studies.build_emotion_words import MAX_SENSES
    from tools.signals.lexicon import (
        BEHAVIOUR_PHRASES,
        PERSON_WORDS,
        QUESTION_FRAME_WORDS,
        SPEECH_PHRASES,
        emotion_words,
        english_stop_words,
    )

    left_out = (english_stop_words() | QUESTION_FRAME_WORDS | set(PERSON_WORDS) | set(BEHAVIOUR_PHRASES)
                | set(SPEECH_PHRASES) | set(emotion_words()))
    out = {}
    for word, ids in senses.items():
        if not _WORD.match(word) or word in left_out or len(ids) > MAX_SENSES:
            continue
        read = [sid for sid in ids if sid in synsets and READ_FILES.match(synsets[sid][0]) and synsets[sid][1].strip()]
        if read:
            out[word] = read
    return out


def word_glosses(wordnet: Path) -> dict[str, str]:
    """word (lower case) -> its most emotional gloss (module doc): each candidate sense's definition is scored by its
    highest cosine similarity to an emotion's descriptions (``tools.perception.text_emotion.TextEmotion.similarities``,
    the shipped sentence encoder, loaded here), and a word keeps its best-scoring definition when that reaches
    ``FLOOR``. About 11 minutes on 2 cores for Open English WordNet (27,847 definitions, each encoded alone).

    Raises:
        FileNotFoundError: ``wordnet`` does not exist or holds none of the YAML sources (``read_glosses``).
        ValueError: a YAML source is not of Open English WordNet's form (``read_glosses``).
    """
    from rich.progress import track

    from tools.perception.text_emotion import load_text_emotion

    senses, synsets = read_glosses(wordnet)
    candidates = candidate_senses(senses, synsets)
    text = load_text_emotion()
    definitions = sorted({synsets[sid][1] for ids in candidates.values() for sid in ids})
    best = {d: max(text.similarities(d)[0].values()) for d in track(definitions, description="glosses")}
    out = {}
    for word, ids in candidates.items():
        gloss = max((synsets[sid][1] for sid in ids), key=lambda d: best[d])
        if best[gloss] >= FLOOR:
            out[word] = " ".join(gloss.split())
    return dict(sorted(out.items()))


#: The two readings compared: name -> whether the word glosses are read
#: (``agents.intent.asked_emotions(word_glosses=...)``).
READINGS = {"without word glosses": False, "with word glosses (shipped)": True}


def _readings() -> dict[str, Callable[[str], list[str]]]:
    """``READINGS`` as readers of a question (``agents.intent.asked_emotions``), for ``studies.intent.read_sets``."""
    from agents.intent import asked_emotions

    return {name: functools.partial(asked_emotions, word_glosses=words) for name, words in READINGS.items()}


def trial() -> dict:
    """Top-1 right per development set, the no-feeling questions left without an emotion, and the questions whose
    first target changed, without and with the word glosses (module doc), with a bootstrap interval of the paired
    difference over the questions."""
    from evals.questions import HELDOUT2, heldout
    from studies.intent import paired, read_sets
    from studies.train_feel import NO_FEELING, dev_questions

    sets = {**dev_questions(), "heldout2_idioms": heldout(HELDOUT2, "idiom"),
            "heldout2_memory": heldout(HELDOUT2, "memory")}
    questions = [(q, lab) for qs in sets.values() for q, lab in qs]
    rows, targets = read_sets(sets, NO_FEELING, _readings())
    for row in rows.values():
        row.update({"of": len(questions), "no_feeling": len(NO_FEELING)})
    without, with_ = ([targets[name][q][:1] == [lab] for q, lab in questions] for name in READINGS)
    changed = [{"question": q, "label": lab, "right_without": a, "right_with": b}
               for (q, lab), a, b in zip(questions, without, with_, strict=True) if a != b]
    return {"rows": rows, "paired_all": paired(with_, without), "changed": changed}


def heldout_scores() -> dict:
    """``studies.intent.score`` of the third held-out file, per form, without and with the word glosses, with the
    paired interval of top-1 over its 64 questions."""
    from evals.questions import HELDOUT3, heldout
    from studies.intent import paired, read_sets, score

    _, targets = read_sets({"heldout3": heldout(HELDOUT3)}, (), _readings())
    out = {name: {form: score(heldout(HELDOUT3, form), targets[name].__getitem__) for form in ("idiom", "memory")}
           for name in READINGS}
    right = {name: [targets[name][q][:1] == [lab] for q, lab in heldout(HELDOUT3)] for name in READINGS}
    return {**out, "paired_top1": paired(*(right[name] for name in reversed(READINGS)))}


#: What the written table says of itself, beside its glosses.
ABOUT = {"source": "Open English WordNet (globalwordnet/english-wordnet), its synsets' definitions",
         "licence": "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); WordNet licence (Princeton)",
         "method": f"studies.build_word_glosses: one-word lemmas, the most emotional sense, floor {FLOOR}"}


def main(argv: list[str] | None = None) -> int:
    return gloss_table_command(argv, "python -m studies.build_word_glosses", __doc__,
                               ("wordnet", "a clone or bare git directory of globalwordnet/english-wordnet"),
                               Path(__file__).parents[1] / "tools" / "data" / "word_glosses.json",
                               lambda path: (ABOUT, word_glosses(path)), trial, heldout_scores, "words")


if __name__ == "__main__":
    sys.exit(main())
