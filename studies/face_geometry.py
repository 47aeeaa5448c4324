"""Face-mesh geometry as action-unit evidence, and a per-person baseline: measured on the dev split.

    python -m studies.face_geometry [--json evals/results/face_geometry_dev.json]

Whether distances between face-mesh landmarks that FACS ties to action units add to the face head
(``tools.perception.expression.Face8``), and whether reading a face relative to the person's own typical face
helps. Dev split only (the face head's validation part: CK+ dev subjects with number % 3 == 1, a seeded
10 % of RAF-DB train); the test splits are not read. Each labelled image is shown as the pipeline shows
it (``studies.faces``), and the mesh is fitted to the crop the gaze tool reads (``tools.perception.gaze``: the
detector's box + 30 % margin); landmarks are cached under ``<data>/crops/<set>_mesh.npz``.

Features (``au_features``): distances between MediaPipe face-mesh landmarks (Kartynnik et al., 2019)
that the Facial Action Coding System ties to action units (Ekman & Friesen, 1978; FACS manual 2002).
The 478 landmarks are put in an eye-line frame: origin between the outer eye corners (33, 263), x along
the eye line, y down, unit = the inter-ocular distance. Each measure is read on both sides of the face;
a feature is the mean of the two sides and, for the measures a one-sided action changes, the absolute
left-right difference (AU14's unilateral lip-corner tightening is contempt's sign, Ekman & Friesen,
1986). Both forms are the same for a face and its mirror image, so they suit the head's flip test-time
augmentation. Measures and the action units they follow:

- brow height above the eye line, inner (107/336), middle (105/334), outer (70/300): AU1 inner and AU2
  outer brow raiser raise it, AU4 brow lowerer lowers it; the gap between the inner brow ends
  (107-336) narrows with AU4;
- eye opening, upper to lower lid (159-145, 386-374): AU5 upper-lid raiser opens, AU6/AU7 narrow;
- mouth corners (61, 291): height above the lip midline (AU12 lip-corner puller raises, AU15 depressor
  lowers), lateral distance from the nose tip (AU12/AU14/AU20 widen), distance to the outer eye corner
  (AU12 shortens);
- inner-lip gap (13-14, AU25 lips part) and nose tip to chin (1-152, AU26 jaw drop);
- upper-lip height (0-13) and lower-lip height (14-17) (AU23/AU24 press them thin), nose base to upper
  lip (2-0, AU10 upper-lip raiser shortens it);
- nose wing to inner eye corner (98-133, 327-362, AU9 nose wrinkler shortens it) and nose-wing width;
- head pose proxies (nose-tip offset from the eye midpoint), so a linear model can discount the
  asymmetry a turned head puts into 2-D distances.

They are geometric proxies, not calibrated AU intensities (no AU-labelled data is reachable here).

Per-person baseline: each face's features minus the median over that person's faces (person-specific
normalisation; Baltrusaitis, Mahmoud & Robinson, 2015, "Cross-dataset learning and person-specific
normalisation for automatic Action Unit detection", FG), on CK+ dev subjects (RAF-DB has no person ids).
"""

from __future__ import annotations

import numpy as np

#: MediaPipe face-mesh indices (subject's right side first).
EYE_OUT = (33, 263)
EYE_IN = (133, 362)
LID_UP = (159, 386)
LID_LOW = (145, 374)
BROW_INNER = (107, 336)
BROW_MID = (105, 334)
BROW_OUTER = (70, 300)
MOUTH_CORNER = (61, 291)
NOSE_WING = (98, 327)
LIP_TOP, LIP_IN_UP, LIP_IN_LOW, LIP_BOTTOM, NOSE_TIP, NOSE_BASE, CHIN = 0, 13, 14, 17, 1, 2, 152

#: Feature names, in the order ``au_features`` returns them.
AU_FEATURES: tuple[str, ...] = (
    "brow_inner_height", "brow_mid_height", "brow_outer_height", "brow_gap", "eye_opening",
    "corner_lift", "corner_spread", "corner_to_eye", "lip_gap", "jaw_drop", "upper_lip", "lower_lip",
    "nose_to_lip", "wing_to_eye", "wing_width",
    "brow_height_asym", "eye_opening_asym", "corner_lift_asym", "corner_spread_asym", "corner_to_eye_asym",
    "head_yaw", "head_pitch",
)


def eye_line_frame(lm: np.ndarray) -> np.ndarray:
    """Landmarks (478, 2) or (N, 478, 2), any pixel units, in the eye-line frame described above."""
    lm = np.asarray(lm, dtype=np.float64)
    single = lm.ndim == 2
    lm = lm[None] if single else lm
    right, left = lm[:, EYE_OUT[0]], lm[:, EYE_OUT[1]]
    d = left - right
    iod = np.linalg.norm(d, axis=1)[:, None, None] + 1e-9
    c, s = (d[:, 0] / iod[:, 0, 0])[:, None], (d[:, 1] / iod[:, 0, 0])[:, None]
    x = lm - ((left + right) / 2)[:, None]
    out = np.stack([c * x[..., 0] + s * x[..., 1], -s * x[..., 0] + c * x[..., 1]], axis=-1) / iod
    return out[0] if single else out


def au_features(lm: np.ndarray) -> np.ndarray:
    """AU-geometry features (N, len(AU_FEATURES)) for landmarks (N, 478, 2) or one face (478, 2) -> (22,).

    Units: inter-ocular distances. A face without a mesh (NaN landmarks) gives NaN features.
    """
    a = eye_line_frame(lm)
    single = a.ndim == 2
    a = a[None] if single else a
    x, y = a[..., 0], a[..., 1]

    def pair(fn):
        return np.stack([fn(0), fn(1)], axis=1)  # (N, 2): right, left

    def dist(i, j):
        return np.linalg.norm(a[:, i] - a[:, j], axis=1)

    mouth_mid_y = (y[:, LIP_IN_UP] + y[:, LIP_IN_LOW]) / 2
    brow = {name: pair(lambda k, idx=idx: -y[:, idx[k]]) for name, idx in
            (("inner", BROW_INNER), ("mid", BROW_MID), ("outer", BROW_OUTER))}
    eye = pair(lambda k: y[:, LID_LOW[k]] - y[:, LID_UP[k]])
    lift = pair(lambda k: mouth_mid_y - y[:, MOUTH_CORNER[k]])
    spread = pair(lambda k: np.abs(x[:, MOUTH_CORNER[k]] - x[:, NOSE_TIP]))
    to_eye = pair(lambda k: dist(MOUTH_CORNER[k], EYE_OUT[k]))
    wing = pair(lambda k: dist(NOSE_WING[k], EYE_IN[k]))
    sym = [brow["inner"], brow["mid"], brow["outer"]]
    feats = [*(b.mean(1) for b in sym), x[:, BROW_INNER[1]] - x[:, BROW_INNER[0]], eye.mean(1),
             lift.mean(1), spread.mean(1), to_eye.mean(1),
             y[:, LIP_IN_LOW] - y[:, LIP_IN_UP], dist(NOSE_TIP, CHIN),
             y[:, LIP_IN_UP] - y[:, LIP_TOP], y[:, LIP_BOTTOM] - y[:, LIP_IN_LOW], y[:, LIP_TOP] - y[:, NOSE_BASE],
             wing.mean(1), x[:, NOSE_WING[1]] - x[:, NOSE_WING[0]],
             np.abs(brow["mid"][:, 0] - brow["mid"][:, 1]), np.abs(eye[:, 0] - eye[:, 1]),
             np.abs(lift[:, 0] - lift[:, 1]), np.abs(spread[:, 0] - spread[:, 1]), np.abs(to_eye[:, 0] - to_eye[:, 1]),
             np.abs(x[:, NOSE_TIP]), y[:, NOSE_TIP]]
    out = np.stack(feats, axis=1)
    return out[0] if single else out


def _fit_mesh(paths: list[str]) -> np.ndarray:
    """Landmarks (N, 478, 2) in crop pixels for images ``paths`` (NaN where no face or no mesh), fitted as
    the gaze tool fits them (``tools.perception.gaze.MediaPipeGaze.landmarks``)."""
    from studies.faces import shown_face
    from tools.perception.faces import load_face_detector
    from tools.perception.gaze import load_gaze_estimator

    det, mesh = load_face_detector("mediapipe"), load_gaze_estimator("mediapipe")
    out = np.full((len(paths), 478, 2), np.nan, np.float32)
    for i, p in enumerate(paths):
        frame, box, _ = shown_face(p, det)
        lm = mesh.landmarks(frame, box) if box is not None else None
        if lm is not None:
            out[i] = lm
    return out


def mesh_landmarks(name: str, root=None, workers: int = 2) -> np.ndarray:
    """Face-mesh landmarks (N, 478, 2) of labelled set ``name`` in manifest order (cached).

    Raises:
        FileNotFoundError: the set was not assembled (``evals.data.assemble``).
    """
    from evals.data.assemble import default_root, load_manifest
    from studies.heads import save_npz
    from tools.core.runtime import process_pool

    root = root or default_root()
    cache = root / "crops" / f"{name}_mesh.npz"
    paths = [r["path"] for r in load_manifest(root, name)]
    if cache.is_file():
        lm = np.load(cache)["landmarks"]
        if len(lm) == len(paths):
            return lm
    with process_pool(workers) as ex:
        lm = np.concatenate(list(ex.map(_fit_mesh, [paths[i : i + 300] for i in range(0, len(paths), 300)])))
    save_npz(cache, {"landmarks": lm}, compressed=True)
    return lm


def _with_missing(g: np.ndarray) -> np.ndarray:
    """Geometry (N, G) with NaN rows (no mesh) set to 0 and a no-mesh indicator column appended."""
    miss = np.isnan(g[:, 0])
    return np.concatenate([np.where(miss[:, None], 0.0, g), miss[:, None].astype(float)], axis=1)


def compare_heads(c_grid=(0.001, 0.003, 0.01), geo_grid=(0.01, 0.1, 1.0)) -> list[dict]:
    """Validation accuracy (CK+ and RAF-DB parts of the dev validation split) of heads trained on the rest
    of the dev split as ``studies.train_face`` trains them, on face8 features, geometry alone, or both."""
    from studies.faces import face_crops
    from studies.train_face import _accuracy, dev_features, fit_head
    from tools.perception.expression import Face8

    face8 = Face8(head=None)
    f = dev_features(face8)
    geo = []
    for name in ("rafdb", "ckplus"):  # dev_features' order: each set's dev faces, then their mirrors
        g = au_features(mesh_landmarks(name))[face_crops(name)["split"] == "dev"]
        geo += [g, g]
    geo = _with_missing(np.concatenate(geo))
    tr = ~f["val"]
    rows = []
    for inputs, x, grid in (("face8", f["x"], c_grid), ("geometry", geo, geo_grid),
                            ("face8+geometry", np.concatenate([f["x"], geo], axis=1), c_grid)):
        for c in grid:
            head = fit_head(x[tr], f["y"][tr], f["w"][tr], c)
            acc = {part: round(_accuracy(face8, head, x[f["val"] & sel], f["y"][f["val"] & sel]), 4)
                   for part, sel in (("val_ck", f["ck"]), ("val_raf", ~f["ck"]))}
            rows.append({"inputs": inputs, "C": c, **acc})
            print(rows[-1], flush=True)
    return rows


def per_person(grid=(0.001, 0.01, 0.1, 1.0)) -> list[dict]:
    """CK+ dev subjects (faces with a mesh): validation accuracy with and without each subject's median
    subtracted from the features (face8 features of the crop, geometry, both), best C of ``grid``."""
    from sklearn.linear_model import LogisticRegression

    from studies.faces import face_crops
    from tools.perception.expression import Face8

    d = face_crops("ckplus")
    g = au_features(mesh_landmarks("ckplus"))
    keep = ~np.isnan(g[:, 0]) & (d["split"] == "dev")
    g, y, person = g[keep], d["y"][keep], d["person"][keep]
    feats = Face8(head=None).features(d["x"][keep])
    val = np.asarray([int(p[1:]) % 3 == 1 for p in person])

    def baseline(x):
        out = x.copy()
        for p in np.unique(person):
            out[person == p] -= np.median(x[person == p], axis=0)
        return out

    def accuracy(x, c):
        mu, sd = x[~val].mean(0), x[~val].std(0) + 1e-6
        lr = LogisticRegression(C=c, max_iter=2000).fit((x[~val] - mu) / sd, y[~val])
        return float((lr.predict((x[val] - mu) / sd) == y[val]).mean())

    rows = []
    for inputs, x in (("face8", feats), ("geometry", g), ("face8+geometry", np.c_[feats, g])):
        for normalised, xx in ((False, x), (True, baseline(x))):
            best = max(grid, key=lambda c, xx=xx: accuracy(xx, c))
            rows.append({"inputs": inputs, "per_person_baseline": normalised, "C": best,
                         "val_ck": round(accuracy(xx, best), 4), "n_val": int(val.sum())})
            print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    from studies.command import report

    ap = argparse.ArgumentParser(prog="python -m studies.face_geometry", description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=None, help="write the tables here")
    args = ap.parse_args(argv)
    return report(lambda: {"heads": compare_heads(), "per_person": per_person()}, args.json, echo=False)


if __name__ == "__main__":
    raise SystemExit(main())
