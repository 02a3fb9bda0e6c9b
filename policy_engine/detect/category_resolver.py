"""Constraint-to-category resolution: keywords plus embedding similarity.

The lexical resolver (:func:`policy_engine.policy.resolution.resolve_constraint`)
finds categories whose keywords appear in the statement.  This module puts
all-MiniLM-L6-v2 similarity between the statement and each category's
description on top (SD-RAG Section III-B: a constraint refers to sensitive
categories; the paper leaves the mapping to a model, here it is explicit and
inspectable):

* explicit ``detect.categories`` are kept as they are (confidence 1);
* a keyword category is always kept (failing towards hiding more), scored
  ``0.6 * keyword + 0.4 * similarity``; a keyword whose category description
  is semantically far from the statement ("hide the *project name*" is not
  a person's name) gets a low score, which ``explain`` reports as a warning;
* when no keyword matched, categories whose similarity reaches
  :data:`SIMILARITY_ALONE` are taken from the embedding alone, with the
  similarity as their score.

``similarity`` is cosine similarity rescaled from [:data:`SIM_FLOOR`,
:data:`SIM_CEILING`] to [0, 1]; scores below :data:`LOW_CONFIDENCE` are low
confidence.  The resolver is what the runtime's :class:`~policy_engine.detect.Analyzer`
uses by default.  Thread-safe (the embedder serializes its own calls).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.policy.model import Constraint, Policy
from policy_engine.policy.resolution import CategoryMatch, Resolution, resolve_constraint
from policy_engine.policy.vocabulary import Vocabulary, vocabulary_for

#: Cosine similarity at or below which a description is unrelated to a statement.
SIM_FLOOR = 0.15
#: Cosine similarity at or above which a description matches a statement fully.
SIM_CEILING = 0.6
#: Weight of the keyword score in the combined score (the rest is similarity).
KEYWORD_WEIGHT = 0.6
#: Rescaled similarity a category needs to be chosen without any keyword.
SIMILARITY_ALONE = 0.45
#: Combined scores below this are low-confidence resolutions (``explain`` warns).
LOW_CONFIDENCE = 0.5


@dataclass(frozen=True)
class CategoryScore:
    """How well one category fits one statement."""

    category: str
    keyword: float  # lexical score, 0 when no keyword matched
    similarity: float  # rescaled cosine similarity in [0, 1]
    cosine: float  # raw cosine similarity
    keywords: tuple[str, ...]


def rescale(cosine: float) -> float:
    return float(min(1.0, max(0.0, (cosine - SIM_FLOOR) / (SIM_CEILING - SIM_FLOOR))))


class CategoryResolver:
    """Resolves constraints to categories with keywords and description embeddings."""

    def __init__(self, vocabulary: Vocabulary, embedder: Embedder, known: Mapping[str, np.ndarray] | None = None) -> None:
        """``known``: vectors already computed by ``embedder``'s model (text -> vector); other texts are embedded."""
        self.vocabulary = vocabulary
        self._embedder = embedder
        self._known = dict(known or {})
        self._ids = list(vocabulary.categories)
        descriptions = tuple(vocabulary.categories[c].description for c in self._ids)
        if all(d in self._known for d in descriptions):
            self._descriptions = np.stack([self._known[d] for d in descriptions]) if descriptions else np.zeros((0, embedder.dim), np.float32)
        else:
            self._descriptions = _description_vectors(embedder, descriptions)
        self._cache: dict[str, Resolution] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_policy(cls, policy: Policy, embedder: Embedder | None = None, known: Mapping[str, np.ndarray] | None = None) -> CategoryResolver:
        """Resolver over the policy's vocabulary and ``embedder`` (default: the policy's embedding model, loaded once per process)."""
        return cls(vocabulary_for(policy.vocabulary), embedder or load_embedder(policy.corpus.embedding, policy.root_dir), known)

    def scores(self, constraint: Constraint) -> list[CategoryScore]:
        """Keyword and similarity scores of every category for ``constraint``, best first."""
        lexical = {m.category: m for m in resolve_constraint(constraint.model_copy(update={"detect": constraint.detect.model_copy(update={"categories": []})}), self.vocabulary).categories}
        vector = self._known.get(constraint.statement)
        cosines = self._descriptions @ (vector if vector is not None else self._embedder.embed([constraint.statement])[0])
        out = []
        for cat_id, cosine in zip(self._ids, cosines):
            match = lexical.get(cat_id)
            out.append(CategoryScore(cat_id, match.score if match else 0.0, rescale(float(cosine)), float(cosine), match.evidence if match else ()))
        return sorted(out, key=lambda s: (-combined(s), s.category))

    def resolve(self, constraint: Constraint) -> Resolution:
        """The constraint's categories, roles and polarity, with combined scores as evidence."""
        key = constraint.model_dump_json()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        resolution = self._resolve(constraint)
        with self._lock:
            self._cache[key] = resolution
        return resolution

    def _resolve(self, constraint: Constraint) -> Resolution:
        lexical = resolve_constraint(constraint, self.vocabulary)
        if lexical.method == "explicit" and constraint.detect.categories:
            return lexical
        scores = self.scores(constraint)
        chosen = [s for s in scores if s.keyword > 0]
        method = "keywords+embedding"
        if not chosen:
            chosen = [s for s in scores if s.similarity >= SIMILARITY_ALONE]
            method = "embedding" if chosen else lexical.method
        if not chosen:
            return lexical
        matches = tuple(
            CategoryMatch(s.category, round(combined(s), 3), s.keywords + (f"similarity={s.cosine:.2f}",)) for s in chosen
        )
        return Resolution(constraint.id, matches, lexical.roles, lexical.polarity, max(m.score for m in matches), method)


_DESCRIPTION_VECTORS: dict[tuple[str, str, str, tuple[str, ...]], np.ndarray] = {}
_DESCRIPTION_LOCK = threading.Lock()


def description_vectors(vocabulary: Vocabulary, embedder: Embedder) -> dict[str, np.ndarray]:
    """Each category description of ``vocabulary`` -> its vector, computed as a resolver computes it (one batch, vocabulary order)."""
    descriptions = tuple(c.description for c in vocabulary.categories.values())
    return dict(zip(descriptions, _description_vectors(embedder, descriptions)))


def _description_vectors(embedder: Embedder, descriptions: tuple[str, ...]) -> np.ndarray:
    """Embeddings of the category descriptions, computed once per process, model and vocabulary."""
    key = (embedder.model_id, embedder.model_version, embedder.precision, descriptions)
    with _DESCRIPTION_LOCK:
        if key not in _DESCRIPTION_VECTORS:
            _DESCRIPTION_VECTORS[key] = embedder.embed(list(descriptions))
        return _DESCRIPTION_VECTORS[key]


def combined(score: CategoryScore) -> float:
    """Keyword and similarity evidence in one number in [0, 1]."""
    if score.keyword > 0:
        return KEYWORD_WEIGHT * score.keyword + (1 - KEYWORD_WEIGHT) * score.similarity
    return score.similarity
