"""Emotion and cue scores of a text by sentence-embedding similarity to ``tools.lexicon`` phrases.

A zero-shot text classifier in the style of embedding-similarity labelling (e.g. Yin et al., 2019,
zero-shot text classification benchmarks): each label's score is the highest cosine similarity
(all-MiniLM-L6-v2) between the text and the label's descriptions.
"""

from __future__ import annotations

import functools

import numpy as np

from tools.lexicon import CUE_DESCRIPTIONS, EMOTION_DESCRIPTIONS
from tools.schema import AFFECTNET8
from tools.text import TextEncoder, load_text_encoder


class LexiconTextEmotion:
    """Scores texts against the AffectNet-8 and cue descriptions with ``encoder``."""

    def __init__(self, encoder: TextEncoder) -> None:
        self.encoder = encoder
        self.name = f"lexicon-similarity:{encoder.name}"
        self._emo = {k: encoder.encode(v) for k, v in EMOTION_DESCRIPTIONS.items()}
        self._cue = {k: encoder.encode(v) for k, v in CUE_DESCRIPTIONS.items()}

    def similarities(self, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """Cosine similarity (-1..1) of ``text`` to each emotion and each cue (max over phrases)."""
        q = self.encoder.encode([text])[0]
        return ({k: float((v @ q).max()) for k, v in self._emo.items()},
                {k: float((v @ q).max()) for k, v in self._cue.items()})

    def distribution(self, text: str, temperature: float = 0.05) -> dict[str, float]:
        """Softmax over AffectNet-8 of the emotion similarities (``temperature`` in cosine units)."""
        emotions, _ = self.similarities(text)
        from scipy.special import softmax

        p = softmax(np.array([emotions[k] for k in AFFECTNET8]) / temperature)
        return {k: round(float(v), 4) for k, v in zip(AFFECTNET8, p, strict=True)}


@functools.lru_cache(maxsize=4)
def load_text_emotion(device: str = "cpu") -> LexiconTextEmotion:
    """The cached lexicon scorer on the default text encoder."""
    return LexiconTextEmotion(load_text_encoder(model=None, device=device))
