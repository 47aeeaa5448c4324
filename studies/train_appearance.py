"""Train the appearance heads (``tools.perception.appearance.APPEARANCE_HEAD``): annotated gender and age group from the
dlib face descriptor the index computes per track.

    python -m studies.train_appearance [--out tools/models/appearance_head.npz] [--json report.json]

Data: UTKFace part 1 (``evals.data.assemble --source utkface=DIR``; Zhang, Song and Qi, 2017): 9,777
in-the-wild face crops with annotated age (years) and gender (female / male). Each image is shown as a
composed bench shows a still (letterboxed into a 640 x 360 frame, ``studies.faces.shown_face``), its face is
found by the pipeline's detector and described exactly as the index describes a track's face (the kept
JPEG crop with ``indexing.visual.THUMB_MARGIN``, dlib's 5-point alignment and face ResNet); images with no
detected face are left out. Features are cached under ``<data>/crops/utkface_dlib.npz``.

Split: UTKFace has no person ids; the assembler groups images by collection hour and puts a fifth of the
groups in test. C is chosen from ``C_GRID`` on the dev groups whose CRC-32 % 4 == 0 after fitting on the
other dev groups (gender: accuracy; age: accuracy over ``AGE_GROUPS``), the heads are refitted on all of
dev, then scored once on test: accuracy overall and on adults (18+), per age group, and for the age words
the grounding uses ("older": 40+), and per UTKFace's annotated race (a check of error rates across groups).
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, load_manifest
from evals.data.sources import UTKFACE_RACES
from studies.command import report
from studies.heads import cached_set_features, fit_linear_head, save_npz
from tools.core.runtime import process_pool
from tools.core.schema import AGE_GROUPS, AGE_WORDS, GENDERS
from tools.perception.appearance import APPEARANCE_HEAD, AppearanceReader, age_group
from tools.perception.heads import HEAD_ARRAYS

C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)


def _describe_batch(paths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    from indexing.visual import THUMB_MARGIN, face_jpeg
    from studies.faces import shown_face
    from tools.perception.crops import box_in_crop, jpeg_rgb
    from tools.perception.faces import load_face_detector
    from tools.perception.identity import load_face_identity

    det, ident = load_face_detector("mediapipe"), load_face_identity("dlib")
    vecs, found = [], []
    for p in paths:
        frame, box, _ = shown_face(p, det)
        if box is None:
            vecs.append(np.zeros(128, np.float32))
            found.append(False)
            continue
        vecs.append(ident.describe(jpeg_rgb(face_jpeg(frame, box)), [box_in_crop(frame.shape[:2], box, THUMB_MARGIN)])[0])
        found.append(True)
    return np.stack(vecs), np.asarray(found)


def utkface_features(root: Path | None = None, workers: int = 2) -> dict[str, np.ndarray]:
    """``x`` (N, 128) dlib descriptors, ``found`` (a face was detected), ``y`` (annotated gender, index in
    ``GENDERS``), ``age`` (years), ``split``, ``group`` of every UTKFace record, in manifest order (cached)."""

    def compute(recs: list[dict]) -> dict[str, np.ndarray]:
        paths = [r["path"] for r in recs]
        chunks = [paths[i:i + 250] for i in range(0, len(paths), 250)]
        with process_pool(workers) as ex:
            parts = list(ex.map(_describe_batch, chunks))
        return {"x": np.concatenate([p[0] for p in parts]), "found": np.concatenate([p[1] for p in parts]),
                "y": np.asarray([GENDERS.index("woman" if r["raw_label"] == "female" else "man") for r in recs]),
                "age": np.asarray([r["age"] for r in recs]), "split": np.asarray([r["split"] for r in recs]),
                "group": np.asarray([r["group"] for r in recs])}

    return cached_set_features(root or default_root(), "utkface", "utkface_dlib", compute)


def _fit(x: np.ndarray, y: np.ndarray, c: float, n: int) -> dict[str, np.ndarray]:
    return fit_linear_head(x, y, c, max_iter=3000, n_classes=n)


def _accuracy(head: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    from tools.perception.heads import LinearHead

    return round(float((LinearHead(head).probs(x).argmax(1) == y).mean()), 4)


def train(out: Path, root: Path | None = None) -> dict:
    """Choose C per head on the dev groups' validation part, refit on dev, write ``out``; returns the report
    with the test scores."""
    d = utkface_features(root)
    ok = d["found"]
    groups = np.asarray([zlib.crc32(g.encode()) % 4 == 0 for g in d["group"]])
    dev, te = ok & (d["split"] == "dev"), ok & (d["split"] == "test")
    fit, val = dev & ~groups, dev & groups
    targets = {"gender": (d["y"], len(GENDERS)), "age": (np.asarray([age_group(a) for a in d["age"]]), len(AGE_GROUPS))}
    arrays, grid, chosen = {}, {}, {}
    for name, (y, n) in targets.items():
        grid[name] = [{"C": c, "val_accuracy": _accuracy(_fit(d["x"][fit], y[fit], c, n), d["x"][val], y[val])}
                      for c in C_GRID]
        print(name, grid[name], flush=True)
        chosen[name] = max(grid[name], key=lambda r: r["val_accuracy"])["C"]
        head = _fit(d["x"][dev], y[dev], chosen[name], n)
        arrays.update({f"{name}_{k}": head[k] for k in HEAD_ARRAYS})
    save_npz(out, arrays)
    reader = AppearanceReader(out)
    g, a = reader.probs(d["x"][te])
    yg, ya, age = targets["gender"][0][te], targets["age"][0][te], d["age"][te]
    adult = age >= 18
    older = np.isin(ya, [AGE_GROUPS.index(k) for k in AGE_WORDS["older"]])
    p_older = a[:, [AGE_GROUPS.index(k) for k in AGE_WORDS["older"]]].sum(1)
    race = np.asarray([r["race"] for r in load_manifest(root or default_root(), "utkface")])[te]  # same order
    by_race = {r: {"n_adults": int((adult & (race == r)).sum()),
                   "gender_accuracy_adults": round(float((g.argmax(1) == yg)[adult & (race == r)].mean()), 4),
                   "age_group_accuracy": round(float((a.argmax(1) == ya)[race == r].mean()), 4)}
               for r in UTKFACE_RACES}
    return {
        "data": "UTKFace part 1 (Zhang, Song and Qi, 2017); split by collection hour; C chosen on dev groups",
        "grid": grid, "C": chosen, "n_dev": int(dev.sum()), "n_test": int(te.sum()),
        "faces_found": round(float(ok.mean()), 4),
        "gender": {"accuracy": round(float((g.argmax(1) == yg).mean()), 4),
                   "accuracy_adults": round(float((g.argmax(1) == yg)[adult].mean()), 4),
                   "majority_accuracy": round(float(max((yg == k).mean() for k in range(len(GENDERS)))), 4),
                   "per_age_group": {k: round(float((g.argmax(1) == yg)[ya == i].mean()), 4)
                                     for i, k in enumerate(AGE_GROUPS)}},
        "age": {"accuracy": round(float((a.argmax(1) == ya).mean()), 4),
                "within_one_group": round(float((abs(a.argmax(1) - ya) <= 1).mean()), 4),
                "majority_accuracy": round(float(np.bincount(ya).max() / len(ya)), 4),
                "per_group_recall": {k: round(float((a.argmax(1) == ya)[ya == i].mean()), 4)
                                     for i, k in enumerate(AGE_GROUPS)},
                "older_40_plus": {"precision": round(float(older[p_older >= 0.5].mean()), 4),
                                  "recall": round(float((p_older >= 0.5)[older].mean()), 4)}},
        "by_annotated_race": by_race,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_appearance", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=APPEARANCE_HEAD)
    ap.add_argument("--data", type=Path, default=None, help="root of the assembled sets (default <cache>/data)")
    ap.add_argument("--json", type=Path, default=None, help="write the report here too")
    args = ap.parse_args(argv)
    return report(lambda: train(args.out, args.data), args.json)


if __name__ == "__main__":
    sys.exit(main())
