"""The emotion words of the offline question reader, drawn from Open English WordNet.

    python -m studies.build_emotion_words --wordnet DIR [--out tools/data/emotion_words.json]

``DIR`` is a clone or bare git directory of github.com/globalwordnet/english-wordnet (Open English WordNet:
CC BY 4.0, derived from Princeton WordNet under the WordNet licence); its YAML sources are read
(``src/yaml/entries-*.yaml`` for senses and their links, ``noun.feeling``, ``adj.all``, ``verb.emotion`` for
synsets).

Method, after WordNet-Affect (Strapparava & Valitutti, 2004, "WordNet-Affect: an affective extension of
WordNet", LREC): each AffectNet-8 emotion is rooted at noun.feeling synsets (``ROOTS``) and every synset
below a root (hyponyms, transitively) takes its label. Labels then spread, for ``ROUNDS`` rounds, along the
sense links derivation, participle, pertainym and also-see to adjectives and verbs ("fury" -> "furious";
"fright" -> "frighten" -> "frightened"), and from a head adjective to its similar satellites ("angry" ->
"livid"). A verb synset still unlabelled then inherits the labels of the labelled verbs above it (its
hypernyms, transitively: "rage" -> "flip one's lid, blow up, hit the roof, fly off the handle"); those count
only for words that no other sense labels, so no earlier word changes or drops. A word keeps a label when all
its labelled synsets agree, it has at most ``MAX_SENSES`` senses in
WordNet (a word such as "take", reached through one sense of dozens, says nothing of a feeling) and it is not
an English stop word. ``MAX_SENSES`` was chosen on the dev questions of ``studies.intent`` (``evals/RESULTS.md``
section 23).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

from evals.data.sources import repository_files

#: AffectNet-8 emotion -> noun.feeling synsets (id, a member word that checks the id still means it).
ROOTS: dict[str, list[tuple[str, str]]] = {
    "neutral": [("07530207-n", "calmness")],
    "happiness": [("07541996-n", "happiness"), ("07542591-n", "joy")],
    "sadness": [("07547828-n", "sadness")],
    "surprise": [("07524811-n", "astonishment")],
    "fear": [("07534492-n", "fear"), ("07539144-n", "anxiety")],
    "disgust": [("07518499-n", "disgust")],
    "anger": [("07531593-n", "anger")],
    "contempt": [("07518219-n", "contempt")],
}
#: Rounds of spreading along sense links (noun -> verb -> participle adjective needs two).
ROUNDS = 3
#: A word with more senses than this in WordNet keeps no label.
MAX_SENSES = 8
#: Sense links a label spreads along.
LINKS = ("derivation", "participle", "pertainym", "also")
_YAML = re.compile(r"(?:^|/)src/yaml/(entries-[^/]+|noun\.feeling|adj\.all|verb\.emotion)\.yaml$")


def read_wordnet(wordnet: Path) -> tuple[dict[str, tuple[str, str, list[str]]], dict[str, dict]]:
    """(senses, synsets) of an Open English WordNet checkout: sense id -> (lemma, synset id, linked sense
    ids) over all entries, and synset id -> its YAML record for the three lexicographer files read.

    Raises:
        FileNotFoundError: ``wordnet`` does not exist or holds none of the YAML sources.
    """
    senses: dict[str, tuple[str, str, list[str]]] = {}
    synsets: dict[str, dict] = {}
    for rel, data in repository_files(wordnet, _YAML):
        records = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if "/entries-" in f"/{rel}":
            for lemma, by_pos in records.items():
                for entry in by_pos.values():
                    for sense in entry.get("sense", []):
                        links = [s for link in LINKS for s in sense.get(link, [])]
                        senses[sense["id"]] = (str(lemma), sense["synset"], links)
        else:
            synsets.update(records)
    if not senses or not synsets:
        raise FileNotFoundError(f"{wordnet}: no Open English WordNet YAML sources (src/yaml/*.yaml)")
    return senses, synsets


def emotion_words(senses: dict[str, tuple[str, str, list[str]]], synsets: dict[str, dict],
                  verb_hyponyms: bool = True) -> dict[str, str]:
    """word (lower case) -> AffectNet-8 emotion, by the method of the module doc (``verb_hyponyms=False``: without
    the labels verbs pass to their hyponyms, the first version).

    Raises:
        ValueError: a root of ``ROOTS`` is missing or no longer has its check word (another WordNet version).
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    below = collections.defaultdict(list)
    for sid, record in synsets.items():
        for parent in record.get("hypernym", []):
            below[parent].append(sid)
    labels: dict[str, set[str]] = collections.defaultdict(set)
    for emotion, roots in ROOTS.items():
        for root, word in roots:
            if word not in synsets.get(root, {}).get("members", []):
                raise ValueError(f"synset {root} is not {word!r} in this WordNet: update ROOTS")
            stack = [root]
            while stack:
                sid = stack.pop()
                labels[sid].add(emotion)
                stack += below[sid]
    for _ in range(ROUNDS):
        spread = collections.defaultdict(set)
        for _lemma, synset, links in senses.values():
            for linked in links:
                if linked not in senses:
                    continue
                other = senses[linked][1]
                if labels.get(synset) and not other.endswith("-n"):
                    spread[other] |= labels[synset]
                if labels.get(other) and not synset.endswith("-n"):
                    spread[synset] |= labels[other]
        for sid, found in spread.items():
            labels[sid] |= found
    inherited: dict[str, set[str]] = collections.defaultdict(set)
    if verb_hyponyms:  # a way of raging is a way of feeling angry: "rage" -> "flip one's lid", "blow up"
        stack = [(sid, frozenset(found)) for sid, found in labels.items() if sid.endswith("-v") and found]
        while stack:
            sid, found = stack.pop()
            for child in below[sid]:
                if child.endswith("-v") and not labels.get(child) and not found <= inherited[child]:
                    inherited[child] |= found
                    stack.append((child, frozenset(inherited[child])))
    for sid, record in synsets.items():
        if sid.endswith("-s"):
            for head in record.get("similar", []):
                labels[sid] |= labels.get(head, set())
    by_word: dict[str, set[str]] = collections.defaultdict(set)
    n_senses: collections.Counter = collections.Counter()
    for lemma, synset, _links in senses.values():
        n_senses[lemma.lower()] += 1
        if labels.get(synset):
            by_word[lemma.lower()] |= labels[synset]
    by_hypernym: dict[str, set[str]] = collections.defaultdict(set)  # for words no other sense labels
    for lemma, synset, _links in senses.values():
        if inherited.get(synset) and lemma.lower() not in by_word:
            by_hypernym[lemma.lower()] |= inherited[synset]
    by_word.update(by_hypernym)
    return {w: next(iter(found)) for w, found in sorted(by_word.items())
            if len(found) == 1 and n_senses[w] <= MAX_SENSES and w not in ENGLISH_STOP_WORDS}


def _commit(wordnet: Path) -> str:
    """The checked-out commit of ``wordnet`` (a work tree or bare git directory), or "unknown"."""
    git = ["git", "--git-dir", str(wordnet)] if (wordnet / "objects").is_dir() else ["git", "-C", str(wordnet)]
    done = subprocess.run([*git, "rev-parse", "--short", "HEAD"], check=False, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def wordnet_provenance(wordnet: Path, method: str) -> dict[str, str]:
    """The ``source``, ``licence`` and ``method`` fields of a word list drawn from the Open English WordNet checkout
    ``wordnet`` by the study ``method`` (its commit read by ``_commit``)."""
    return {"source": f"Open English WordNet (github.com/globalwordnet/english-wordnet, commit {_commit(wordnet)})",
            "licence": "CC BY 4.0 (Open English WordNet) and the WordNet licence (Princeton WordNet)",
            "method": method}


def wordnet_arguments(argv: list[str] | None, module: str, doc: str, out_name: str) -> argparse.Namespace:
    """The arguments of a study that draws a word list from Open English WordNet (``module``, its module ``doc``):
    ``--wordnet`` (a checkout) and ``--out`` (default ``tools/data/<out_name>``). Exits 2 with argparse's usage line
    on bad arguments."""
    ap = argparse.ArgumentParser(prog=f"python -m {module}", description=doc.split("\n\n")[0])
    ap.add_argument("--wordnet", type=Path, required=True,
                    help="a clone or bare git directory of github.com/globalwordnet/english-wordnet")
    ap.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "tools" / "data" / out_name)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = wordnet_arguments(argv, "studies.build_emotion_words", __doc__, "emotion_words.json")
    try:
        words = emotion_words(*read_wordnet(args.wordnet))
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    record = {**wordnet_provenance(args.wordnet, "studies.build_emotion_words"), "words": words}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(words)} words to {args.out}: {dict(collections.Counter(words.values()))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
