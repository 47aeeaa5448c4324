"""Whisper's encoder as the voice's features: does a head on it read emotion in speech better than voice8?

    python -m studies.voice_whisper --mirrors /work/.mirror --cremad CLIPS [--json OUT]

voice8 (``tools/models/VOICE8.md``) is a linear head over 252 hand-made acoustic statistics; on recorded speech of
people and corpora it was not fitted on it reads little (``evals/RESULTS.md`` sections 45, 62: CREMA-D near chance,
the Javanese clips nearly all anger). Whisper's encoder, trained on 680,000 hours of speech, keeps how a thing is
said as well as what (Whisper encoders rank among the best frozen speech-emotion features across corpora: Ma et
al., 2024, "EmoBox: Multilingual Multi-corpus Speech Emotion Recognition Toolkit and Benchmark"). The project
already ships one: the CTranslate2 tiny.en model the transcription runs (``tools.perception.asr``). Here each clip's
16 kHz speech goes through that encoder once (``WhisperModel.encode`` on the clip's own log-mel frames, not padded to
30 s: 0.05 s for a 3 s clip on one core, against 0.7 s padded), and the 384-d frame outputs are pooled by mean and
standard deviation (768 features).

Sets (development data only; no test split is read): RAVDESS dev actors 1-18 (1,080 clips, ``evals.data.assemble``;
the test actors 19-24 are not read), EMO-DB dev speakers (167 German clips, 4 classes), CREMA-D's 100 recorded clips
(8 kHz speech, ``python -m evals.data.cremad``) and the Javanese development people's 120 clips (their speech, read
from the snapshot under ``--mirrors``).

- ``ravdess_cv``: heads fitted by 6-fold cross-validation grouped by actor on RAVDESS dev (voice8's protocol, its C
  grid), for voice8's features, Whisper's, and both;
- ``other_corpora``: heads fitted on all of RAVDESS dev (C from that cross-validation), read on the other three
  sets: what a user's recording gets from a head fitted on one corpus. Beside them, the shipped voice8 head (fitted
  on RAVDESS dev the same way);
- ``leave_one_corpus_out``: heads fitted on every set but one, read on that one (C 0.03): what fitting on several
  corpora buys a corpus none of them is.

Each feature set is also read relative to the speaker: ``/own`` standardises it by the person's mean and standard
deviation over all their clips (speaker normalisation; in these acted sets a person's clips span the emotions
evenly, a baseline a long video does not give), ``/calm`` subtracts the mean of the person's neutral clips (the
usual voice of a video that is mostly calm). CREMA-D's actors have one or two clips each, so its per-person rows are
left out (``per_person_ok``).

A clip is right when the head's top label over AffectNet-8 is the clip's label; 95 % intervals by bootstrap over
people (``evals.metrics.bootstrap_interval``), and for each Whisper head the paired difference from voice8's head.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.core.schema import AFFECTNET8

#: C grid of the logistic heads (voice8's, ``studies.train_voice.C_GRID``).
C_GRID = (0.01, 0.03, 0.1, 0.3)
#: The sets, in the order they are read and joined.
SETS = ("ravdess", "emodb", "cremad", "javanese_dev")
#: The feature sets compared (``_x``).
FEATURES = ("voice8", "whisper", "voice8+whisper", "voice8/own", "whisper/own", "voice8+whisper/own",
            "voice8/calm", "whisper/calm", "voice8+whisper/calm")
#: Clips a person needs in a set before their usual voice is taken from them (``per_person_ok``).
PER_PERSON_MIN = 8
#: Sample rate the encoder reads.
RATE = 16_000


def speech_features(paths: list[str], extract) -> dict[str, np.ndarray]:
    """voice8's and Whisper's features (``extract``, ``tools.perception.voice_emotion.WhisperVoiceFeatures``) of each
    audio or video file of ``paths``, read at 16 kHz, and ``kept``: the indices of the files with the half second of
    speech voice8 needs (a file without it, or without sound, is left out of both)."""
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import voice_features

    v8, wh, kept = [], [], []
    for i, p in enumerate(paths):
        try:
            audio = load_audio(p, RATE)
            v8.append(voice_features(audio))
        except ValueError:  # no sound track, or speech shorter than voice8's minimum
            continue
        wh.append(extract(audio))
        kept.append(i)
    return {"voice8": np.array(v8, np.float32).reshape(-1, 252), "whisper": np.array(wh, np.float32).reshape(-1, 768),
            "kept": np.array(kept, int)}


def _labelled(feats: dict[str, np.ndarray], labels: list[str], people: list[str]) -> dict[str, np.ndarray]:
    """``feats`` with ``y`` (AffectNet-8 index) and ``person`` of its kept files."""
    keep = feats.pop("kept")
    return {**feats, "y": np.array([AFFECTNET8.index(labels[i]) for i in keep]),
            "person": np.array([people[i] for i in keep])}


def collect(mirrors: Path, cremad: Path, cache: Path | None = None) -> dict[str, dict]:
    """Per set: ``voice8`` and ``whisper`` features, ``y`` (AffectNet-8 index) and ``person`` (read from, or kept
    in, the npz ``cache`` when given).

    Raises:
        FileNotFoundError: a set, the snapshot or the CREMA-D folder is missing.
    """
    if cache is not None and cache.is_file():
        z = np.load(cache)
        return {n: {k.split("/")[1]: z[k] for k in z.files if k.startswith(f"{n}/")} for n in SETS}
    from evals.data.assemble import default_root, load_manifest
    from evals.data.javanese import rows as javanese_rows
    from studies.recorded_faces import _extract, cremad_clips
    from tools.perception.voice_emotion import WhisperVoiceFeatures

    extract = WhisperVoiceFeatures()
    sets: dict[str, dict] = {}
    for name in ("ravdess", "emodb"):
        recs = load_manifest(default_root(), name, split="dev")
        sets[name] = _labelled(speech_features([r["path"] for r in recs], extract), [r["label"] for r in recs],
                               [f"{name}:{r['person']}" for r in recs])
    if not cremad.is_dir():
        raise FileNotFoundError(f"{cremad}: no such folder (python -m evals.data.cremad --out {cremad})")
    paths, rows = cremad_clips(cremad)
    sets["cremad"] = _labelled(speech_features([str(p) for p in paths], extract), [lab for _, _, lab, _ in rows],
                               [f"cremad:{who}" for *_, who in rows])
    rows = javanese_rows(mirrors, "dev")
    with tempfile.TemporaryDirectory() as tmp:
        paths = _extract(mirrors, Path(tmp), rows)
        sets["javanese_dev"] = _labelled(speech_features([str(p) for p in paths], extract), [lab for _, _, lab, _ in rows],
                                         [f"javanese:{who}" for *_, who in rows])
    if cache is not None:
        np.savez_compressed(cache, **{f"{n}/{k}": v for n, d in sets.items() for k, v in d.items()})
    return sets


def _head(c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=3000))


def own_normalised(x: np.ndarray, person: np.ndarray) -> np.ndarray:
    """``x`` (n, d) with each person's mean subtracted and divided by that person's standard deviation per feature
    (speaker normalisation, the usual remedy for a corpus's recording conditions in cross-corpus speech emotion
    recognition: Schuller et al., 2010, "Cross-Corpus Acoustic Emotion Recognition: Variances and Strategies")."""
    out = np.empty_like(x)
    for who in np.unique(person):
        at = person == who
        out[at] = (x[at] - x[at].mean(0)) / (x[at].std(0) + 1e-6)
    return out


def calm_centred(x: np.ndarray, person: np.ndarray, calm: np.ndarray) -> np.ndarray:
    """``x`` (n, d) less the mean of the same person's rows where ``calm`` (their neutral clips): a person's usual
    voice taken from their calm speech alone, as a long video that is mostly calm gives it."""
    out = np.empty_like(x)
    for who in np.unique(person):
        at = person == who
        out[at] = x[at] - x[at & calm].mean(0)
    return out


def per_person_ok(data: dict) -> bool:
    """Whether every person of a set has ``PER_PERSON_MIN`` clips, one of them neutral: a usual voice can be taken
    (CREMA-D's 100 clips come from 64 actors, so its rows normalised per person are left out)."""
    neutral = data["y"] == AFFECTNET8.index("neutral")
    return all((data["person"] == who).sum() >= PER_PERSON_MIN and (neutral & (data["person"] == who)).any()
               for who in np.unique(data["person"]))


def _x(data: dict, features: str) -> np.ndarray:
    """The feature blocks named in ``features`` ("voice8", "whisper", joined by "+"; a "/own" suffix normalises
    each block per person, ``own_normalised``; "/calm" centres it on the person's neutral clips, ``calm_centred``)."""
    name, _, how = features.partition("/")
    x = np.concatenate([data[f] for f in name.split("+")], axis=1)
    if how == "calm":
        return calm_centred(x, data["person"], data["y"] == AFFECTNET8.index("neutral"))
    return own_normalised(x, data["person"]) if how == "own" else x


def leave_one_corpus_out(sets: dict[str, dict], c: float = 0.03) -> dict:
    """Heads fitted on every set but one (at ``c``, the middle of ``C_GRID``), read on that one: clips right per
    held-out set and feature set, with a 95 % interval over people (the per-person forms only among sets where
    ``per_person_ok``)."""
    from evals.metrics import bootstrap_interval

    out: dict = {}
    for held, data in sets.items():
        row = {}
        for features in FEATURES:
            train = [d for n, d in sets.items() if n != held and ("/" not in features or per_person_ok(d))]
            if "/" in features and not per_person_ok(data):
                continue
            x = np.concatenate([_x(d, features) for d in train])
            y = np.concatenate([d["y"] for d in train])
            right = _head(c).fit(x, y).predict(_x(data, features)) == data["y"]
            row[features] = {"right": int(right.sum()),
                             "ci95": [round(v, 3) for v in bootstrap_interval(right, data["person"])]}
        out[held] = {"n": len(data["y"]), **row}
    return out


def evaluate(sets: dict[str, dict]) -> dict:
    """``ravdess_cv`` and ``other_corpora`` (module doc) for voice8's features, Whisper's and both."""
    from sklearn.model_selection import GroupKFold

    from evals.metrics import bootstrap_interval
    from tools.perception.voice_emotion import load_voice_emotion

    rav = sets["ravdess"]
    folds = list(GroupKFold(6).split(rav["y"], rav["y"], rav["person"]))
    out: dict = {"clips": {k: len(v["y"]) for k, v in sets.items()}, "ravdess_cv": {}, "other_corpora": {}}
    chosen = {}
    for features in FEATURES:
        x = _x(rav, features)
        by_c = {}
        for c in C_GRID:
            pred = np.empty(len(x), int)
            for tr, te in folds:
                pred[te] = _head(c).fit(x[tr], rav["y"][tr]).predict(x[te])
            by_c[c] = pred
        chosen[features] = max(C_GRID, key=lambda c: (by_c[c] == rav["y"]).mean())
        out["ravdess_cv"][features] = {"by_C": {str(c): round(float((p == rav["y"]).mean()), 3) for c, p in by_c.items()},
                                       "C": chosen[features]}
    shipped = load_voice_emotion("voice8")
    for name, data in sets.items():
        if name == "ravdess":
            continue
        right = {"voice8 (shipped head)": shipped.predict_features(data["voice8"]).argmax(1) == data["y"]}
        for features, c in chosen.items():
            if "/" in features and not per_person_ok(data):
                continue
            right[features] = _head(c).fit(_x(rav, features), rav["y"]).predict(_x(data, features)) == data["y"]
        base = right["voice8 (shipped head)"].astype(float)
        out["other_corpora"][name] = {
            k: {"right": int(r.sum()), "n": len(r), "ci95": [round(v, 3) for v in bootstrap_interval(r, data["person"])],
                **({} if k.startswith("voice8 (") else {"minus_shipped_ci95": [
                    round(v, 3) for v in bootstrap_interval(r.astype(float) - base, data["person"])]}),
                "per_label": {AFFECTNET8[i]: f"{int(r[data['y'] == i].sum())}/{int((data['y'] == i).sum())}"
                              for i in np.unique(data["y"])}}
            for k, r in right.items()}
    out["leave_one_corpus_out"] = leave_one_corpus_out(sets)
    return out


def main(argv: list[str] | None = None) -> int:
    from studies.recorded_faces import mirrors_main

    return mirrors_main(__doc__.splitlines()[0], lambda m, c, f: evaluate(collect(m, c, f)), argv, cremad=True,
                        keep=(("--features", "keep the clips' features here (npz) and reuse them"),))


if __name__ == "__main__":
    sys.exit(main())
