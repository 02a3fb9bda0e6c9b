"""Constraint ranking at retrieval time (SD-RAG Sections III-C1 and IV-C2).

After the query retrieved chunks ``R`` (with query similarities ``s_i``), the
candidate constraints are the union of the constraints bound to them.  Each
candidate ``c`` (embedding ``e_c``) is scored by one of five strategies:

* ``concat`` -- cos(e_c, embedding of the retrieved texts joined);
* ``query`` -- cos(e_c, e_query);
* ``max`` -- max_i cos(e_c, e_i);
* ``mean`` -- mean_i cos(e_c, e_i);
* ``weighted_mean`` (default, best in the paper) -- sum_i w_i cos(e_c, e_i) / sum_i w_i
  with w_i = max(s_i, 0) (plain mean when every weight is 0).

The top ``max_constraints`` candidates are kept.  Candidates of severity
``high`` or ``critical``, and candidates whose detector hints (terms,
patterns, entity types) match a retrieved chunk (explicit bindings), are never cut:
dropping a constraint that governs retrieved text is a privacy failure.  Every constraint not kept is reported
with its score and the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from policy_engine.bundle.corpus import Chunk
from policy_engine.policy.model import Constraint, ConstraintSeverity

STRATEGIES = ("concat", "query", "max", "mean", "weighted_mean")
DEFAULT_STRATEGY = "weighted_mean"
PROTECTED_SEVERITIES = frozenset({ConstraintSeverity.HIGH, ConstraintSeverity.CRITICAL})


@dataclass(frozen=True)
class RetrievedChunk:
    """A retrieved node (leaf or summary) and its cosine similarity to the query."""

    chunk: Chunk
    score: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (an operator's debugging view: it holds the chunk's text)."""
        return {"chunk_id": self.chunk.chunk_id, "score": self.score, "level": self.chunk.level, "text": self.chunk.text}


@dataclass(frozen=True)
class RankedConstraint:
    """A kept constraint, its strategy score, the retrieved chunks it is bound to and why it was kept."""

    constraint: Constraint
    score: float
    chunk_ids: tuple[str, ...]
    kept_because: str = "ranked within the cut"


@dataclass(frozen=True)
class DroppedConstraint:
    """A constraint that will not be applied to this context, and why."""

    constraint: Constraint
    score: float
    reason: str


@dataclass
class ConstraintRanking:
    """The constraints kept for a retrieved context and the ones dropped, with the strategy that ranked them."""

    strategy: str
    kept: list[RankedConstraint] = field(default_factory=list)
    dropped: list[DroppedConstraint] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (what ``policy-engine query -f json`` prints beside the chunks)."""
        return {
            "strategy": self.strategy,
            "kept": [{"id": k.constraint.id, "score": k.score, "severity": k.constraint.severity.value, "chunk_ids": list(k.chunk_ids)} for k in self.kept],
            "dropped": [{"id": d.constraint.id, "score": d.score, "reason": d.reason} for d in self.dropped],
        }


def strategy_scores(
    strategy: str,
    constraint_vectors: np.ndarray,
    query_vector: np.ndarray,
    chunk_vectors: np.ndarray,
    chunk_scores: np.ndarray,
    context_vector: np.ndarray | None = None,
) -> np.ndarray:
    """Score every row of ``constraint_vectors`` (normalized) with ``strategy``.

    ``context_vector`` (the embedding of the joined retrieved texts) is
    required by ``concat`` only.
    """
    if strategy == "query":
        return constraint_vectors @ query_vector
    if strategy == "concat":
        if context_vector is None:
            raise ValueError("the 'concat' strategy needs the embedding of the joined retrieved chunks")
        return constraint_vectors @ context_vector
    if len(chunk_vectors) == 0:
        return np.zeros(len(constraint_vectors), dtype=np.float32)
    sims = constraint_vectors @ chunk_vectors.T  # constraints x chunks
    if strategy == "max":
        return sims.max(axis=1)
    if strategy == "mean":
        return sims.mean(axis=1)
    if strategy == "weighted_mean":
        weights = np.clip(np.asarray(chunk_scores, dtype=np.float32), 0.0, None)
        if float(weights.sum()) <= 0.0:
            return sims.mean(axis=1)
        return sims @ weights / weights.sum()
    raise ValueError(f"unknown ranking strategy '{strategy}'; choose one of {', '.join(STRATEGIES)}")


def rank(
    constraints: Sequence[Constraint],
    scores: np.ndarray,
    candidates: Mapping[str, Sequence[str]],
    max_constraints: int,
    strategy: str,
    literal: Set[str] = frozenset(),
) -> ConstraintRanking:
    """Keep the best ``max_constraints`` candidates plus every protected one (see the module docstring).

    ``scores`` is row-aligned with ``constraints``; ``candidates`` maps the id
    of every constraint bound to a retrieved chunk to those chunk ids;
    ``literal`` holds the ids explicitly bound to a retrieved chunk.
    """
    ranking = ConstraintRanking(strategy)
    order = sorted(range(len(constraints)), key=lambda i: (-float(scores[i]), constraints[i].id))
    position = 0
    for i in order:
        c, score = constraints[i], float(scores[i])
        if c.id not in candidates:
            ranking.dropped.append(DroppedConstraint(c, score, "not bound to any retrieved chunk"))
            continue
        position += 1
        if position <= max_constraints:
            why = f"ranked {position} of {len(candidates)}"
        elif c.severity in PROTECTED_SEVERITIES:
            why = f"severity {c.severity.value}: never cut"
        elif c.id in literal:
            why = "its detector hints (terms, patterns, entity types) match a retrieved chunk: never cut"
        else:
            ranking.dropped.append(DroppedConstraint(c, score, f"ranked {position} of {len(candidates)} candidates, below the cut of {max_constraints} ({strategy}), neither high-severity nor matched by its terms or patterns"))
            continue
        ranking.kept.append(RankedConstraint(c, score, tuple(candidates[c.id]), why))
    return ranking
