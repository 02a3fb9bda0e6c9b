"""Fused text representation of an answer (PPE Section V-A, with local encoders).

Three views, each L2-normalized, concatenated and normalized again:

* **semantic**: all-MiniLM-L6-v2 sentence embedding (384-d, the project's
  shared embedder from :mod:`policy_engine.nlp.embedding`, loaded once);
* **word**: TF-IDF over hashed word 1-2-grams;
* **char**: TF-IDF over hashed character 3-5-grams within word boundaries;
* **qi**: the QI profile of :mod:`enforcers.output_guard.qi_spans` (per QI class
  of the domain: 1 when a span is bound to a referenced subject, 0.5 when
  only unbound spans occur), a view that no generator family's wording owns.

The sparse TF-IDF views are projected to ``dims`` columns by a fixed Gaussian
random projection regenerated from ``seed`` (Johnson-Lindenstrauss), so the
only fitted state is the two IDF vectors: a trained featurizer is plain
arrays (no pickles) and loads in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer

from enforcers.output_guard.domains import qi_classes
from enforcers.output_guard.qi_spans import QISpan, find_qi_spans
from policy_engine.nlp.embedding import Embedder, normalize

HASH_FEATURES = 2**15
#: Weight of each view in the fused vector (each view is unit-norm before weighting); chosen by
#: leave-one-training-family-out AUROC (bench/output_guard/tune.py), never on the held-out family.
WEIGHTS = {"semantic": 1.0, "lexical": 0.25, "qi": 2.0}
_VIEWS = {
    "word": {"analyzer": "word", "ngram_range": (1, 2)},
    "char": {"analyzer": "char_wb", "ngram_range": (3, 5)},
}


@lru_cache(maxsize=4)
def _projection(seed: int, dims: int, view: str) -> np.ndarray:
    rng = np.random.default_rng([seed, dims, list(_VIEWS).index(view)])
    return (rng.standard_normal((HASH_FEATURES, dims)) / np.sqrt(dims)).astype(np.float32)


@lru_cache(maxsize=2)
def _hasher(view: str) -> HashingVectorizer:
    return HashingVectorizer(n_features=HASH_FEATURES, alternate_sign=False, norm=None, lowercase=True, **_VIEWS[view])  # type: ignore[arg-type]


def _counts(view: str, texts: Sequence[str]) -> sparse.csr_matrix:
    counts = _hasher(view).transform(list(texts)).tocsr()
    counts.data = 1.0 + np.log(counts.data)  # sublinear term frequency
    return counts


def _project(rows: sparse.csr_matrix, projection: np.ndarray) -> np.ndarray:
    """``rows @ projection``, gathering only the projection rows each sparse row uses (much faster than scipy's product here)."""
    out = np.zeros((rows.shape[0], projection.shape[1]), dtype=np.float32)
    for i in range(rows.shape[0]):
        lo, hi = rows.indptr[i], rows.indptr[i + 1]
        out[i] = rows.data[lo:hi].astype(np.float32) @ projection[rows.indices[lo:hi]]
    return out


def qi_row(spans: Sequence[QISpan], domain: str) -> tuple[float, ...]:
    """The QI view of one text from its QI spans: per class 1 (bound), 0.5 (unbound only) or 0, scaled to norm <= 1."""
    classes = qi_classes(domain)
    row = [0.0] * len(classes)
    for span in spans:
        column = classes.index(span.qi_class)
        row[column] = max(row[column], 1.0 if span.subject else 0.5)
    return tuple(v / np.sqrt(len(classes)) for v in row)


@lru_cache(maxsize=8192)
def _qi_row(text: str, domain: str) -> tuple[float, ...]:
    """:func:`qi_row` of the spans found in ``text`` (cached: training refits the featurizer per family fold over the same texts)."""
    return qi_row(find_qi_spans(text, domain), domain)


class FusedFeaturizer:
    """Maps answers to fused, L2-normalized vectors of width ``dim``."""

    def __init__(self, embedder: Embedder, domain: str, idf: dict[str, np.ndarray], dims: int = 128, seed: int = 17) -> None:
        self.embedder = embedder
        self.domain = domain
        self.idf = idf
        self.dims = dims
        self.seed = seed

    @classmethod
    def fit(cls, embedder: Embedder, domain: str, texts: Sequence[str], dims: int = 128, seed: int = 17) -> FusedFeaturizer:
        """Learn the IDF of both sparse views from ``texts`` (smoothed, as scikit-learn's TfidfTransformer)."""
        idf = {}
        for view in _VIEWS:
            df = np.bincount(_counts(view, texts).indices, minlength=HASH_FEATURES)
            idf[view] = (np.log((1 + len(texts)) / (1 + df)) + 1.0).astype(np.float32)
        return cls(embedder, domain, idf, dims, seed)

    @property
    def dim(self) -> int:
        return self.embedder.dim + 2 * self.dims + len(qi_classes(self.domain))

    def lexical(self, texts: Sequence[str]) -> np.ndarray:
        """The two projected TF-IDF views side by side (each row-normalized)."""
        blocks = []
        for view in _VIEWS:
            weighted = _counts(view, texts).multiply(self.idf[view]).tocsr()
            blocks.append(normalize(_project(weighted, _projection(self.seed, self.dims, view))))
        return np.hstack(blocks)

    def qi_view(self, texts: Sequence[str], spans: Sequence[Sequence[QISpan]] | None = None) -> np.ndarray:
        """Per text, :func:`qi_row` of its QI spans (found in the text unless ``spans`` gives them)."""
        rows = [_qi_row(text, self.domain) for text in texts] if spans is None else [qi_row(found, self.domain) for found in spans]
        return np.array(rows, dtype=np.float32).reshape(len(texts), len(qi_classes(self.domain)))

    def fuse(self, embeddings: np.ndarray, texts: Sequence[str], spans: Sequence[Sequence[QISpan]] | None = None) -> np.ndarray:
        """Fused vectors from precomputed semantic ``embeddings`` of ``texts`` (``spans``: see :meth:`qi_view`)."""
        parts = [WEIGHTS["semantic"] * normalize(embeddings), WEIGHTS["lexical"] * self.lexical(texts), WEIGHTS["qi"] * self.qi_view(texts, spans)]
        return normalize(np.hstack(parts))

    def transform(self, texts: Sequence[str], spans: Sequence[Sequence[QISpan]] | None = None) -> np.ndarray:
        return self.fuse(self.embedder.embed(list(texts)), texts, spans)

    def state(self) -> dict[str, np.ndarray]:
        """Arrays that, with ``dims``/``seed`` and the embedder, rebuild this featurizer."""
        return {f"idf_{view}": self.idf[view] for view in _VIEWS}

    @classmethod
    def from_state(cls, embedder: Embedder, domain: str, arrays: dict[str, np.ndarray], dims: int, seed: int) -> FusedFeaturizer:
        return cls(embedder, domain, {view: np.asarray(arrays[f"idf_{view}"], dtype=np.float32) for view in _VIEWS}, dims, seed)
