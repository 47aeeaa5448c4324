"""Why the voice head hears anger in recorded speech, and what a speaker's own baseline does about it.

    python -m studies.voice_baseline [--mirrors /work/.mirror] [--json OUT]

The shipped voice head (``tools/models/VOICE8.md``) reads the Javanese development people's recorded speech
(``evals.data.javanese``: 120 clips of 5 people, acted in Javanese, recorded on another microphone and gain than
RAVDESS's studio) mostly as anger. Its features include absolute levels (the loudness statistics, the mean log-mel
energy per band), and those clips sound about 17 dB louder than RAVDESS's (the median active level below), as
anger does in RAVDESS. Three ways to read a voice are compared, each head of the shipped form
(``studies.train_voice.fit_head``, C = 0.03) fitted on RAVDESS's development actors 1-18:

- ``as shipped``: ``voice_features`` of the clip as recorded;
- ``levelled``: of the clip scaled to ``LEVEL_DBFS`` of active level first (``levelled``), so no level is absolute;
- ``own baseline``: the clip's features minus the mean of its person's clips (``own_baseline``; RAVDESS: the actor's,
  Javanese: the person's 24 clips, their own clip among them), so the head reads how a voice departs from that
  person's usual voice (the baseline of issue 32, "a person's own baseline over the video"); ``own baseline, z``: also
  divided by the person's standard deviation; ``neutral baseline``: minus the mean of the person's neutral clips
  only (RAVDESS's neutral and calm, the Javanese neutral ones). And between the two (``mostly_calm``): the
  ``own baseline`` head reading the Javanese clips against the mean of the person's calm clips and one or two
  clips of each other emotion drawn at random, the baseline a mostly calm speaker heard in varied moods gives.

Then the head that ships (``voice8-speaker``, ``studies.train_voice --speaker-baseline``) and why it is fitted as it
is (``speaker_heads``): heads fitted against three kinds of baseline (the mean of all the actor's clips; of their
neutral and calm clips; the shipped mixes of ``studies.train_voice.BASELINE_MIXES``) each read clips against four
(``SCORED_MIXES``: the person's neutral clips and k = 0, 1, 2 of each other emotion, or all their clips); and how
many clips a baseline needs (``baseline_sizes``: each Javanese clip read against itself and n - 1 random clips of the
same person, 20 draws), which sets ``tools.perception.voice_baseline.MIN_BASELINE_CLIPS``.

Scored: RAVDESS's development actors by 6-fold cross-validation grouped by actor (how ``studies.train_voice``
chooses), and the Javanese development clips (nobody of them in any fit); 95 % intervals by bootstrap over people,
and each way's paired difference from ``as shipped`` on the Javanese clips. Every person of both sets acted every
emotion, so a person's mean is the middle of their range: a video's speaker, mostly calm, gives a baseline nearer
their neutral voice, and one with a single clip gives none.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from studies.command import report
from studies.train_voice import own_baseline
from studies.vocal_bursts import C, share
from tools.core.schema import AFFECTNET8

#: Active level every clip is scaled to in ``levelled`` (dBFS; EBU R 128's programme loudness target, -23 LUFS).
LEVEL_DBFS = -23.0
WAYS = ("as shipped", "levelled", "own baseline", "own baseline, z", "neutral baseline")


def active_level(audio: np.ndarray, sample_rate: int = 16_000) -> float:
    """RMS level (dBFS) of the 10-ms frames ``voice_features`` calls active
    (``tools.perception.voice_emotion.active_frames``)."""
    from tools.perception.voice_emotion import active_frames

    _, active = active_frames(audio, sample_rate)
    frames = np.asarray(audio[: len(active) * (sample_rate // 100)], np.float64).reshape(len(active), -1)
    return float(10 * np.log10((frames[active] ** 2).mean() + 1e-12))


def levelled(audio: np.ndarray, sample_rate: int = 16_000) -> np.ndarray:
    """``audio`` scaled so that its ``active_level`` is ``LEVEL_DBFS`` (float32, samples may exceed 1)."""
    gain = 10 ** ((LEVEL_DBFS - active_level(audio, sample_rate)) / 20)
    return (np.asarray(audio, np.float64) * gain).astype(np.float32)


def read_sets(mirrors: Path) -> dict[str, dict[str, np.ndarray]]:
    """RAVDESS's development actors and the Javanese development clips: features as recorded (``x``) and levelled
    (``x_levelled``), labels, people, and each clip's active level (dBFS)."""
    from evals.data.assemble import default_root, load_manifest
    from studies.vocal_bursts import javanese_dev_audio
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import voice_features

    def read(items) -> dict[str, np.ndarray]:
        cols: dict[str, list] = {"x": [], "x_levelled": [], "y": [], "person": [], "level": []}
        for audio, label, person in items:
            for key, value in (("x", voice_features(audio)), ("x_levelled", voice_features(levelled(audio))),
                               ("y", AFFECTNET8.index(label)), ("person", person), ("level", active_level(audio))):
                cols[key].append(value)
        return {k: np.asarray(v) for k, v in cols.items()}

    ravdess = [(load_audio(r["path"], 16_000), r["label"], r["person"])
               for r in load_manifest(default_root(), "ravdess", "dev")]
    return {"ravdess": read(ravdess), "javanese": read(javanese_dev_audio(mirrors))}


def features(d: dict[str, np.ndarray], way: str) -> np.ndarray:
    """The rows a way reads (``WAYS``)."""
    if way == "levelled":
        return d["x_levelled"]
    if way == "neutral baseline":
        return own_baseline(d["x"], d["person"], reference=d["y"] == AFFECTNET8.index("neutral"))
    if way.startswith("own baseline"):
        return own_baseline(d["x"], d["person"], z=way.endswith("z"))
    return d["x"]


def mostly_calm(rav: dict[str, np.ndarray], jav: dict[str, np.ndarray], others: tuple[int, ...] = (1, 2),
                draws: int = 20) -> dict[str, dict]:
    """The Javanese clips read by the ``own baseline`` head (fitted on RAVDESS minus each actor's mean) against a
    baseline a mostly calm speaker would give: the mean of the person's calm clips and ``k`` clips of each other
    emotion drawn at random (seed 0), ``draws`` times for each ``k`` in ``others``. Per ``k``: the clips in each
    person's baseline, the share of calm ones, and the clips right per draw (mean, least, most)."""
    from studies.train_voice import baseline_reference, fit_head
    from tools.perception.heads import LinearHead

    head = LinearHead(fit_head(own_baseline(rav["x"], rav["person"]), rav["y"], C))
    calm, rng, out = jav["y"] == AFFECTNET8.index("neutral"), np.random.default_rng(0), {}
    for k in others:
        right = []
        for _ in range(draws):
            reference = baseline_reference(jav["y"], jav["person"], k, rng)
            pred = head.probs(own_baseline(jav["x"], jav["person"], reference=reference)).argmax(1)
            right.append(int((pred == jav["y"]).sum()))
        person = jav["person"] == jav["person"][0]
        size = int((calm & person).sum()) + k * len(set(jav["y"][person & ~calm].tolist()))
        out[f"{k} of each other emotion"] = {"baseline_clips": size,
                                             "calm_share": round(int((calm & person).sum()) / size, 3),
                                             "right": [round(float(np.mean(right)), 2), min(right), max(right)]}
    return out


def speaker_heads(rav: dict[str, np.ndarray], jav: dict[str, np.ndarray]) -> dict[str, dict]:
    """Per way of fitting (module doc): RAVDESS accuracy by 6-fold CV by actor against each scored baseline (one draw,
    seed 2 per fold), and the Javanese clips right against each (mean over 10 draws, seeds 100-109, where the
    baseline is drawn)."""
    from sklearn.model_selection import GroupKFold

    from studies.train_voice import BASELINE_MIXES, SCORED_MIXES, departure_rows, fit_head
    from tools.perception.heads import LinearHead

    x, y, g = rav["x"].astype(np.float64), rav["y"], rav["person"]
    xj = jav["x"].astype(np.float64)
    out = {}
    for way, mixes in (("all clips", (None,)), ("neutral clips", (0,)), ("mixes (shipped)", BASELINE_MIXES)):
        draws = 2 if len(mixes) > 1 else 1
        cv = {k: [] for k in SCORED_MIXES}
        for tr, va in GroupKFold(n_splits=6).split(x, y, g):
            head = LinearHead(fit_head(*departure_rows(x[tr], y[tr], g[tr], mixes, draws, np.random.default_rng(1)), C))
            for k in SCORED_MIXES:
                rows = departure_rows(x[va], y[va], g[va], (k,), 1, np.random.default_rng(2))[0]
                cv[k].append(float((head.probs(rows).argmax(1) == y[va]).mean()))
        head = LinearHead(fit_head(*departure_rows(x, y, g, mixes, draws, np.random.default_rng(1)), C))
        jav_right = {}
        for k in SCORED_MIXES:
            right = [int((head.probs(departure_rows(xj, jav["y"], jav["person"], (k,), 1,
                                                    np.random.default_rng(100 + d))[0]).argmax(1) == jav["y"]).sum())
                     for d in range(10 if k else 1)]
            jav_right[f"k={k}"] = round(float(np.mean(right)), 1)
        out[way] = {"ravdess_cv": {f"k={k}": round(float(np.mean(v)), 3) for k, v in cv.items()},
                    "javanese_right": jav_right}
    return out


def baseline_sizes(rav: dict[str, np.ndarray], jav: dict[str, np.ndarray], sizes=(1, 2, 3, 4, 6, 8, 12, 24),
                   draws: int = 20) -> dict[str, list]:
    """The shipped recipe's head (``speaker_heads``' mixes) reading each Javanese clip against the mean of itself and
    ``n - 1`` other clips of the same person drawn at random (seed = draw), for each ``n``: clips right (mean, least,
    most over ``draws``); ``voice8``: the shipped head without a baseline."""
    from studies.train_voice import BASELINE_MIXES, departure_rows, fit_head
    from tools.perception.heads import LinearHead
    from tools.perception.voice_emotion import load_voice_emotion

    head = LinearHead(fit_head(*departure_rows(rav["x"].astype(np.float64), rav["y"], rav["person"], BASELINE_MIXES,
                                               2, np.random.default_rng(1)), C))
    x, y, people = jav["x"].astype(np.float64), jav["y"], jav["person"]
    plain = load_voice_emotion("voice8").predict_features(jav["x"]).argmax(1)
    out: dict[str, list] = {"voice8": [int((plain == y).sum())]}
    for n in sizes:
        right = []
        for d in range(draws):
            rng, pred = np.random.default_rng(d), np.empty(len(y), int)
            for i in range(len(y)):
                pool = np.flatnonzero((people == people[i]) & (np.arange(len(y)) != i))
                ref = np.concatenate([[i], rng.choice(pool, n - 1, replace=False)]) if n > 1 else np.array([i])
                pred[i] = head.probs((x[i] - x[ref].mean(0))[None])[0].argmax()
            right.append(int((pred == y).sum()))
        out[str(n)] = [round(float(np.mean(right)), 2), min(right), max(right)]
    return out


def evaluate(mirrors: Path) -> dict:
    """The study's report (module doc)."""
    from collections import Counter

    from sklearn.model_selection import GroupKFold

    from studies.train_voice import fit_head
    from tools.perception.heads import LinearHead

    sets = read_sets(mirrors)
    rav, jav = sets["ravdess"], sets["javanese"]
    out: dict = {"ravdess": {"clips": len(rav["y"]), "median_level_dbfs": round(float(np.median(rav["level"])), 1)},
                 "javanese": {"clips": len(jav["y"]), "median_level_dbfs": round(float(np.median(jav["level"])), 1)},
                 "C": C, "level_dbfs": LEVEL_DBFS, "ways": {}}
    shipped_right = None
    for way in WAYS:
        x, xj = features(rav, way), features(jav, way)
        pred = np.empty(len(rav["y"]), int)
        for tr, va in GroupKFold(n_splits=6).split(x, rav["y"], rav["person"]):
            pred[va] = LinearHead(fit_head(x[tr], rav["y"][tr], C)).probs(x[va]).argmax(1)
        on_jav = LinearHead(fit_head(x, rav["y"], C)).probs(xj).argmax(1)
        right = on_jav == jav["y"]
        shipped_right = right if shipped_right is None else shipped_right
        out["ways"][way] = {
            "ravdess_cv": share(pred == rav["y"], rav["person"]), "javanese": share(right, jav["person"]),
            "javanese_paired_difference": share(right.astype(float) - shipped_right, jav["person"]),
            "javanese_right": int(right.sum()),
            "javanese_read_as": Counter(AFFECTNET8[k] for k in on_jav).most_common(),
            "javanese_per_label": {AFFECTNET8[k]: int(right[jav["y"] == k].sum()) for k in sorted(set(jav["y"]))}}
        print(f"{way}: RAVDESS CV {out['ways'][way]['ravdess_cv'][0]:.3f}, Javanese {right.sum()} of {len(right)}",
              file=sys.stderr)
    out["mostly_calm_baselines"] = mostly_calm(rav, jav)
    out["speaker_heads"] = speaker_heads(rav, jav)
    out["baseline_sizes"] = baseline_sizes(rav, jav)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.voice_baseline", description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                    help="the fetched repositories (2black0+video-emotion-recognition-javanese)")
    ap.add_argument("--json", type=Path, help="write the report here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.mirrors), args.json, echo=False)


if __name__ == "__main__":
    sys.exit(main())
