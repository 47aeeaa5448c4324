"""How a person looks to annotators, read from their face identity descriptors: gender as annotated
(woman / man) and an age group, for grounding "she", "the man", "the older woman" offline.

Two linear heads (``tools.perception.heads.LinearHead``, file ``APPEARANCE_HEAD``) over the 128-d dlib face
descriptors the index already computes for re-identification (``tools.perception.identity``), trained on UTKFace's
annotated gender and age (Zhang, Song and Qi, 2017, "Age Progression/Regression by Conditional Adversarial
Autoencoder", CVPR) by ``studies.train_appearance``; accuracy and limits in ``tools/models/APPEARANCE.md``.
The gender head reads the binary gender UTKFace's annotators gave a face, not anyone's gender identity;
answers therefore say "read as a woman" with its probability.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from tools.core.schema import AGE_GROUPS, Appearance
from tools.perception.heads import LinearHead

APPEARANCE_HEAD = Path(__file__).parents[1] / "models" / "appearance_head.npz"
#: Lower age (years) of every age group after the first.
AGE_EDGES = (13, 20, 40, 60)
def age_group(age: float) -> int:
    """Index in ``AGE_GROUPS`` of an age in years."""
    return int(np.digitize(age, AGE_EDGES))


class AppearanceReader:
    """The gender and age heads of ``APPEARANCE_HEAD`` (arrays prefixed ``gender_`` and ``age_``).

    Raises:
        FileNotFoundError: the head file is missing.
    """

    def __init__(self, path: str | Path = APPEARANCE_HEAD) -> None:
        self.gender = LinearHead.load(path, "gender_")
        self.age = LinearHead.load(path, "age_")

    def probs(self, descriptors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gender probabilities (N, 2) in ``GENDERS`` order, age probabilities (N, 5) in ``AGE_GROUPS``
        order) for dlib face descriptors (N, 128)."""
        return self.gender.probs(descriptors), self.age.probs(descriptors)

    def read(self, descriptors: np.ndarray) -> Appearance:
        """One ``Appearance`` for the faces of one person or track: the mean of the per-face probabilities
        of descriptors (N, 128), N >= 1.

        Raises:
            ValueError: no descriptor.
        """
        d = np.atleast_2d(descriptors)
        if not len(d):
            raise ValueError("no face descriptor to read")
        g, a = self.probs(d)
        return Appearance(woman=round(float(g[:, 0].mean()), 4),
                          age={k: round(float(v), 4) for k, v in zip(AGE_GROUPS, a.mean(axis=0), strict=True)},
                          faces=len(d))


@lru_cache(maxsize=2)
def load_appearance_reader(path: str | None = None) -> AppearanceReader:
    """The cached ``AppearanceReader`` of ``path`` (default ``APPEARANCE_HEAD``)."""
    return AppearanceReader(path or APPEARANCE_HEAD)
