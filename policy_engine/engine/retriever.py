"""What the engine needs from a retriever: a compiled bundle, or any object with the same two methods."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from policy_engine.policy.model import Policy


class ChunkLike(Protocol):
    chunk_id: str
    text: str


class RetrievedLike(Protocol):
    chunk: ChunkLike
    score: float


class RetrieverLike(Protocol):
    """What the engine needs from a compiled bundle (``policy_engine.bundle.reader.Bundle``)."""

    policy: Policy

    def retrieve(self, query: str, k: int | None = None) -> Sequence[RetrievedLike]: ...

    def rank_constraints(self, query: str, retrieved: Sequence[RetrievedLike]) -> Any: ...
