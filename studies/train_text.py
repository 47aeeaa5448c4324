"""Train the words' emotion head (``tools.perception.text_emotion.WORDS8_HEAD``) on MELD's spoken utterances.

    python -m studies.train_text [--encoder minilm|use-multilingual] [--out HEAD.npz] [--json report.json]

Data: MELD text (``evals.data.assemble --source meld=DIR``; Poria et al., 2019, ACL): 13,708 utterances
of the TV series Friends, each with the majority label of three annotators, seven classes (MELD has no
contempt). Features: the shipped sentence encoder's vectors (all-MiniLM-L6-v2, 384-d), cached under
``<data>/crops/meld_text.npz``. MELD's own split (its main speakers appear in all parts, so no person
split is possible): C is chosen from ``C_GRID`` by macro-F1 on MELD dev after fitting on MELD train, the
head is refitted on train + dev, then scored once on MELD test (2,610 utterances): accuracy, weighted F1
(MELD's own metric), macro-F1 and per class, beside the zero-shot lexicon scorer it replaces
(``TextEmotion.lexicon_distribution``) on the same utterances.

``--encoder use-multilingual`` trains the same head over the multilingual Universal Sentence Encoder's
vectors (512-d; ``tools.perception.text.MultilingualUSEEncoder``; cached under ``meld_text_use``) and writes
``WORDS8_USE_HEAD``: English training text, read in any of the encoder's languages (``studies.xed`` measures
that on subtitles in other languages).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root
from studies.command import report
from studies.heads import cached_set_features, fit_linear_head, save_head
from tools.core.schema import AFFECTNET8
from tools.perception.heads import LinearHead
from tools.perception.text_emotion import WORDS8_HEADS, load_text_emotion

C_GRID = (0.0003, 0.001, 0.003, 0.01, 0.03, 0.1)


#: Feature cache name of each encoder (its head file: ``tools.perception.text_emotion.WORDS8_HEADS``).
FEATURE_CACHES = {"minilm": "meld_text", "use-multilingual": "meld_text_use"}


def meld_features(root: Path | None = None, encoder: str = "minilm") -> dict[str, np.ndarray]:
    """``x`` (N, D) sentence vectors of ``encoder`` (``tools.perception.text.load_transcript_encoder``; D 384 for
    minilm, 512 for use-multilingual), ``y`` AffectNet-8 index, ``fold`` (train / val / test) and ``text`` of
    every MELD utterance (cached)."""
    from tools.perception.text import load_transcript_encoder

    def compute(recs: list[dict]) -> dict[str, np.ndarray]:
        return {"x": load_transcript_encoder(encoder).encode([r["text"] for r in recs]).astype(np.float32),
                "y": np.asarray([AFFECTNET8.index(r["label"]) for r in recs]),
                "fold": np.asarray([r.get("fold", r["split"]) for r in recs]),
                "text": np.asarray([r["text"] for r in recs])}

    return cached_set_features(root or default_root(), "meld", FEATURE_CACHES[encoder], compute)


def fit_head(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, np.ndarray]:
    """Class-balanced multinomial logistic regression over standardised sentence vectors (``studies.heads``)."""
    return fit_linear_head(x, y, c, class_weight="balanced", max_iter=3000)


def scores(y: np.ndarray, pred: np.ndarray) -> dict:
    """Accuracy, weighted and macro F1 and per-class recall of predictions ``pred`` against ``y``."""
    from sklearn.metrics import f1_score

    classes = sorted(set(y.tolist()))
    return {"accuracy": round(float((pred == y).mean()), 4),
            "weighted_f1": round(float(f1_score(y, pred, labels=classes, average="weighted")), 4),
            "macro_f1": round(float(f1_score(y, pred, labels=classes, average="macro")), 4),
            "per_class": {AFFECTNET8[c]: round(float((pred[y == c] == c).mean()), 4) for c in classes}}


def train(out: Path, root: Path | None = None, encoder: str = "minilm") -> dict:
    """Choose C on MELD dev, refit on train + dev, write ``out``; returns the report with the test scores of
    the head and of the lexicon scorer."""
    from sklearn.metrics import f1_score

    d = meld_features(root, encoder)
    tr, va, te = d["fold"] == "train", d["fold"] == "val", d["fold"] == "test"
    grid = []
    for c in C_GRID:
        pred = LinearHead(fit_head(d["x"][tr], d["y"][tr], c)).probs(d["x"][va]).argmax(1)
        grid.append({"C": c, "dev_macro_f1": round(float(f1_score(d["y"][va], pred, average="macro")), 4)})
        print(grid[-1], flush=True)
    best = max(grid, key=lambda r: r["dev_macro_f1"])["C"]
    dev = tr | va
    save_head(out, fit_head(d["x"][dev], d["y"][dev], best))
    head = LinearHead.load(out)
    yt = d["y"][te]
    lexicon = load_text_emotion()
    lex = np.asarray([[p[k] for k in AFFECTNET8] for p in map(lexicon.lexicon_distribution, d["text"][te].tolist())])
    return {"data": "MELD text (Poria et al., 2019); fit on train + dev, C chosen on dev", "encoder": encoder,
            "grid": grid, "C": best,
            "n_fit": int(dev.sum()), "n_test": int(te.sum()),
            "majority_class_accuracy": round(float((yt == np.bincount(d["y"][dev]).argmax()).mean()), 4),
            "words8": scores(yt, head.probs(d["x"][te]).argmax(1)),
            "lexicon": scores(yt, lex.argmax(1))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_text", description=__doc__.split("\n\n")[0])
    ap.add_argument("--encoder", choices=sorted(WORDS8_HEADS), default="minilm",
                    help="sentence encoder the head reads (default minilm)")
    ap.add_argument("--out", type=Path, default=None, help="head file (default: the shipped one of --encoder)")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None, help="write the report here too")
    args = ap.parse_args(argv)
    return report(lambda: train(args.out or WORDS8_HEADS[args.encoder], args.data, args.encoder), args.json)


if __name__ == "__main__":
    sys.exit(main())
