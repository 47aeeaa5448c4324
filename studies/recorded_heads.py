"""Trials on recorded CREMA-D clips (development data since section 36): can the heads learn the recorded look?

    python -m studies.recorded_heads --cremad CLIPS --mirrors /work/.mirror [--json evals/results/recorded_heads_dev.json]

``CLIPS`` holds the CREMA-D clips ``python -m evals.data.cremad`` writes (100 clips, 64 actors, 8 kHz speech
resampled to 16 kHz); ``--mirrors`` the repository snapshots of ``studies.recorded_faces`` (its 20 recorded
development clips, other people and datasets). Faces are read as the engine reads them: the largest MediaPipe face
of each frame at ``FPS``, cut by ``tools.perception.crops.gray_crop``; a clip's reading is the mean over its frames.
Everything is scored per clip, with 5-fold cross-validation grouped by actor on CREMA-D (no actor in both parts).

- ``face8_with_cremad``: the face8 head (``studies.train_face``: RAF-DB train and CK+ dev faces, mirrored) refitted
  with the CREMA-D frames of the training actors added at weight ``w``, for each ``C``; read alone and averaged with
  faceres (the default reader's form); the head fitted on every CREMA-D actor is read on the 20 other clips.
- ``class_bias``: the default reader's clip readings recalibrated per class (a bias per label on the log
  probabilities, vector scaling without the scale; Guo et al., 2017), fitted on the training actors.
- ``voice_narrowband``: the voice8 head (``studies.train_voice``) fitted on RAVDESS dev actors as recorded, on
  their speech band-limited to 8 kHz sampling (resampled down and up again), or on both; scored by 6-fold
  cross-validation grouped by actor on RAVDESS dev, as recorded and band-limited, and on the CREMA-D speech.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.schema import AFFECTNET8
from tools.perception.heads import softmax

#: Frame rate at which the clips' faces are read.
FPS = 8.0
FACE8_TRIALS = [(c, w) for c in (0.001, 0.003) for w in (1.0, 4.0, 16.0)]
VOICE_C = (0.01, 0.03, 0.1)


def clip_crops(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Grey crops (N, 64, 64) of the largest face of each frame at ``FPS`` and the clip index of each."""
    from tools.core.frames import iter_frames
    from tools.perception.crops import gray_crop
    from tools.perception.faces import load_face_detector

    det, crops, clip = load_face_detector("mediapipe"), [], []
    for i, path in enumerate(paths):
        for _, frame in iter_frames(path, FPS):
            if found := det.detect(frame):
                crops.append(gray_crop(frame, max((b for b, _ in found), key=lambda b: b.area)))
                clip.append(i)
    return np.stack(crops), np.asarray(clip)


def per_clip(probs: np.ndarray, clip: np.ndarray, labels: np.ndarray) -> int:
    """Clips whose mean reading's top label is theirs (a clip without a face counts as wrong)."""
    return sum(int(probs[clip == i].mean(0).argmax() == y) for i, y in enumerate(labels) if (clip == i).any())


def _readings(crops: np.ndarray) -> dict[str, np.ndarray]:
    from tools.perception.expression import Face8
    from tools.perception.face_resnet import FaceRes

    f8 = Face8(head=None)
    feats = [np.concatenate([f8.features(x[i:i + 512]) for i in range(0, len(x), 512)])
             for x in (crops, crops[:, :, ::-1].copy())]
    return {"f": feats[0], "fm": feats[1], "res": FaceRes().classify_crops(crops)}


def face_trials(cremad: list[Path], rec: list[Path], rec_labels: np.ndarray) -> dict:
    from sklearn.model_selection import GroupKFold

    from evals.data.sources import CREMAD_LABELS
    from studies.train_face import dev_features, fit_head
    from tools.perception.expression import FACE8_HEAD, Face8
    from tools.perception.heads import LinearHead

    labels = np.asarray([AFFECTNET8.index(CREMAD_LABELS[p.stem.split("_")[2]]) for p in cremad])
    actors = np.asarray([p.stem.split("_")[0] for p in cremad])
    (cx, cclip), (rx, rclip) = clip_crops(cremad), clip_crops(rec)
    c, r, dev = _readings(cx), _readings(rx), dev_features(Face8(head=None))
    y, groups = labels[cclip], actors[cclip]

    def read(head, d):
        return (head.probs(d["f"]) + head.probs(d["fm"])) / 2

    shipped = LinearHead.load(FACE8_HEAD)
    out = {"frames": {"cremad": len(cx), "recorded_dev": len(rx)}, "clips": {"cremad": len(cremad), "recorded_dev": len(rec)},
           "shipped": {"face8": per_clip(read(shipped, c), cclip, labels), "faceres": per_clip(c["res"], cclip, labels),
                       "faceres+face8": per_clip((read(shipped, c) + c["res"]) / 2, cclip, labels),
                       "recorded_dev_faceres+face8": per_clip((read(shipped, r) + r["res"]) / 2, rclip, rec_labels)}}
    folds = list(GroupKFold(n_splits=5).split(cx, y, groups))
    trials = []
    for cc, w in FACE8_TRIALS:
        p = np.zeros((len(cx), len(AFFECTNET8)))
        for tr, va in folds:
            x = np.concatenate([dev["x"], c["f"][tr], c["fm"][tr]])
            head = LinearHead(fit_head(x, np.concatenate([dev["y"], y[tr], y[tr]]),
                                       np.concatenate([dev["w"], np.full(2 * len(tr), w)]), cc))
            p[va] = read(head, {"f": c["f"][va], "fm": c["fm"][va]})
        every = LinearHead(fit_head(np.concatenate([dev["x"], c["f"], c["fm"]]), np.concatenate([dev["y"], y, y]),
                                    np.concatenate([dev["w"], np.full(2 * len(y), w)]), cc))
        trials.append({"C": cc, "cremad_weight": w, "cremad_cv_face8": per_clip(p, cclip, labels),
                       "cremad_cv_with_faceres": per_clip((p + c["res"]) / 2, cclip, labels),
                       "recorded_dev_with_faceres": per_clip((read(every, r) + r["res"]) / 2, rclip, rec_labels)})
        print(trials[-1], flush=True)
    out["face8_with_cremad"] = trials
    pooled = np.log(np.stack([((read(shipped, c) + c["res"]) / 2)[cclip == i].mean(0) for i in range(len(cremad))]) + 1e-4)
    out["class_bias"] = [{"L2": lam, "cremad_cv": _bias_cv(pooled, labels, actors, lam)} for lam in (0.1, 1.0, 10.0)]
    return out


def _bias_cv(x: np.ndarray, y: np.ndarray, groups: np.ndarray, lam: float) -> int:
    """Clips right under actor-grouped 5-fold CV of a per-label bias on log probabilities ``x`` (clips, 8), fitted by
    gradient descent on the cross-entropy with an L2 penalty of weight 1 / (``lam`` * n)."""
    from sklearn.model_selection import GroupKFold

    right = 0
    for tr, va in GroupKFold(n_splits=5).split(x, y, groups):
        b = np.zeros(x.shape[1])
        for _ in range(500):
            p = softmax(x[tr] + b, axis=1)
            p[np.arange(len(tr)), y[tr]] -= 1
            b -= 0.5 * (p.mean(0) + b / (lam * len(tr)))
        right += int(((x[va] + b).argmax(1) == y[va]).sum())
    return right


def voice_trials(cremad: list[Path]) -> dict:
    from scipy.signal import resample_poly
    from sklearn.model_selection import GroupKFold

    from evals.data.assemble import default_root, load_manifest
    from evals.data.sources import CREMAD_LABELS
    from studies.train_voice import fit_head, ravdess_features
    from tools.core.media import load_audio
    from tools.perception.heads import LinearHead
    from tools.perception.voice_emotion import voice_features

    d = ravdess_features()
    narrow = np.stack([voice_features(resample_poly(load_audio(r["path"], 8_000), 2, 1).astype(np.float32))
                       for r in load_manifest(default_root(), "ravdess")])
    dev = d["split"] == "dev"
    wide, narrow, y, g = d["x"][dev], narrow[dev], d["y"][dev], d["actor"][dev]
    speech = [(load_audio(str(p), 16_000), CREMAD_LABELS[p.stem.split("_")[2]]) for p in cremad]
    speech = [(a, lab) for a, lab in speech if len(a) >= 0.5 * 16_000]
    cx = np.stack([voice_features(a) for a, _ in speech])
    cy = np.asarray([AFFECTNET8.index(lab) for _, lab in speech])
    out = {"cremad_clips_with_speech": len(cy), "trials": []}
    for name, sets in (("as recorded", (wide,)), ("band-limited", (narrow,)), ("both", (wide, narrow))):
        for c in VOICE_C:
            acc = {"wide": [], "narrow": []}
            for tr, va in GroupKFold(n_splits=6).split(wide, y, g):
                head = LinearHead(fit_head(np.concatenate([s[tr] for s in sets]), np.concatenate([y[tr]] * len(sets)), c))
                acc["wide"].append(float((head.probs(wide[va]).argmax(1) == y[va]).mean()))
                acc["narrow"].append(float((head.probs(narrow[va]).argmax(1) == y[va]).mean()))
            head = LinearHead(fit_head(np.concatenate(sets), np.concatenate([y] * len(sets)), c))
            pred = head.probs(cx).argmax(1)
            out["trials"].append({"trained_on": name, "C": c, "ravdess_cv_as_recorded": round(np.mean(acc["wide"]), 3),
                                  "ravdess_cv_band_limited": round(np.mean(acc["narrow"]), 3),
                                  "cremad_right": int((pred == cy).sum()),
                                  "cremad_read_as_happiness": int((pred == AFFECTNET8.index("happiness")).sum())})
            print(out["trials"][-1], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.recorded_heads", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cremad", type=Path, required=True, help="folder of python -m evals.data.cremad's clips")
    ap.add_argument("--mirrors", type=Path, required=True, help="repository snapshots (studies.recorded_faces)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    def run() -> dict:
        from studies.recorded_faces import CLIPS, _extract

        cremad = sorted(args.cremad.glob("*_*_*_*.mp4"))
        with tempfile.TemporaryDirectory() as tmp:
            rec = _extract(args.mirrors, Path(tmp))
            faces = face_trials(cremad, rec, np.asarray([AFFECTNET8.index(c[2]) for c in CLIPS]))
        return {"what": __doc__.split("\n\n")[0], "fps": FPS, "faces": faces, "voice": voice_trials(cremad)}

    return report(run, args.json)


if __name__ == "__main__":
    sys.exit(main())
