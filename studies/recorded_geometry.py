"""Face-mesh geometry beside the expression reading on recorded video: does a head fitted on both name more clips?

    python -m studies.recorded_geometry --mirrors /work/.mirror --cremad CLIPS [--readings FILE.npz] [--json OUT]

Issue 31 asks for the facial cues of the confused classes (brow lowerer and lip stretch for fear, nose wrinkle for
disgust, one-sided lip corner for contempt) as face-mesh geometry, features of a head fitted on development data.
Section 11 of ``evals/RESULTS.md`` tried it on posed stills only (CK+, RAF-DB: no gain beside the CNN features); here
it is tried on recorded video, where the reading is weak (sections 62-63).

The clips are every recorded development clip (``studies.recorded_faces``): section 25's 20 clips, RAVDESS actor
05's 52, MAFW's 12, the Javanese development people's 120 and CREMA-D's 100 (``python -m evals.data.cremad``). The
Javanese test people (section 63) are not read. Each clip is decoded at the verifier's 4 fps; in each frame the
largest face is read by the default expression reader (``faceres+face8``, AffectNet-8) and its 478-point mesh is
fitted as the gaze tool fits it, giving the 22 action-unit distances of ``studies.face_geometry.au_features``
(inter-ocular units). Per clip:

- ``reading``: the log of the mean reading over the clip's frames (8 values; the shipped reader's argmax of the
  mean is the ``shipped`` row);
- ``geometry``: the mean of the frames' distances (22);
- ``geometry_own``: the same minus that person's mean over all their clips' frames (a person's own usual face;
  Baltrusaitis et al., 2015, "Cross-dataset learning and person-specific normalisation for automatic Action Unit
  detection"). In these acted sets a person's clips span the emotions evenly, so the mean is a fair neutral
  estimate, kinder than a long video where one feeling can dominate; a person with one clip (MAFW) gets zeros.

Heads: multinomial logistic regression on standardised features, classes weighted to balance, ``C`` chosen from
``C_GRID`` by an inner 3-fold cross-validation grouped by person on the training part only. Two protocols:
leave one dataset out (train on the other sets, read the one left out: new people with a new look), and 5-fold
cross-validation grouped by person over all clips. A clip is right when the predicted label is (one of) its
label(s); 95 % intervals by bootstrap over people (``evals.metrics.bootstrap_interval``), and for each head the
interval of its paired difference from the shipped reader (``minus_shipped_ci95``, accuracy units). The scores are
reported over every set and without CREMA-D (next paragraph).

Caveats: the shipped faceres was trained on every CREMA-D clip's frames (section 55), so the CREMA-D ``reading`` is
in-sample (99 of 100 clips right) and the heads learn to trust it more than a new person warrants, hence the
``without_cremad`` rows; faceres was also chosen partly on section 25's and MAFW's clips.

Upright faces: the reader's training faces are upright (RAF-DB's aligned set, CK+), but the pipeline cuts an
axis-aligned box from the frame, so a tilted head is read tilted. ``shipped_upright`` reads each frame turned about
the face's centre by the mesh's eye-line roll (``upright``), pooled like ``shipped``; ``upright_by_roll`` counts, per
band of |roll|, the frames whose top label is (one of) the clip's label(s), as read and upright.

Also compared: ``offset:reading+geometry_own``, an ``OffsetHead`` that starts from the reader's own log
probabilities and learns only what the geometry adds (the plain heads relearn the reading from a few hundred clips
and lose what the reader knew).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.core.schema import AFFECTNET8

#: Frame rate the clips are read at (the verifier's, ``studies.recorded_faces.READ_FPS``).
READ_FPS = 4.0
#: Inverse regularisation strengths tried by the inner cross-validation.
C_GRID = (0.01, 0.1, 1.0)
#: Bands of |roll| (degrees) in which the upright reading is compared frame by frame.
ROLL_BANDS = ((0, 5), (5, 10), (10, 20), (20, 90))
#: The feature sets compared (names of the per-clip blocks joined).
FEATURE_SETS = {"reading": ("reading",), "geometry_own": ("geometry_own",), "geometry": ("geometry",),
                "reading+geometry_own": ("reading", "geometry_own"), "reading+geometry": ("reading", "geometry"),
                "offset:reading+geometry_own": ("reading", "geometry_own")}


def clip_rows(mirrors: Path, cremad: Path, tmp: Path) -> tuple[list[Path], list[tuple[str, str, str, str]], list[str]]:
    """(paths, rows in the form of ``studies.recorded_faces.CLIPS``, dataset name per clip) of every development
    clip (module doc), the mirrored ones written under ``tmp``.

    Raises:
        FileNotFoundError: a snapshot or the CREMA-D folder is missing.
    """
    from evals.data.javanese import rows as javanese_rows
    from studies.recorded_faces import CLIPS, _extract, cremad_clips, mafw_rows, ravdess05_rows

    paths, rows, sets = [], [], []
    for name, part in (("section25", CLIPS), ("ravdess05", ravdess05_rows()), ("mafw", mafw_rows()),
                       ("javanese_dev", javanese_rows(mirrors, "dev"))):
        paths += _extract(mirrors, tmp / name, part)
        rows += part
        sets += [name] * len(part)
    if not cremad.is_dir():
        raise FileNotFoundError(f"{cremad}: no such folder (python -m evals.data.cremad --out {cremad})")
    c_paths, c_rows = cremad_clips(cremad)
    return paths + c_paths, rows + c_rows, sets + ["cremad"] * len(c_rows)


def upright(frame: np.ndarray, box, roll_deg: float) -> np.ndarray:
    """``frame`` (H, W, 3) turned by ``roll_deg`` (the eye line's angle, degrees, image y downwards) about the centre
    of ``box`` (normalized image coordinates), so that the face's eye line is level; borders replicated."""
    import cv2

    h, w = frame.shape[:2]
    centre = ((box.x0 + box.x1) / 2 * w, (box.y0 + box.y1) / 2 * h)
    turn = cv2.getRotationMatrix2D(centre, roll_deg, 1.0)
    return cv2.warpAffine(frame, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def eye_line_roll(lm: np.ndarray) -> float:
    """In-plane angle (degrees) of the line from the face's right outer eye corner to its left one, in the pixel
    frame of mesh landmarks ``lm`` (478, 2): 0 for a level face, positive when the face's left eye sits lower."""
    from studies.face_geometry import EYE_OUT

    d = lm[EYE_OUT[1]] - lm[EYE_OUT[0]]
    return float(np.degrees(np.arctan2(d[1], d[0])))


def read_frames(path: Path, engine, mesh) -> tuple[np.ndarray, ...]:
    """For the largest face in each frame of ``path`` with a face, at ``READ_FPS``: (readings (n, 8), AU distances
    (n, 22), NaN where no mesh was fitted, readings of the frame turned upright by the mesh's eye line (n, 8; the
    plain reading where no mesh), roll in degrees (n,), NaN where no mesh). The face is found and read by the
    engine's detector and expression reader, the same crop as read and turned; the mesh is fitted once per face."""
    from studies.face_geometry import au_features
    from tools.core.frames import iter_frames

    probs, geo, level, rolls = [], [], [], []
    for _, frame in iter_frames(path, READ_FPS):
        found = engine.detector.detect(frame)
        if not found:
            continue
        box = max((b for b, _ in found), key=lambda b: b.area)
        lm = mesh.landmarks(frame, box)
        probs.append(list(engine.classifier.classify(frame, [box])[0]))
        geo.append(au_features(lm) if lm is not None else np.full(22, np.nan))
        roll = eye_line_roll(lm) if lm is not None else float("nan")
        rolls.append(roll)
        level.append(list(engine.classifier.classify(upright(frame, box, roll), [box])[0])
                     if lm is not None else probs[-1])
    return (np.asarray(probs, np.float64).reshape(-1, 8), np.asarray(geo, np.float64).reshape(-1, 22),
            np.asarray(level, np.float64).reshape(-1, 8), np.asarray(rolls, np.float64))


def collect(mirrors: Path, cremad: Path, cache: Path | None) -> dict:
    """Each clip's frame readings and distances (read, or loaded from ``cache`` when it holds them) with its
    label, person and dataset."""
    if cache is not None and cache.is_file():
        z = np.load(cache, allow_pickle=False)
        return {k: z[k] for k in z.files}
    from tools.perception.engine import PerceptionConfig, load_engine
    from tools.perception.gaze import load_gaze_estimator

    engine, mesh = load_engine(PerceptionConfig()), load_gaze_estimator("mediapipe")
    with tempfile.TemporaryDirectory() as tmp:
        paths, rows, sets = clip_rows(mirrors, cremad, Path(tmp))
        read = [read_frames(p, engine, mesh) for p in paths]
    data = {"probs": np.concatenate([r[0] for r in read]), "geo": np.concatenate([r[1] for r in read]),
            "probs_upright": np.concatenate([r[2] for r in read]), "roll": np.concatenate([r[3] for r in read]),
            "clip": np.concatenate([np.full(len(r[0]), i) for i, r in enumerate(read)]),
            "label": np.array([lab for _, _, lab, _ in rows]), "person": np.array([f"{s}:{w}" for s, (*_, w) in
                                                                                    zip(sets, rows, strict=True)]),
            "dataset": np.array(sets), "path": np.array([p for _, p, _, _ in rows])}
    if cache is not None:
        np.savez_compressed(cache, **data)
    return data


def clip_features(data: dict) -> dict[str, np.ndarray]:
    """Per-clip blocks (module doc): ``reading`` (n, 8), ``geometry`` (n, 22), ``geometry_own`` (n, 22), and
    ``has_face`` (n,) bool. A clip without a face or a mesh gets zeros where a block has no value."""
    n = len(data["label"])
    reading, geometry, has_face = np.zeros((n, 8)), np.zeros((n, 22)), np.zeros(n, bool)
    for i in range(n):
        at = data["clip"] == i
        if at.any():
            has_face[i] = True
            reading[i] = np.log(data["probs"][at].mean(0) + 1e-4)
            g = data["geo"][at]
            g = g[~np.isnan(g).any(1)]
            if len(g):
                geometry[i] = g.mean(0)
    own = geometry.copy()
    for who in np.unique(data["person"]):
        mine = (data["person"] == who) & has_face
        frames = np.isin(data["clip"], np.flatnonzero(mine)) & ~np.isnan(data["geo"]).any(1)
        if frames.any():
            own[mine] -= data["geo"][frames].mean(0)
    return {"reading": reading, "geometry": geometry, "geometry_own": own, "has_face": has_face}


def _first_label(label: str) -> str:
    return label.split("|")[0]


def fit_predict(x_train: np.ndarray, y_train: np.ndarray, groups: np.ndarray, x_test: np.ndarray,
                offset: bool = False) -> tuple[list[str], float]:
    """A head (module doc; ``offset``: an ``OffsetHead``, the first 8 columns the reading) fitted on the training
    clips, C chosen by inner grouped 3-fold CV; its labels for ``x_test`` and the chosen C."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def model(c: float):
        if offset:
            return OffsetHead(c)
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=5000))

    def inner(c: float) -> float:
        right = []
        for tr, va in GroupKFold(3).split(x_train, y_train, groups):
            pred = model(c).fit(x_train[tr], y_train[tr]).predict(x_train[va])
            right += list(pred == y_train[va])
        return float(np.mean(right))

    best = max(C_GRID, key=inner)
    return list(model(best).fit(x_train, y_train).predict(x_test)), best


def only_sets(data: dict, keep: set[str]) -> dict:
    """``data`` (``collect``) restricted to the clips of the datasets in ``keep``, clips renumbered."""
    chosen = np.flatnonzero(np.isin(data["dataset"], sorted(keep)))
    new = {int(old): i for i, old in enumerate(chosen)}
    frames = np.isin(data["clip"], chosen)
    per_frame = ("probs", "geo", "probs_upright", "roll")
    out = {k: v[chosen] for k, v in data.items() if k not in (*per_frame, "clip")}
    return {**out, **{k: data[k][frames] for k in per_frame},
            "clip": np.array([new[int(c)] for c in data["clip"][frames]], dtype=np.int64)}


class OffsetHead:
    """A multinomial logistic head over AffectNet-8 whose logits start from the reader's own: ``log p_reader +
    x W + b`` with ``x`` standardised geometry, fitted by L-BFGS (``scipy.optimize.minimize``) on class-balanced
    cross-entropy plus ``||W||^2 / (2 C)``. With ``W`` and ``b`` at zero it is the shipped reader's argmax, so the
    geometry can only move the reading where it pays on the training clips."""

    def __init__(self, c: float) -> None:
        self.c = c

    def fit(self, x: np.ndarray, y: np.ndarray) -> OffsetHead:
        from scipy.optimize import minimize

        from tools.perception.heads import softmax

        offset, g = x[:, :8], x[:, 8:]
        self.mu, self.sd = g.mean(0), g.std(0) + 1e-9
        z = (g - self.mu) / self.sd
        yi = np.array([AFFECTNET8.index(v) for v in y])
        counts = np.bincount(yi, minlength=8).astype(float)
        w_item = (len(yi) / (np.count_nonzero(counts) * counts[yi]))
        d, k = z.shape[1], 8

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            w, b = theta[: d * k].reshape(d, k), theta[d * k:]
            p = softmax(offset + z @ w + b, axis=1)
            nll = -np.log(p[np.arange(len(yi)), yi] + 1e-12)
            grad_logits = p.copy()
            grad_logits[np.arange(len(yi)), yi] -= 1
            grad_logits *= w_item[:, None] / len(yi)
            value = float((w_item * nll).mean() + (w ** 2).sum() / (2 * self.c * len(yi)))
            gw = z.T @ grad_logits + w / (self.c * len(yi))
            return value, np.concatenate([gw.ravel(), grad_logits.sum(0)])

        res = minimize(loss, np.zeros(d * k + k), jac=True, method="L-BFGS-B", options={"maxiter": 2000})
        self.w, self.b = res.x[: d * k].reshape(d, k), res.x[d * k:]
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        z = (x[:, 8:] - self.mu) / self.sd
        return np.array(AFFECTNET8)[np.argmax(x[:, :8] + z @ self.w + self.b, axis=1)]


def evaluate(data: dict) -> dict:
    """Every feature set of ``FEATURE_SETS`` under both protocols, beside the shipped reader (module doc)."""
    from sklearn.model_selection import GroupKFold

    from evals.metrics import bootstrap_interval

    blocks = clip_features(data)
    labels, people, sets = data["label"], data["person"], data["dataset"]
    y = np.array([_first_label(lab) for lab in labels])
    has = blocks["has_face"]
    shipped = [AFFECTNET8[int(np.argmax(r))] if h else None for r, h in zip(blocks["reading"], has, strict=True)]

    def right(pred: list[str | None]) -> np.ndarray:
        return np.array([p is not None and p in lab.split("|") for p, lab in zip(pred, labels, strict=True)])

    def scored(pred: list[str | None], against: np.ndarray | None = None) -> dict:
        r = right(pred)
        out: dict = {"right": int(r.sum()), "n": len(r), "ci95": [round(v, 3) for v in bootstrap_interval(r, people)],
                     "per_dataset": {s: int(r[sets == s].sum()) for s in dict.fromkeys(sets)}}
        if against is not None:
            out["minus_shipped_ci95"] = [round(v, 3) for v in bootstrap_interval(r.astype(float) - against, people)]
        return out

    def protocol(splits: list[tuple[np.ndarray, np.ndarray]]) -> dict:
        preds, chosen = {}, {}
        for name, parts in FEATURE_SETS.items():
            x = np.concatenate([blocks[p] for p in parts], axis=1)
            pred: list[str | None] = [None] * len(y)
            chosen[name] = []
            for tr, te in splits:
                tr, te = tr[has[tr]], te[has[te]]
                got, c = fit_predict(x[tr], y[tr], people[tr], x[te], offset=name.startswith("offset:"))
                chosen[name].append(c)
                for i, p in zip(te, got, strict=True):
                    pred[i] = p
            preds[name] = pred
        return {name: {**scored(p, right(shipped).astype(float)), "C": chosen[name]} for name, p in preds.items()}

    upright_pred = [AFFECTNET8[int(np.argmax(data["probs_upright"][data["clip"] == i].mean(0)))] if h else None
                    for i, h in enumerate(has)]
    frame_labels = [labels[c].split("|") for c in data["clip"]]
    by_roll = {}
    for lo, hi in ROLL_BANDS:
        at = np.flatnonzero((np.abs(data["roll"]) >= lo) & (np.abs(data["roll"]) < hi))
        by_roll[f"{lo}-{hi}"] = {"frames": len(at), **{
            name: int(sum(AFFECTNET8[int(np.argmax(data[key][i]))] in frame_labels[i] for i in at))
            for name, key in (("top_right_as_read", "probs"), ("top_right_upright", "probs_upright"))}}
    idx = np.arange(len(y))
    lodo = [(idx[sets != s], idx[sets == s]) for s in dict.fromkeys(sets)]
    grouped = list(GroupKFold(5).split(idx, y, people))
    return {"read_fps": READ_FPS, "clips": len(y), "people": len(set(people)),
            "frames_with_face": len(data["clip"]),
            "frames_with_mesh": int((~np.isnan(data["geo"]).any(1)).sum()),
            "datasets": {s: int((sets == s).sum()) for s in dict.fromkeys(sets)},
            "shipped": scored(shipped),
            "shipped_upright": scored(upright_pred, right(shipped).astype(float)),
            "upright_by_roll": by_roll,
            "leave_one_dataset_out": protocol(lodo),
            "grouped_5fold_by_person": protocol(grouped)}


def evaluate_both(mirrors: Path, cremad: Path, readings: Path | None = None) -> dict:
    """``evaluate`` over every set (``all_sets``) and without CREMA-D (``without_cremad``; module doc)."""
    data = collect(mirrors, cremad, readings)
    return {"all_sets": evaluate(data), "without_cremad": evaluate(only_sets(data, set(data["dataset"]) - {"cremad"}))}


def main(argv: list[str] | None = None) -> int:
    from studies.recorded_faces import mirrors_main

    return mirrors_main(__doc__.splitlines()[0], evaluate_both, argv, cremad=True,
                        keep=(("--readings", "keep the frame readings here (npz) and reuse them"),))


if __name__ == "__main__":
    sys.exit(main())
