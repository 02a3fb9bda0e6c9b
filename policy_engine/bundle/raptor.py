"""RAPTOR-style recursive summary tree (SD-RAG Section III-C1; RAPTOR, Sarthi et al. 2024).

One level of the tree is built from the nodes of the level below:

1. reduce their embeddings with UMAP (cosine metric, fixed ``random_state``), or PCA on small levels;
2. fit Gaussian mixtures (diagonal covariances after PCA) with 1..``max_clusters``
   components (a grid, see :func:`candidate_cluster_counts`) and keep the one with the lowest BIC;
3. soft-assign every node to each cluster whose posterior probability is at
   least ``threshold`` (and always to its most likely cluster);
4. summarize each cluster's texts and embed the summaries.

This repeats on the summaries until ``depth`` levels exist, a level collapses
to one node, or clustering stops reducing the node count.  Levels of fewer
than :data:`MIN_UMAP_POINTS` nodes are reduced with PCA instead of UMAP: UMAP's
first call in a process compiles its numba kernels (~10 s on a 2-core machine,
plus ~3 s to import it), a fixed cost that dwarfs the clustering of a small
level (PCA takes milliseconds there), while on large levels its non-linear
neighbourhoods cluster better and the cost is amortized.  Inputs below
:data:`MIN_CLUSTER_POINTS` form a single cluster; identical embeddings form one
cluster as well.  Seeds are fixed, so a build is reproducible.

Summaries are extractive by default: the cluster's sentences most similar
(TF-IDF cosine) to the cluster as a whole, in source order; no model, fully
deterministic.  :class:`AbstractiveSummarizer` asks the local language model
from :mod:`policy_engine.llm.runtime` instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from policy_engine.nlp.sentences import sentences as split_sentences
from policy_engine.policy.model import SummaryTreeSettings

MIN_CLUSTER_POINTS = 4
MIN_UMAP_POINTS = 1000  # below this many nodes a level is reduced with PCA (see the module docstring)
UMAP_EPOCHS = 200
EXACT_NEIGHBOURS_MAX = 4096  # below this UMAP computes exact neighbours (as UMAP itself does)
_DEGENERATE_SPREAD = 1e-6

EmbedFn = Callable[[list[str]], np.ndarray]


class Summarizer(Protocol):
    """Turns the texts of one cluster into one summary text."""

    name: str

    def summarize(self, texts: Sequence[str]) -> str: ...


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (:func:`policy_engine.nlp.sentences.sentences`, one line never continuing the next).

    Lines are split first (headings, list items); within a line a sentence ends
    only at end punctuation followed by a space, so abbreviations ("Dr."),
    e-mail addresses and URLs are never cut.
    """
    return split_sentences(text, lines="break")


class ExtractiveSummarizer:
    """The ``sentences`` sentences most representative of the cluster, in source order."""

    name = "extractive"

    def __init__(self, sentences: int = 3):
        self.sentences = sentences

    def summarize(self, texts: Sequence[str]) -> str:
        from sklearn.feature_extraction.text import TfidfVectorizer

        candidates = list(dict.fromkeys(s for t in texts for s in sentences(t) if len(s.split()) >= 3))
        if len(candidates) <= self.sentences:
            return " ".join(candidates) if candidates else " ".join(" ".join(t.split()) for t in texts)[:2000]
        try:
            matrix = TfidfVectorizer(sublinear_tf=True).fit_transform(candidates)
        except ValueError:  # no usable vocabulary (e.g. only stop words or symbols)
            return " ".join(candidates[: self.sentences])
        centroid = np.asarray(matrix.mean(axis=0)).ravel()
        scores = matrix @ centroid
        best = sorted(np.argsort(-scores, kind="stable")[: self.sentences])
        return " ".join(candidates[i] for i in best)


class AbstractiveSummarizer:
    """Summaries written by the local language model (greedy decoding, deterministic)."""

    name = "abstractive"

    def __init__(self, model_path: str, max_new_tokens: int = 160):
        from policy_engine.llm.runtime import load_model

        self.handle = load_model(model_path)
        self.max_new_tokens = max_new_tokens

    def summarize(self, texts: Sequence[str]) -> str:
        import torch

        from policy_engine.llm.runtime import render_chat

        joined = "\n\n".join(texts)[:6000]
        messages = [
            {"role": "system", "content": "You summarize documents faithfully and concisely."},
            {"role": "user", "content": f"Summarize the following passages in a few sentences:\n\n{joined}"},
        ]
        ids = torch.tensor([render_chat(self.handle, messages)], device=self.handle.device)
        with torch.no_grad():
            out = self.handle.model.generate(ids, max_new_tokens=self.max_new_tokens, do_sample=False)
        return self.handle.tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True).strip()


@dataclass(frozen=True)
class SummaryNode:
    """A summary at ``level`` (1 = summarizes leaves) linked to the nodes it came from."""

    node_id: str
    level: int
    text: str
    children: tuple[str, ...]


@dataclass
class SummaryTree:
    """The flattened tree above the leaves: summaries and their vectors, row-aligned."""

    nodes: list[SummaryNode] = field(default_factory=list)
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))

    @property
    def depth(self) -> int:
        return max((n.level for n in self.nodes), default=0)


def reduce_dimensions(vectors: np.ndarray, settings: SummaryTreeSettings) -> np.ndarray:
    """Projection to ``umap_dim`` dimensions: PCA below :data:`MIN_UMAP_POINTS` points, UMAP (cosine) from there on."""
    n = len(vectors)
    if n < MIN_UMAP_POINTS:
        from sklearn.decomposition import PCA

        return PCA(n_components=min(settings.umap_dim, n - 1), random_state=settings.seed).fit_transform(vectors).astype(np.float64)
    import umap

    data, metric = vectors, "cosine"
    if n <= EXACT_NEIGHBOURS_MAX:
        # UMAP's own exact path calls a Python metric per pair; one matrix product is ~1000x faster
        data = np.clip(1.0 - vectors.astype(np.float64) @ vectors.T.astype(np.float64), 0.0, 2.0)
        np.fill_diagonal(data, 0.0)
        metric = "precomputed"
    reducer = umap.UMAP(
        n_neighbors=max(2, min(settings.umap_neighbors, n - 1)),
        n_components=min(settings.umap_dim, n - 2),
        metric=metric,
        n_epochs=UMAP_EPOCHS,
        random_state=settings.seed,
        init="spectral" if n > 4 * settings.umap_dim else "random",
        n_jobs=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # n_jobs/random_state and small-graph notices
        return reducer.fit_transform(data).astype(np.float64)


def candidate_cluster_counts(n: int, max_clusters: int) -> list[int]:
    """Cluster counts tried by the BIC search: 1..8, then a geometric grid (ratio ~1.4) up to the cap.

    RAPTOR scans every count; a grid keeps the search to ~15 fits at the
    default cap of 50 with the same choice up to grid resolution.
    """
    cap = max(1, min(max_clusters, n // 2))
    counts = set(range(1, min(cap, 8) + 1))
    k = 8.0
    while k < cap:
        k *= 1.4
        counts.add(min(cap, round(k)))
    return sorted(counts)


def cluster(vectors: np.ndarray, settings: SummaryTreeSettings) -> list[list[int]]:
    """Soft clusters (lists of row indices) of ``vectors``: GMM chosen by BIC after UMAP (or PCA, see :func:`reduce_dimensions`).

    Every row belongs to at least one cluster; clusters are returned in a
    deterministic order and empty ones are dropped.
    """
    n = len(vectors)
    if n < MIN_CLUSTER_POINTS or float(np.ptp(vectors, axis=0).max(initial=0.0)) < _DEGENERATE_SPREAD:
        return [list(range(n))]
    from sklearn.mixture import GaussianMixture
    from threadpoolctl import threadpool_limits

    reduced = reduce_dimensions(vectors, settings)
    # PCA axes are uncorrelated, so a small level's mixtures are diagonal: with full covariances BIC's
    # parameter penalty (d(d+3)/2 per component) leaves a ~100-node level only two or three clusters
    covariance = "diag" if n < MIN_UMAP_POINTS else "full"
    best, best_bic = None, np.inf
    with threadpool_limits(1):  # tiny matrices: multi-threaded BLAS only adds contention (13x slower measured)
        for k in candidate_cluster_counts(n, settings.max_clusters):
            gmm = GaussianMixture(n_components=k, covariance_type=covariance, random_state=settings.seed, reg_covar=1e-4, tol=1e-3).fit(reduced)
            bic = gmm.bic(reduced)
            if bic < best_bic:
                best, best_bic = gmm, bic
    assert best is not None
    return soft_members(best.predict_proba(reduced), settings.threshold)


def soft_members(probabilities: np.ndarray, threshold: float) -> list[list[int]]:
    """Rows of each cluster: those with posterior ``>= threshold``, plus each row's most likely cluster."""
    members = probabilities >= threshold
    members[np.arange(len(probabilities)), probabilities.argmax(axis=1)] = True
    return [rows.tolist() for rows in (np.flatnonzero(members[:, c]) for c in range(members.shape[1])) if len(rows)]


def build_summary_tree(
    node_ids: Sequence[str],
    texts: Sequence[str],
    vectors: np.ndarray,
    settings: SummaryTreeSettings,
    embed: EmbedFn,
    summarizer: Summarizer | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SummaryTree:
    """Build up to ``settings.depth`` summary levels above the given leaves.

    ``embed`` maps summary texts to normalized vectors (the corpus embedder);
    ``progress(level, depth)`` is called after each level.
    """
    summarizer = summarizer or ExtractiveSummarizer(settings.summary_sentences)
    tree = SummaryTree(vectors=np.zeros((0, vectors.shape[1] if vectors.ndim == 2 else 0), np.float32))
    ids, level_texts, level_vectors = list(node_ids), list(texts), np.asarray(vectors, dtype=np.float32)
    for level in range(1, settings.depth + 1):
        if len(ids) < 2:
            break
        groups = cluster(level_vectors, settings)
        if level > 1 and len(groups) >= len(ids):
            break  # clustering no longer reduces the level: the tree is complete
        nodes = [
            SummaryNode(f"summary:L{level}:{i:05d}", level, summarizer.summarize([level_texts[r] for r in rows]), tuple(ids[r] for r in rows))
            for i, rows in enumerate(groups)
        ]
        summary_vectors = np.asarray(embed([n.text for n in nodes]), dtype=np.float32)
        tree.nodes.extend(nodes)
        tree.vectors = np.vstack([tree.vectors, summary_vectors])
        if progress:
            progress(level, settings.depth)
        if len(nodes) == 1:
            break
        ids, level_texts, level_vectors = [n.node_id for n in nodes], [n.text for n in nodes], summary_vectors
    return tree
