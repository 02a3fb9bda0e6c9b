"""The ``kg_erasure`` decision-record section: what was erased, by id or hash, never the values.

Policy triples are named ``private:<i>`` / ``public:<i>`` (their index in
:meth:`PrivateKnowledge.private_triples` / ``public``); an entity the policy
does not name is ``h:<12 hex>``, a SHA-256 prefix of its normalized form.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


def entity_ref(form: str) -> str:
    """Hash reference of an entity form (no raw value in records)."""
    return "h:" + hashlib.sha256(form.encode("utf-8")).hexdigest()[:12]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ErasedTriple(_Frozen):
    triple: str = Field(description="private:<i>")
    chunk_id: str
    action: Literal["clause_dropped", "tail_generalized", "evidence_dropped"]


class RemovedEntity(_Frozen):
    triple: str = Field(description="private:<i> of the standalone entity's self-loop")
    chunk_id: str
    mentions: int


class CutConnection(_Frozen):
    triple: str = Field(description="the private triple whose head and tail were connected")
    edges: list[tuple[str, str]] = Field(description="cut edges as pairs of entity references")
    chunk_ids: list[str]
    conflict: bool = False


class SacrificedPublic(_Frozen):
    triple: str = Field(description="public:<i> erased to cut a private connection")
    for_triple: str


class SummaryDecision(_Frozen):
    chunk_id: str
    action: Literal["resummarized", "withheld"]


class KGErasureSection(_Frozen):
    """Typed record of one request's erasure (Eraser4RAG Sections 2 and 4.1.3)."""

    version: str
    on_conflict: str
    triples_erased: list[ErasedTriple] = Field(default_factory=list)
    entities_removed: list[RemovedEntity] = Field(default_factory=list)
    connections_cut: list[CutConnection] = Field(default_factory=list)
    public_sacrificed: list[SacrificedPublic] = Field(default_factory=list)
    summaries: list[SummaryDecision] = Field(default_factory=list)
    withheld: list[str] = Field(default_factory=list, description="chunk ids withheld (on_conflict: withhold)")
    clauses_removed: int = 0
    rounds: int = 0
