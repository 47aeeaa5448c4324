"""Vocal bursts (a laugh, a gasp, a scream, a groan) read by the voice head: how the shipped head reads them, and
whether a head that also learnt them keeps reading acted speech.

    python -m studies.vocal_bursts --emogator DIR [--features CACHE.npz] [--json OUT]

People in recorded video laugh, gasp and sigh between and inside their sentences, and the voice head
(``tools/models/VOICE8.md``) learnt from acted sentences only (RAVDESS). ``DIR`` is EmoGator's ``data/mp3`` folder
(fredbuhl/EmoGator at 51eeca51, Apache-2.0; ``evals/data/SOURCES.md``): 357 contributors, each asked for 30 kinds of
vocal burst, three takes each, on their own microphones. Nine kinds name an AffectNet-8 label (``KINDS``: Amusement
is happiness, both kinds of surprise are surprise). Contributors are split once: those whose number is divisible by 5
are the test people (``is_test_person``), not read here (their first takes were read by section 131's YAMNet study
and once by the shipped head before the split was made; their second and third takes by nothing); the others are
development data.

On the development people, by cross-validation grouped by person (6 folds over RAVDESS's development actors 1-18 and
the EmoGator development contributors together, so each fold leaves out whole people of both sets), readers of the
shipped head's form (``studies.train_voice.fit_head``: class-balanced logistic regression over ``voice_features``,
C = 0.03) fitted by five recipes: ``speech``, on the fold's RAVDESS actors alone (the shipped recipe); one head on
its actors and contributors with the bursts weighing as many clips as they are (``speech+bursts``, about seven times
the speech), 0.3 or 0.1 of the speech's weight (``RECIPES``); and ``gated``, a speech head and a burst head with a
logistic gate between them fitted on the same rows to tell a burst from speech. Each is scored on the left-out
RAVDESS actors and the left-out contributors' bursts, and, fitted on all of both, on recorded speech of people in
neither: the Javanese development people's clips (``evals.data.javanese``, whole sound track). The shipped head
itself reads every development burst and those clips (``shipped``). A burst is read whole (``voice_features`` over
its active frames; the 3 under half a second are left out, as the index would); 95 % intervals by bootstrap over
people.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.schema import AFFECTNET8

#: EmoGator's file codes of the kinds that name an AffectNet-8 label (its README's list of 30).
KINDS = {"02": "happiness", "03": "anger", "06": "contempt", "10": "disgust", "15": "fear", "18": "neutral",
         "24": "sadness", "27": "surprise", "28": "surprise"}
#: The shipped head's regularisation (``tools/models/VOICE8.md``: chosen by its recipe's cross-validation).
C = 0.03
#: The recipes that fit one head on speech and bursts: recipe -> the bursts' total weight over the speech's (None:
#: every clip alike, so the bursts weigh about seven times the speech).
RECIPES: dict[str, float | None] = {"speech+bursts": None, "bursts at 0.3": 0.3, "bursts at 0.1": 0.1}


def is_test_person(contributor: str) -> bool:
    """Whether an EmoGator contributor (``NNNNNN``) is a test person (number divisible by 5: 71 of 357)."""
    return int(contributor) % 5 == 0


def burst_features(folder: Path, cache: Path | None = None) -> dict[str, np.ndarray]:
    """``x`` (N, 252) ``voice_features``, ``y`` AffectNet-8 index and ``person`` of every take of the ``KINDS`` by a
    development contributor in ``folder`` (``too_short``: how many were under ``MIN_SPEECH_S`` and left out);
    cached in ``cache`` when given (computed again when the files differ).

    Raises:
        FileNotFoundError: no such take is there.
    """
    from tools.core.media import load_audio
    from tools.perception.voice_emotion import voice_features

    paths = sorted(p for p in Path(folder).glob("*-*-*.mp3")
                   if p.stem.split("-")[1] in KINDS and not is_test_person(p.stem.split("-")[0]))
    if not paths:
        raise FileNotFoundError(f"{folder}: no EmoGator takes of the kinds read (NNNNNN-EE-I.mp3)")
    names = np.asarray([p.name for p in paths])
    if cache is not None and cache.is_file():
        stored = dict(np.load(cache))
        if np.array_equal(stored["name"], names):
            return stored
    rows, kept = [], []
    for i, p in enumerate(paths):
        try:
            rows.append(voice_features(load_audio(p, 16_000)))
            kept.append(p)
        except ValueError:  # under half a second: too short to read, as in the index
            pass
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} of {len(paths)} bursts read", file=sys.stderr)
    d = {"x": np.stack(rows), "y": np.asarray([AFFECTNET8.index(KINDS[p.stem.split("-")[1]]) for p in kept]),
         "person": np.asarray([p.stem.split("-")[0] for p in kept]), "name": names,
         "too_short": np.asarray(len(paths) - len(kept))}
    if cache is not None:
        np.savez_compressed(cache, **d)
    return d


def share(right: np.ndarray, people: np.ndarray) -> list[float]:
    """[share right, low, high] with a 95 % interval by bootstrap over people."""
    from evals.metrics import bootstrap_interval

    low, high = bootstrap_interval(right.astype(float).tolist(), people.tolist())
    return [round(float(right.mean()), 4), round(low, 4), round(high, 4)]


def fit_recipe(recipe: str, x: np.ndarray, y: np.ndarray, burst: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """A reader (features (N, 252) -> AffectNet-8 indices (N,)) fitted by ``recipe`` (``RECIPES``) on rows ``x``, labels
    ``y``, ``burst`` marking the vocal bursts among them."""
    from studies.heads import fit_linear_head
    from studies.train_voice import fit_head
    from tools.perception.heads import LinearHead

    if recipe == "speech":
        head = LinearHead(fit_head(x[~burst], y[~burst], C))
        return lambda f: head.probs(f).argmax(1)
    if recipe == "gated":
        gate = LinearHead(fit_linear_head(x, burst.astype(int), C, class_weight="balanced", max_iter=2000,
                                          n_classes=2))
        speech, bursts = (LinearHead(fit_head(x[m], y[m], C)) for m in (~burst, burst))
        return lambda f: np.where(gate.probs(f)[:, 1] >= 0.5, bursts.probs(f).argmax(1), speech.probs(f).argmax(1))
    share_of_bursts = RECIPES[recipe]
    w = np.ones(len(y)) if share_of_bursts is None else np.where(burst, share_of_bursts / burst.sum(),
                                                                 1.0 / (~burst).sum())
    head = LinearHead(fit_linear_head(x, y, C, sample_weight=w / w.mean(), class_weight="balanced", max_iter=2000))
    return lambda f: head.probs(f).argmax(1)


def per_label(pred: np.ndarray, y: np.ndarray) -> dict[str, dict]:
    """Per true label: clips, right, and the three labels most read."""
    from collections import Counter

    return {AFFECTNET8[k]: {"clips": int((y == k).sum()), "right": int((pred[y == k] == k).sum()),
                            "read_as": Counter(AFFECTNET8[p] for p in pred[y == k]).most_common(3)}
            for k in sorted(set(y.tolist()))}


def javanese_dev_audio(mirrors: Path) -> list[tuple[np.ndarray, str, str]]:
    """(16 kHz mono sound track, label, person) of each Javanese development clip (``evals.data.javanese.rows``, in
    its order), written from the snapshot under ``mirrors`` by ``studies.recorded_faces._extract``.

    Raises:
        FileNotFoundError: the snapshot is missing.
    """
    import tempfile

    from evals.data.javanese import rows
    from studies.recorded_faces import _extract
    from tools.core.media import load_audio

    clips = rows(mirrors, "dev")
    with tempfile.TemporaryDirectory() as tmp:
        paths = _extract(mirrors, Path(tmp), clips)
        return [(load_audio(p, 16_000), label, person) for p, (_, _, label, person) in zip(paths, clips, strict=True)]


def javanese_features(mirrors: Path) -> dict[str, np.ndarray]:
    """``voice_features`` of each Javanese development clip's whole sound track (``javanese_dev_audio``), with its
    label and person."""
    from tools.perception.voice_emotion import voice_features

    clips = javanese_dev_audio(mirrors)
    return {"x": np.stack([voice_features(audio) for audio, _, _ in clips]),
            "y": np.asarray([AFFECTNET8.index(label) for _, label, _ in clips]),
            "person": np.asarray([person for _, _, person in clips])}


def compare(speech: dict[str, np.ndarray], bursts: dict[str, np.ndarray], recorded: dict[str, np.ndarray]) -> dict:
    """Each recipe's out-of-fold reading of the RAVDESS development actors and the bursts, and its reading of the
    recorded Javanese speech when fitted on all of both (module doc)."""
    from sklearn.model_selection import GroupKFold

    dev = speech["split"] == "dev"
    x = np.vstack([speech["x"][dev], bursts["x"]])
    y = np.concatenate([speech["y"][dev], bursts["y"]])
    people = np.concatenate([[f"A{a:02d}" for a in speech["actor"][dev]], bursts["person"]])
    burst = np.arange(len(y)) >= int(dev.sum())
    folds = list(GroupKFold(n_splits=6).split(x, y, people))
    out = {}
    for recipe in ("speech", *RECIPES, "gated"):
        pred = np.empty(len(y), int)
        for tr, va in folds:
            pred[va] = fit_recipe(recipe, x[tr], y[tr], burst[tr])(x[va])
        on_recorded = fit_recipe(recipe, x, y, burst)(recorded["x"])
        out[recipe] = {"speech": share(pred[~burst] == y[~burst], people[~burst]),
                       "bursts": share(pred[burst] == y[burst], people[burst]),
                       "recorded_speech": share(on_recorded == recorded["y"], recorded["person"]),
                       "bursts_per_label": per_label(pred[burst], y[burst]),
                       "recorded_per_label": per_label(on_recorded, recorded["y"])}
        print(f"{recipe}: speech {out[recipe]['speech'][0]:.3f} bursts {out[recipe]['bursts'][0]:.3f} recorded "
              f"{out[recipe]['recorded_speech'][0]:.3f}", file=sys.stderr)
    return out


def evaluate(emogator: Path, mirrors: Path, cache: Path | None) -> dict:
    """The study's report (module doc)."""
    from studies.train_voice import ravdess_features
    from tools.perception.voice_emotion import load_voice_emotion

    bursts, speech, recorded = burst_features(emogator, cache), ravdess_features(), javanese_features(mirrors)
    shipped = load_voice_emotion("voice8")
    on_bursts, on_recorded = (shipped.predict_features(d["x"]).argmax(1) for d in (bursts, recorded))
    return {"bursts": {"source": "fredbuhl/EmoGator at 51eeca51, data/mp3, every take of the nine kinds",
                       "clips": len(bursts["y"]), "too_short": int(bursts["too_short"]),
                       "contributors": len(set(bursts["person"].tolist())),
                       "test_people": "number divisible by 5, not read"},
            "speech": {"source": "RAVDESS development actors 1-18", "clips": int((speech["split"] == "dev").sum())},
            "recorded_speech": {"source": "Javanese development people's clips, whole sound track",
                                "clips": len(recorded["y"])},
            "C": C,
            "shipped": {"bursts": share(on_bursts == bursts["y"], bursts["person"]),
                        "recorded_speech": share(on_recorded == recorded["y"], recorded["person"]),
                        "bursts_per_label": per_label(on_bursts, bursts["y"]),
                        "recorded_per_label": per_label(on_recorded, recorded["y"])},
            "recipes": compare(speech, bursts, recorded)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.vocal_bursts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--emogator", type=Path, required=True, help="EmoGator's data/mp3 folder")
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                    help="the fetched repositories (2black0+video-emotion-recognition-javanese)")
    ap.add_argument("--features", type=Path, help="cache the bursts' features in this .npz")
    ap.add_argument("--json", type=Path, help="write the report here")
    args = ap.parse_args(argv)
    return report(lambda: evaluate(args.emogator, args.mirrors, args.features), args.json, echo=False)


if __name__ == "__main__":
    sys.exit(main())
