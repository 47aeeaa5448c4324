"""Fitting and saving the linear heads of ``tools.perception.heads`` (shared by the face and voice trainers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from evals.data.assemble import load_manifest
from tools.perception.heads import HEAD_ARRAYS


def fit_linear_head(x: np.ndarray, y: np.ndarray, c: float, sample_weight: np.ndarray | None = None,
                    class_weight: str | None = None, max_iter: int = 300, n_classes: int = 8) -> dict[str, np.ndarray]:
    """Standardise ``x`` (N, D) and fit scikit-learn's multinomial logistic regression (L2, inverse
    strength ``c``) on class indices ``y`` in [0, ``n_classes``) (AffectNet-8 indices by default); returns
    the head arrays (``coef`` (n_classes, D)). A class absent from ``y`` gets a zero weight row and
    intercept -30 (probability ~0). With two classes the binary fit's weights go to class 1's row and
    class 0's row stays zero, so the head's softmax equals the fitted sigmoid."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    lr = LogisticRegression(C=c, max_iter=max_iter, class_weight=class_weight)
    lr.fit((x - mean) / scale, y, sample_weight=sample_weight)
    coef = np.zeros((n_classes, x.shape[1]), np.float32)
    intercept = np.full(n_classes, -30.0, np.float32)
    if len(lr.classes_) == 2:
        intercept[lr.classes_] = 0.0
        coef[lr.classes_[1]], intercept[lr.classes_[1]] = lr.coef_[0], lr.intercept_[0]
    else:
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
