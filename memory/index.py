"""FAISS index over clip embeddings: inner product on L2-normalised vectors (= cosine similarity).

Exact ``IndexFlatIP`` below ``HNSW_THRESHOLD`` vectors; an ``IndexHNSWFlat`` graph index above it,
where brute-force search stops being cheap (Malkov & Yashunin, 2018, HNSW; FAISS, Douze et al., 2024).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

#: Number of vectors from which an HNSW index replaces exact search (an hour at 2 s stride is 1,800).
HNSW_THRESHOLD = 50_000


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation of a float array (N, D); zero rows stay zero."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-12)


class VectorIndex:
    """Cosine-similarity search over N vectors of dimension D.

    Args:
        vectors: array (N, D); normalised here.
    """

    def __init__(self, vectors: np.ndarray) -> None:
        import faiss

        vecs = l2_normalize(vectors)
        self.dim = vecs.shape[1]
        if len(vecs) >= HNSW_THRESHOLD:
            self._index = faiss.IndexHNSWFlat(self.dim, 32, faiss.METRIC_INNER_PRODUCT)
            self._index.hnsw.efSearch = 128
        else:
            self._index = faiss.IndexFlatIP(self.dim)
        if len(vecs):
            self._index.add(vecs)

    @classmethod
    def load(cls, path: str | os.PathLike) -> VectorIndex:
        """Read an index written by ``save``."""
        import faiss

        obj = cls.__new__(cls)
        obj._index = faiss.read_index(str(path))
        obj.dim = obj._index.d
        return obj

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to ``path`` (callers write into a staging dir, then commit it)."""
        import faiss

        faiss.write_index(self._index, str(Path(path)))

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def vectors(self) -> np.ndarray:
        """The stored vectors (N, D) float32, L2-normalised, in the order they were added."""
        if len(self) == 0:
            return np.zeros((0, self.dim), np.float32)
        return self._index.reconstruct_n(0, len(self))

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-``k`` neighbours of each query row.

        Returns ``(scores, ids)``, both of shape (Q, min(k, N)); scores are cosine similarities. Asked for every
        vector, an HNSW index scores them all exactly (its graph search returns only the part of them it reaches).
        """
        import faiss

        k = min(k, len(self))
        if k == 0:
            q = len(queries)
            return np.zeros((q, 0), np.float32), np.zeros((q, 0), np.int64)
        if k == len(self) and isinstance(self._index, faiss.IndexHNSW):
            scores = l2_normalize(queries) @ self.vectors().T
            ids = np.argsort(-scores, axis=1, kind="stable")
            return np.take_along_axis(scores, ids, axis=1), ids
        return self._index.search(l2_normalize(queries), k)
