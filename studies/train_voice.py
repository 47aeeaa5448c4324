"""Train the vocal emotion head (``tools.perception.voice_emotion``) on RAVDESS speech, split by actor.

    python -m studies.train_voice [--out tools/models/voice8_head.npz] [--json report.json]
    python -m studies.train_voice --band-limited      # tools/models/voice8_narrowband_head.npz
    python -m studies.train_voice --speaker-baseline [--band-limited]   # tools/models/voice8_speaker*_head.npz

Data: RAVDESS speech (``evals.data.assemble``; Livingstone & Russo, 2018, CC BY-NC-SA 4.0), 1,440
clips of 24 actors, labels from the file names; calm is read as neutral. Dev = actors 1-18 (1,080
clips), test = actors 19-24 (360 clips, 3 male, 3 female), never used for fitting or choosing.
C is chosen from ``C_GRID`` by 6-fold cross-validation grouped by actor on the dev split, the head
refitted on the whole dev split, then scored once on the test actors (accuracy, macro-F1, per-class).
Features are cached under ``<data>/crops/ravdess_voice.npz``. ``--band-limited`` trains the head for speech
recorded at 8 kHz the same way on every clip resampled to 8 kHz and back to 16 kHz (``scipy.signal.resample_poly``:
what a telephone-band recording keeps), cached as ``ravdess_voice_narrowband.npz``, and scores its test actors
band-limited too.

``--speaker-baseline`` trains the head that reads a clip's departure from its speaker's baseline
(``tools.perception.voice_baseline``; default ``--out`` ``voice8_speaker_head.npz``, with ``--band-limited``
``voice8_speaker_narrowband_head.npz``): its rows are each clip's features minus the mean of a baseline of the same
actor's clips, drawn as a video would give one (``departure_rows``: the actor's calm and neutral clips with k clips of
each other emotion, k in ``BASELINE_MIXES``, each mix drawn twice, seed 1), since a head fitted against the mean of
all an actor's clips reads far worse against a mostly calm baseline (``evals/RESULTS.md`` section 133). C is chosen
by the same grouped CV, each left-out actor read against the four baselines of ``SCORED_MIXES`` (one draw, seed 2),
the mean accuracy over them; the test actors are scored the same way.
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
from tools.perception.voice_emotion import (
    VOICE8_HEAD,
    VOICE8_NARROWBAND_HEAD,
    VOICE8_SPEAKER_HEAD,
    VOICE8_SPEAKER_NARROWBAND_HEAD,
    VoiceEmotion,
    voice_features,
)

C_GRID = (0.01, 0.03, 0.1, 0.3)
#: The baselines the speaker head learns from: the actor's calm and neutral clips and k clips of each other emotion
#: (None: all the actor's clips).
BASELINE_MIXES = (0, 1, 2, 4, None)
#: The baselines a speaker head is scored against (the same forms).
SCORED_MIXES = (0, 1, 2, None)


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


def own_baseline(x: np.ndarray, people: np.ndarray, z: bool = False, reference: np.ndarray | None = None
                 ) -> np.ndarray:
    """Feature rows (N, D) minus the mean of their person's rows (divided by their standard deviation + 1e-6 with
    ``z``): the departure from that person's usual voice. A person with one row gets zeros. With ``reference`` (N,
    bool), the mean (and deviation) of the person's reference rows only (all their rows when they have none)."""
    x = np.asarray(x, np.float64)
    out = x.copy()
    for person in dict.fromkeys(people.tolist()):
        mine = people == person
        ref = mine & reference if reference is not None and (mine & reference).any() else mine
        out[mine] -= x[ref].mean(axis=0)
        if z:
            out[mine] /= x[ref].std(axis=0) + 1e-6
    return out


def baseline_reference(y: np.ndarray, people: np.ndarray, k: int | None, rng: np.random.Generator) -> np.ndarray:
    """(N,) bool: the clips of each person's baseline: their neutral (and calm) clips and ``k`` clips drawn from each
    other emotion they have (all of them when fewer); every clip when ``k`` is None."""
    neutral = AFFECTNET8.index("neutral")
    ref = np.ones(len(y), bool) if k is None else y == neutral
    for person in dict.fromkeys(people.tolist()) if k else ():
        for label in sorted(set(y[(people == person) & (y != neutral)].tolist())):
            pool = np.flatnonzero((people == person) & (y == label))
            ref[rng.choice(pool, min(k, len(pool)), replace=False)] = True
    return ref


def departure_rows(x: np.ndarray, y: np.ndarray, people: np.ndarray, mixes: tuple[int | None, ...], draws: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Rows (N * len(mixes) * draws, D): each clip's features minus the mean of its person's baseline
    (``baseline_reference``), for every mix ``k`` in ``mixes``, ``draws`` times; with their labels."""
    rows = [own_baseline(x, people, reference=baseline_reference(y, people, k, rng))
            for k in mixes for _ in range(draws)]
    return np.concatenate(rows), np.tile(y, len(mixes) * draws)


def speaker_accuracy(head: LinearHead, x: np.ndarray, y: np.ndarray, people: np.ndarray) -> dict[str, float]:
    """Accuracy of a speaker head on clips read against each baseline of ``SCORED_MIXES`` (one draw, seed 2), and
    their mean."""
    rng = np.random.default_rng(2)
    out = {f"k={k}": float((head.probs(departure_rows(x, y, people, (k,), 1, rng)[0]).argmax(1) == y).mean())
           for k in SCORED_MIXES}
    return {**{k: round(v, 4) for k, v in out.items()}, "mean": round(float(np.mean(list(out.values()))), 4)}


def train_speaker(out: Path, d: dict[str, np.ndarray], dev: np.ndarray, c_fixed: float | None) -> dict:
    """The speaker-baseline head (module doc): C by grouped CV on ``dev``, refit, written to ``out``; the report."""
    from sklearn.model_selection import GroupKFold

    x, y, g = d["x"][dev].astype(np.float64), d["y"][dev], d["actor"][dev]
    cv = []
    for c in () if c_fixed is not None else C_GRID:
        scores = []
        for tr, va in GroupKFold(n_splits=6).split(x, y, g):
            rows = departure_rows(x[tr], y[tr], g[tr], BASELINE_MIXES, 2, np.random.default_rng(1))
            head = LinearHead(fit_head(*rows, c))
            scores.append(speaker_accuracy(head, x[va], y[va], g[va])["mean"])
        cv.append({"C": c, "cv_accuracy": round(float(np.mean(scores)), 4)})
        print(json.dumps(cv[-1]), flush=True)
    best = {"C": c_fixed} if c_fixed is not None else max(cv, key=lambda r: r["cv_accuracy"])
    save_head(out, fit_head(*departure_rows(x, y, g, BASELINE_MIXES, 2, np.random.default_rng(1)), best["C"]))
    test = d["split"] == "test"
    return {"speaker_baseline": True, "mixes": list(BASELINE_MIXES), "cv": cv, "C": best["C"], "n_dev": int(dev.sum()),
            "n_test": int(test.sum()), "test_accuracy": speaker_accuracy(
                LinearHead.load(out), d["x"][test].astype(np.float64), d["y"][test], d["actor"][test])}


def train(out: Path, root: Path | None = None, without_fusion_fold: bool = False,
          c_fixed: float | None = None, band_limited: bool = False, speaker_baseline: bool = False) -> dict:
    """Choose C by actor-grouped CV on dev (or take ``c_fixed``), refit on dev (without the fusion fold's
    actors when asked, ``evals.data.assemble.in_fusion_fold``), write ``out``; returns the report with test scores.
    ``speaker_baseline``: the head over departures from a speaker's baseline (``train_speaker``)."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    d = ravdess_features(root, band_limited)
    dev, test = d["split"] == "dev", d["split"] == "test"
    if without_fusion_fold:
        dev &= ~np.asarray([in_fusion_fold("ravdess", {"split": s, "person": f"A{a:02d}"})
                            for s, a in zip(d["split"], d["actor"], strict=True)])
    if speaker_baseline:
        return {"band_limited": band_limited, **train_speaker(out, d, dev, c_fixed)}
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
    ap.add_argument("--speaker-baseline", action="store_true",
                    help="the head over departures from a speaker's baseline (default --out "
                         f"{VOICE8_SPEAKER_HEAD.name}, "
                         f"with --band-limited {VOICE8_SPEAKER_NARROWBAND_HEAD.name})")
    args = ap.parse_args(argv)
    out = args.out
    if args.out == VOICE8_HEAD:
        out = {(False, True): VOICE8_NARROWBAND_HEAD, (True, False): VOICE8_SPEAKER_HEAD,
               (True, True): VOICE8_SPEAKER_NARROWBAND_HEAD}.get((args.speaker_baseline, args.band_limited), out)
    return report(lambda: train(out, args.data, args.without_fusion_fold, args.c, args.band_limited,
                                args.speaker_baseline), args.json)


if __name__ == "__main__":
    sys.exit(main())
