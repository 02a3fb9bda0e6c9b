"""An in-process corpus that records the queries it is asked: retrieval sees only what the query stage forwards."""

from __future__ import annotations

from types import SimpleNamespace


class RecordingRetriever:
    """Retrieves nothing and ranks no constraint; ``queries`` holds every query text it was asked, in order."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int | None = None) -> list:
        self.queries.append(query)
        return []

    def rank_constraints(self, query: str, retrieved: list) -> object:
        return SimpleNamespace(kept=[], dropped=[])
