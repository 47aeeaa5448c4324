"""FAISS index over clip embeddings: inner product on L2-normalised vectors (= cosine similarity).

Exact ``IndexFlatIP`` below ``HNSW_THRESHOLD`` vectors; an ``IndexHNSWFlat`` graph index above it,
where brute-force search stops being cheap (Malkov & Yashunin, 2018, HNSW; FAISS, Douze et al., 2024). The localizer
scores every stored vector of a question's searches (``agents.localizer``, evals/RESULTS.md section 172), so it does not
use the graph; ``VectorIndex.search`` answers a top k below N from it.

FAISS stores the vectors; the exact search's cosines are computed here in float64 and rounded to float32
(``VectorIndex.cosines``). FAISS's own inner products run the SIMD kernels of the CPU at hand (its dynamic
dispatch: generic, AVX2, AVX-512), and their float32 sums differ in the last bits between them (over twelve real
indexes, 2,140 of 3,196 cosines differed by up to 3.6e-7 between ``FAISS_SIMD_LEVEL=NONE`` and AVX2;
``evals/RESULTS.md`` section 170), so two machines could rank near-tied clips apart. Summed in float64 the ways of
summing differ by about 1e-16, far below float32's step, so the rounded cosines are the same bits on any x86-64 CPU
unless one lies that close to a rounding edge.
"""

from __future__ import annotations

import functools
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


def ranking(scores: np.ndarray, k: int | None = None) -> np.ndarray:
    """The indices of each row of ``scores`` (Q, N) best first, a tie in stored order (a stable sort): (Q, min(k, N)),
    every index when ``k`` is None; the order ``VectorIndex.search`` gives an exact index.

    Raises:
        ValueError: ``k`` is negative.
    """
    if k is not None and k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    return np.argsort(-scores, axis=-1, kind="stable")[..., :k]


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

        Returns ``(scores, ids)``, both of shape (Q, min(k, N)); scores are cosine similarities (``cosines``), best
        first, a tie in the order the vectors were added. An HNSW index answers a top ``k`` below N from its graph
        (approximate, and FAISS's kernels, so not the same bits on every CPU); asked for every vector it scores them
        all exactly (its graph search returns only the part of them it reaches).

        Raises:
            ValueError: ``k`` is negative.
        """
        import faiss

        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        k = min(k, len(self))
        if k == 0:
            q = len(queries)
            return np.zeros((q, 0), np.float32), np.zeros((q, 0), np.int64)
        if k < len(self) and isinstance(self._index, faiss.IndexHNSW):
            return self._index.search(l2_normalize(queries), k)
        scores = self.cosines(queries)
        ids = ranking(scores, k)
        return np.take_along_axis(scores, ids, axis=1), ids

    def cosines(self, queries: np.ndarray) -> np.ndarray:
        """Cosine similarity of each query row (Q, D) with every stored vector: (Q, N) float32, computed in float64
        and rounded once, so the same bits on any x86-64 CPU (module doc); a zero query scores 0. The first call keeps
        a float64 copy of the vectors (8 x N x D bytes: 5.5 MB for an hour's 1,800 clips)."""
        q = np.asarray(queries, dtype=np.float64)
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        return (q @ self._vectors64.T).astype(np.float32)

    @functools.cached_property
    def _vectors64(self) -> np.ndarray:
        return self.vectors().astype(np.float64)
