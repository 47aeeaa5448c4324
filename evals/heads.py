"""Fitting and saving the linear heads of ``tools.heads`` (shared by the face and voice trainers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from evals.data.assemble import load_manifest
from tools.heads import HEAD_ARRAYS


def fit_linear_head(x: np.ndarray, y: np.ndarray, c: float, sample_weight: np.ndarray | None = None,
                    class_weight: str | None = None, max_iter: int = 300) -> dict[str, np.ndarray]:
    """Standardise ``x`` (N, D) and fit scikit-learn's multinomial logistic regression (L2, inverse
    strength ``c``) on AffectNet-8 indices ``y``; returns the head arrays. A class absent from ``y``
    gets a zero weight row and intercept -30 (probability ~0)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    lr = LogisticRegression(C=c, max_iter=max_iter, class_weight=class_weight)
    lr.fit((x - mean) / scale, y, sample_weight=sample_weight)
    coef = np.zeros((8, x.shape[1]), np.float32)
    intercept = np.full(8, -30.0, np.float32)
    coef[lr.classes_], intercept[lr.classes_] = lr.coef_, lr.intercept_
    return {"mean": mean.astype(np.float32), "scale": scale.astype(np.float32), "coef": coef, "intercept": intercept}


def save_npz(path: Path, arrays: dict[str, np.ndarray], compressed: bool = False) -> None:
    """Write ``arrays`` to ``path`` through a temp file and a rename (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    (np.savez_compressed if compressed else np.savez)(tmp, **arrays)
    tmp.replace(path)


def save_head(path: Path, head: dict[str, np.ndarray]) -> None:
    """Write a head's ``HEAD_ARRAYS`` atomically."""
    save_npz(path, {k: head[k] for k in HEAD_ARRAYS})


def cached_set_features(root: Path, name: str, cache_name: str,
                        compute: Callable[[list[dict]], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``compute(records)`` over every record of the assembled set ``name`` (arrays with one row per record,
    ``y`` among them), cached in ``<root>/crops/<cache_name>.npz`` and computed again when the set's size
    changed.

    Raises:
        FileNotFoundError: the set was not assembled.
    """
    recs = load_manifest(root, name)
    cache = root / "crops" / f"{cache_name}.npz"
    if cache.is_file():
        d = dict(np.load(cache))
        if len(d["y"]) == len(recs):
            return d
    d = compute(recs)
    save_npz(cache, d, compressed=True)
    return d
