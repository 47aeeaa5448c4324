"""Reading the emotion of words in other languages: the words8 heads on emotion-annotated film subtitles.

    python -m studies.xed --xed DIR [--split dev|test] [--json FILE]

Material: XED (Öhman et al., 2020, "XED: A Multilingual Dataset for Sentiment Analysis and Emotion
Detection", COLING; CC BY 4.0; a checkout of github.com/Helsinki-NLP/XED as ``DIR``): film subtitle lines
labelled with Plutchik's eight emotions, by annotators in English (``AnnotatedData/en-annotated.tsv``) and,
in other languages, by projecting those labels onto the aligned subtitles of the same films
(``Projections/<lang>-projections.tsv``). Kept: lines with a single label among the six that AffectNet-8
shares (``XED_LABELS``: anger, disgust, fear, joy read as happiness, sadness, surprise); anticipation and
trust have no AffectNet-8 counterpart.

Split by language (``LANGUAGES``): dev es, fr (where the choice to read other languages with the
multilingual head was made); test de, it, pt, nl, pl, ru, ar, zh; English, with its annotators' own labels,
is reported in both as the reference of what a head trained on MELD reads in subtitles at all.

Readers (``tools.perception.text_emotion.load_text_emotion``): words8 over all-MiniLM-L6-v2 (the English default) and
words8 over the multilingual Universal Sentence Encoder, both trained on MELD's English dialogue
(``studies.train_text``). Scores: accuracy and macro-F1 over the six classes, the prediction being the most
probable of the six (chance 1/6).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.schema import AFFECTNET8

#: XED's label numbers (its README: emotions in alphabetical order) -> AffectNet-8, for the six they share.
XED_LABELS = {1: "anger", 3: "disgust", 4: "fear", 5: "happiness", 6: "sadness", 7: "surprise"}
#: Languages of each split (``tools.perception.text.USE_LANGUAGES`` that XED projects to; en is the annotated reference).
LANGUAGES = {"dev": ("en", "es", "fr"), "test": ("en", "de", "it", "pt", "nl", "pl", "ru", "ar", "zh")}
READERS = ("minilm", "use-multilingual")


def xed_lines(xed: Path, language: str) -> list[tuple[str, str]]:
    """(line, AffectNet-8 label) of the single-label lines of one language whose label is in ``XED_LABELS``.

    Raises:
        FileNotFoundError: ``xed`` has no file for ``language``.
    """
    path = xed / ("AnnotatedData/en-annotated.tsv" if language == "en" else f"Projections/{language}-projections.tsv")
    out = []
    for row in path.read_text(encoding="utf-8").splitlines():
        text, _, labels = row.rpartition("\t")
        codes = {int(c) for c in labels.replace(" ", "").split(",") if c.isdigit()}
        if len(codes) == 1 and (code := codes.pop()) in XED_LABELS and len(text.strip()) > 3:
            out.append((text.strip(), XED_LABELS[code]))
    return out


def evaluate(xed: Path, languages: tuple[str, ...]) -> dict:
    """Six-class accuracy and macro-F1 of each reader in ``READERS`` per language (module doc)."""
    from sklearn.metrics import f1_score

    from tools.perception.text_emotion import load_text_emotion

    six = [AFFECTNET8.index(label) for label in XED_LABELS.values()]
    out = {}
    for language in languages:
        lines = xed_lines(xed, language)
        y = np.asarray([AFFECTNET8.index(label) for _, label in lines])
        row: dict = {"lines": len(lines)}
        for reader in READERS:
            scorer = load_text_emotion(encoder=reader)
            probs = np.asarray([[p[k] for k in AFFECTNET8] for p in
                                scorer.read(scorer.encoder.encode([text for text, _ in lines]))])
            pred = np.asarray(six)[probs[:, six].argmax(axis=1)]
            row[reader] = {"accuracy": round(float((pred == y).mean()), 3),
                           "macro_f1": round(float(f1_score(y, pred, labels=six, average="macro")), 3)}
        out[language] = row
        print(language, row, file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.xed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--xed", type=Path, required=True, help="a checkout of github.com/Helsinki-NLP/XED")
    ap.add_argument("--split", choices=sorted(LANGUAGES), default="dev", help="languages to read (default dev)")
    ap.add_argument("--json", type=Path, default=None, help="write the metrics here")
    args = ap.parse_args(argv)
    if not (args.xed / "Projections").is_dir():
        ap.error(f"{args.xed}: not a checkout of Helsinki-NLP/XED (no Projections/ folder)")
    return report(lambda: {"split": args.split, "material": "XED subtitles, single-label lines of six emotions",
                           **evaluate(args.xed, LANGUAGES[args.split])}, args.json, indent=2)


if __name__ == "__main__":
    sys.exit(main())
