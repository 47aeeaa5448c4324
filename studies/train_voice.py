"""Train the vocal emotion head (``tools.perception.voice_emotion``) on RAVDESS speech, split by actor.

    python -m studies.train_voice [--out tools/models/voice8_head.npz] [--json report.json]
    python -m studies.train_voice --band-limited      # tools/models/voice8_narrowband_head.npz

Data: RAVDESS speech (``evals.data.assemble``; Livingstone & Russo, 2018, CC BY-NC-SA 4.0), 1,440
clips of 24 actors, labels from the file names; calm is read as neutral. Dev = actors 1-18 (1,080
clips), test = actors 19-24 (360 clips, 3 male, 3 female), never used for fitting or choosing.
C is chosen from ``C_GRID`` by 6-fold cross-validation grouped by actor on the dev split, the head
refitted on the whole dev split, then scored once on the test actors (accuracy, macro-F1, per-class).
Features are cached under ``<data>/crops/ravdess_voice.npz``. ``--band-limited`` trains the head for speech
recorded at 8 kHz the same way on every clip resampled to 8 kHz and back to 16 kHz (``scipy.signal.resample_poly``:
what a telephone-band recording keeps), cached as ``ravdess_voice_narrowband.npz``, and scores its test actors
band-limited too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, in_fusion_fold
from studies.command import report
from studies.heads import cached_set_features, fit_linear_head, save_head
from tools.core.schema import AFFECTNET8
from tools.perception.heads import LinearHead
from tools.perception.voice_emotion import VOICE8_HEAD, VOICE8_NARROWBAND_HEAD, VoiceEmotion, voice_features

C_GRID = (0.01, 0.03, 0.1, 0.3)


def ravdess_features(root: Path | None = None, band_limited: bool = False) -> dict[str, np.ndarray]:
    """``x`` (N, 252) features, ``y`` AffectNet-8 index, ``actor`` (int), ``split`` of every RAVDESS clip (cached);
    with ``band_limited``, of each clip resampled to 8 kHz and back (module doc)."""
    from scipy.signal import resample_poly

    from tools.core.media import load_audio

    def audio(path: str) -> np.ndarray:
        return resample_poly(load_audio(path, 8_000), 2, 1).astype(np.float32) if band_limited else load_audio(path, 16_000)

    def compute(recs: list[dict]) -> dict[str, np.ndarray]:
        return {"x": np.stack([voice_features(audio(r["path"])) for r in recs]),
                "y": np.asarray([AFFECTNET8.index(r["label"]) for r in recs]),
                "actor": np.asarray([int(r["person"][1:]) for r in recs]),
                "split": np.asarray([r["split"] for r in recs])}

    return cached_set_features(root or default_root(), "ravdess", "ravdess_voice_narrowband" if band_limited
                               else "ravdess_voice", compute)


def fit_head(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, np.ndarray]:
    """Class-balanced multinomial logistic regression over standardised features (``studies.heads``)."""
    return fit_linear_head(x, y, c, class_weight="balanced", max_iter=2000)


def train(out: Path, root: Path | None = None, without_fusion_fold: bool = False,
          c_fixed: float | None = None, band_limited: bool = False) -> dict:
    """Choose C by actor-grouped CV on dev (or take ``c_fixed``), refit on dev (without the fusion fold's
    actors when asked, ``evals.data.assemble.in_fusion_fold``), write ``out``; returns the report with test scores."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    d = ravdess_features(root, band_limited)
    dev, test = d["split"] == "dev", d["split"] == "test"
    if without_fusion_fold:
        dev &= ~np.asarray([in_fusion_fold("ravdess", {"split": s, "person": f"A{a:02d}"})
                            for s, a in zip(d["split"], d["actor"], strict=True)])
    x, y, g = d["x"][dev], d["y"][dev], d["actor"][dev]
    cv = []
    for c in () if c_fixed is not None else C_GRID:
        accs = [float((LinearHead(fit_head(x[tr], y[tr], c)).probs(x[va]).argmax(1) == y[va]).mean())
                for tr, va in GroupKFold(n_splits=6).split(x, y, g)]
        cv.append({"C": c, "cv_accuracy": round(float(np.mean(accs)), 4)})
        print(json.dumps(cv[-1]), flush=True)
    best = {"C": c_fixed} if c_fixed is not None else max(cv, key=lambda r: r["cv_accuracy"])
    save_head(out, fit_head(x, y, best["C"]))
    pred, yt = VoiceEmotion(out).predict_features(d["x"][test]).argmax(1), d["y"][test]
    classes = sorted(set(yt.tolist()))
    return {"band_limited": band_limited, "cv": cv, "C": best["C"], "n_dev": int(dev.sum()), "n_test": int(test.sum()),
            "test_accuracy": round(float((pred == yt).mean()), 4),
            "test_macro_f1": round(float(f1_score(yt, pred, labels=classes, average="macro")), 4),
            "test_per_class": {AFFECTNET8[c]: round(float((pred[yt == c] == c).mean()), 4) for c in classes},
            "chance": round(1 / len(classes), 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_voice", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=VOICE8_HEAD)
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None, help="write the report here too")
    ap.add_argument("--without-fusion-fold", action="store_true",
                    help="leave out the fusion fold's actors (a head for fitting the fusion; studies.fit_fusion)")
    ap.add_argument("--c", type=float, default=None, help="use this C instead of choosing it by cross-validation")
    ap.add_argument("--band-limited", action="store_true",
                    help=f"the head for speech recorded at 8 kHz (default --out {VOICE8_NARROWBAND_HEAD.name})")
    args = ap.parse_args(argv)
    out = VOICE8_NARROWBAND_HEAD if args.band_limited and args.out == VOICE8_HEAD else args.out
    return report(lambda: train(out, args.data, args.without_fusion_fold, args.c, args.band_limited), args.json)


if __name__ == "__main__":
    sys.exit(main())
