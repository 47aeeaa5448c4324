"""Small linear heads trained here (``studies/train_face.py``, ``studies/train_voice.py``, ``studies/train_text.py``,
``studies/train_appearance.py``), read at run time.

A head is four arrays in an ``.npz``: ``mean`` and ``scale`` (D,) standardise the input, ``coef``
(K, D) and ``intercept`` (K,) give the logits of K classes: AffectNet-8 for the emotion heads (rows in
``tools.core.schema.AFFECTNET8`` order), the classes of ``tools.perception.appearance`` for the appearance heads. One file
may hold several heads, each's arrays named with a prefix (``gender_mean``, ...).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

HEAD_ARRAYS = ("mean", "scale", "coef", "intercept")


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(z) / sum(exp(z)) along ``axis``, shifted by the maximum for stability: the operations of
    ``scipy.special.softmax`` in the same order (the same bits), without importing SciPy, which a question would
    otherwise import for this alone (``evals/RESULTS.md`` section 72)."""
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


class LinearHead:
    """Multinomial logistic regression over standardised features.

    Args:
        arrays: a mapping (e.g. an open ``.npz``) with ``HEAD_ARRAYS``.
    """

    def __init__(self, arrays: Mapping) -> None:
        self._a = {k: np.asarray(arrays[k], np.float32) for k in HEAD_ARRAYS}

    @classmethod
    def load(cls, path: str | os.PathLike, prefix: str = "") -> LinearHead:
        """Read a head file (the arrays named ``prefix`` + ``HEAD_ARRAYS``).

        Raises:
            FileNotFoundError: ``path`` does not exist.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"head not found at {path}")
        with np.load(path) as h:
            return cls({k: h[prefix + k] for k in HEAD_ARRAYS})

    def probs(self, x: np.ndarray) -> np.ndarray:
        """Probabilities (N, K) for feature rows ``x`` (N, D) (a single row (D,) is taken as N = 1)."""
        a = self._a
        z = ((np.atleast_2d(x) - a["mean"]) / a["scale"]) @ a["coef"].T + a["intercept"]
        return softmax(z, axis=1).astype(np.float32)
