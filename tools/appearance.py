"""How a person looks to annotators, read from their face identity descriptors: gender as annotated
(woman / man) and an age group, for grounding "she", "the man", "the older woman" offline.

Two linear heads (``tools.heads.LinearHead``, file ``APPEARANCE_HEAD``) over the 128-d dlib face
descriptors the index already computes for re-identification (``tools.identity``), trained on UTKFace's
annotated gender and age (Zhang, Song and Qi, 2017, "Age Progression/Regression by Conditional Adversarial
Autoencoder", CVPR) by ``studies.train_appearance``; accuracy and limits in ``tools/models/APPEARANCE.md``.
The gender head reads the binary gender UTKFace's annotators gave a face, not anyone's gender identity;
answers therefore say "read as a woman" with its probability.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from tools.heads import LinearHead

APPEARANCE_HEAD = Path(__file__).parent / "models" / "appearance_head.npz"
#: Classes of the gender head (UTKFace gender 1 = female -> "woman", 0 = male -> "man").
GENDERS = ("woman", "man")
#: Classes of the age head: ages [0, 13), [13, 20), [20, 40), [40, 60), 60 and over (years).
AGE_GROUPS = ("child", "teenager", "young adult", "middle-aged", "older adult")
#: Lower age (years) of every age group after the first.
AGE_EDGES = (13, 20, 40, 60)
#: Age groups each age word of a question covers ("the older man": middle-aged or older adult).
AGE_WORDS: dict[str, tuple[str, ...]] = {
    "older": ("middle-aged", "older adult"),
    "young": ("child", "teenager", "young adult"),
    "child": ("child", "teenager"),
}


def age_group(age: float) -> int:
    """Index in ``AGE_GROUPS`` of an age in years."""
    return int(np.digitize(age, AGE_EDGES))


class Appearance(BaseModel):
    """A person's (or track's) appearance as the heads read it, averaged over their read faces."""

    woman: float = Field(ge=0, le=1, description="probability that annotators would call the face a woman's")
    age: dict[str, float] = Field(description="probability of each of AGE_GROUPS")
    faces: int = Field(ge=1, description="face descriptors read")

    def p_gender(self, gender: str) -> float:
        """Probability of ``gender`` ("woman" or "man")."""
        return self.woman if gender == "woman" else 1.0 - self.woman

    def p_age(self, word: str) -> float:
        """Probability of an ``AGE_WORDS`` word ("older", "young", "child")."""
        return sum(self.age[g] for g in AGE_WORDS[word])

    @property
    def text(self) -> str:
        """In words: "read as a woman (0.93), young adult (0.61)"."""
        gender = "a woman" if self.woman >= 0.5 else "a man"
        group = max(self.age, key=self.age.get)
        return f"read as {gender} ({max(self.woman, 1 - self.woman):.2f}), {group} ({self.age[group]:.2f})"

    @classmethod
    def combine(cls, readings: list[Appearance]) -> Appearance | None:
        """One reading from several (e.g. a person's tracks), weighted by faces read; None for none."""
        if not readings:
            return None
        w = np.asarray([r.faces for r in readings], float)
        return cls(woman=round(float(np.average([r.woman for r in readings], weights=w)), 4),
                   age={g: round(float(np.average([r.age[g] for r in readings], weights=w)), 4) for g in AGE_GROUPS},
                   faces=int(w.sum()))


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
