"""Constraint binding: attach each constraint to the corpus nodes it concerns (SD-RAG Section III-C1).

Two kinds of binding, merged per (constraint, node):

* **similarity** -- the constraint statement is embedded and bound to its
  ``top_k`` most similar nodes (leaves and summaries) by one batched FAISS
  search, so the cost is linear in the number of constraints;
* **explicit** -- recall first: a constraint is bound to every node in which
  one of its detector ``terms`` occurs (case-insensitive, whitespace- and
  word-boundary-aware), one of its ``patterns`` matches, or (given the
  knowledge graph's entity mentions) an entity of one of its
  ``entity_types`` is mentioned, whatever the similarity.

Every binding carries the cosine similarity of constraint and node and the
reasons it was made (``similarity``, ``term:...``, ``pattern:...``,
``entity:LABEL``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from policy_engine.bundle.index import VectorIndex
from policy_engine.policy.model import BindingSettings, Constraint


@dataclass(frozen=True)
class Binding:
    """Constraint ``constraint_id`` applies to node ``node_id``."""

    constraint_id: str
    node_id: str
    similarity: float
    reasons: tuple[str, ...]

    @property
    def explicit(self) -> bool:
        return any(r != "similarity" for r in self.reasons)


@functools.lru_cache(maxsize=1024)
def term_regex(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    """One case-insensitive regex matching any term as whole words, with flexible whitespace."""
    parts = []
    for term in sorted({" ".join(t.split()) for t in terms if t.strip()}, key=lambda t: (-len(t), t)):
        body = r"\s+".join(re.escape(word) for word in term.split(" "))
        parts.append(rf"(?<!\w){body}(?!\w)")
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def explicit_reasons(constraint: Constraint, text: str, entity_labels: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Why ``constraint`` literally applies to ``text``: matching terms, patterns and entity types."""
    reasons: list[str] = []
    terms = term_regex(tuple(constraint.detect.terms))
    if terms is not None:
        reasons.extend(sorted({f"term:{' '.join(m.group(0).casefold().split())}" for m in terms.finditer(text)}))
    for pattern in constraint.detect.patterns:
        if re.search(pattern, text):
            reasons.append(f"pattern:{pattern}")
    reasons.extend(f"entity:{label}" for label in sorted(set(constraint.detect.entity_types) & set(entity_labels)))
    return reasons


def bind_constraints(
    constraints: Sequence[Constraint],
    constraint_vectors: np.ndarray,
    node_ids: Sequence[str],
    node_texts: Sequence[str],
    node_vectors: np.ndarray,
    index: VectorIndex,
    settings: BindingSettings,
    node_entity_labels: Mapping[str, set[str]] | None = None,
) -> list[Binding]:
    """All bindings, sorted by constraint then node; see the module docstring for the rules.

    ``index`` must hold ``node_vectors`` row for row with ``node_ids``.
    """
    found: dict[tuple[int, int], list[str]] = {}
    if len(constraints) and len(node_ids):
        _, rows = index.search(constraint_vectors, settings.top_k)
        for ci, hits in enumerate(rows):
            for row in hits:
                if row >= 0:
                    found.setdefault((ci, int(row)), []).append("similarity")
    if settings.explicit:
        labels = node_entity_labels or {}
        for ci, constraint in enumerate(constraints):
            if not (constraint.detect.terms or constraint.detect.patterns or constraint.detect.entity_types):
                continue
            for row, (node_id, text) in enumerate(zip(node_ids, node_texts)):
                reasons = explicit_reasons(constraint, text, labels.get(node_id, set()))
                if reasons:
                    found.setdefault((ci, row), []).extend(reasons)
    bindings = [
        Binding(constraints[ci].id, node_ids[row], float(np.dot(constraint_vectors[ci], node_vectors[row])), tuple(reasons))
        for (ci, row), reasons in found.items()
    ]
    return sorted(bindings, key=lambda b: (b.constraint_id, b.node_id))
