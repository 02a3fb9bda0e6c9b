"""FAISS vector index over normalized embeddings (inner product = cosine similarity).

``flat`` is exact search and the default; ``ivf`` (inverted lists, trained
with a fixed seed) and ``hnsw`` (graph) trade a little recall for speed on
large corpora.  Row ``i`` of the index is node ``i`` of the bundle's node list.
Searching a built index is safe from several threads.  FAISS is imported
where an index is built or read, not when this module is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from policy_engine.policy.model import IndexSettings

if TYPE_CHECKING:
    import faiss

#: FAISS wants roughly this many training points per IVF list.
_POINTS_PER_LIST = 39
_IVF_NPROBE = 16
#: One query is too small to split across threads: with OpenMP's spinning workers a flat
#: search over 100,000 vectors measured 40 ms p50 on 2 threads and 8.8 ms on one.  Servers
#: get their parallelism from concurrent requests instead.
SEARCH_THREADS = 1


class VectorIndex:
    """A FAISS index plus the settings it was built with."""

    def __init__(self, index: faiss.Index):
        self.index = index

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    @property
    def dim(self) -> int:
        return int(self.index.d)

    @classmethod
    def build(cls, vectors: np.ndarray, settings: IndexSettings, seed: int = 0) -> VectorIndex:
        """Index ``vectors`` (n x d, normalized float32) with the configured kind.

        IVF falls back to fewer lists when the corpus is too small to train
        ``nlist`` centroids, and to flat search when it is smaller than one list.
        """
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = vectors.shape
        if settings.kind == "hnsw":
            index: faiss.Index = faiss.IndexHNSWFlat(dim, settings.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        elif settings.kind == "ivf" and n >= 2 * _POINTS_PER_LIST:
            nlist = max(1, min(settings.nlist, n // _POINTS_PER_LIST))
            index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, nlist, faiss.METRIC_INNER_PRODUCT)
            index.cp.seed = seed
            index.train(vectors)
            index.nprobe = min(_IVF_NPROBE, nlist)
        else:
            index = faiss.IndexFlatIP(dim)
        if n:
            index.add(vectors)
        return cls(index)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, rows)`` of the ``k`` nearest rows per query, best first; rows are -1 past the end."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        k = max(1, min(k, self.size))
        if self.size == 0:
            return np.zeros((len(queries), 0), np.float32), np.zeros((len(queries), 0), np.int64)
        return self.index.search(queries, k)

    def save(self, path: str | Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: str | Path) -> VectorIndex:
        """Read an index for serving; FAISS search then runs on one OpenMP thread (see :data:`SEARCH_THREADS`)."""
        import faiss

        faiss.omp_set_num_threads(SEARCH_THREADS)
        index = faiss.read_index(str(path))
        if isinstance(index, faiss.IndexIVF):
            index.nprobe = min(_IVF_NPROBE, index.nlist)
        return cls(index)
