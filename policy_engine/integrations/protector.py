"""Sanitize a batch of retrieved chunks under a policy, in process or through the service; fail closed.

A batch is one retrieval: one :meth:`Engine.protect_passages` call, one
decision record.  A denied batch raises :class:`ContextDenied` (nothing is
released, the framework's chain stops); chunks the policy withholds are left
out of what is returned.  The query, when given, is only recorded (masked)
in the audit log, never shown to an enforcer (SD-RAG: the context is
sanitized without the question).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from policy_engine.engine.runtime import Engine
from policy_engine.errors import PolicyEngineError


class ContextDenied(PolicyEngineError, PermissionError):
    """The policy denied the retrieved context (fail closed); ``decision_id`` names the decision record."""

    def __init__(self, reason: str, decision_id: str | None) -> None:
        super().__init__(f"retrieved context denied ({reason}); decision {decision_id}")
        self.decision_id = decision_id


@dataclass(frozen=True)
class ProtectedChunk:
    """One released chunk: its id (the caller's own), its sanitized text and the decision that released it."""

    chunk_id: str
    text: str
    decision_id: str
    outcome: str


class Protector(Protocol):
    """Sanitizes ``(chunk_id, text)`` pairs; returns the released chunks in order, or raises :class:`ContextDenied`."""

    def protect(self, chunks: Sequence[tuple[str, str]], query: str | None = None) -> list[ProtectedChunk]: ...


def _released(result: dict[str, Any], ids: Sequence[str], texts: Sequence[str]) -> list[ProtectedChunk]:
    """The chunks a protect result (its JSON form) released, under the caller's own ``ids`` with their ``texts`` (both in
    the order the chunks were sent and returned); raises when the decision denied.  The engine shows ids redacted (a
    file name may hold a patient's name), so chunks are matched by position: the caller's id tells the caller nothing
    new.  A result with another number of chunks than were sent releases nothing."""
    if result["outcome"] == "denied":
        raise ContextDenied(result.get("error") or "denied", result.get("decision_id"))
    if not len(result["chunks"]) == len(ids) == len(texts):
        raise ContextDenied(f"the engine returned {len(result['chunks'])} chunks for {len(ids)}", result.get("decision_id"))
    return [
        ProtectedChunk(chunk_id, text, result["decision_id"], result["outcome"])
        for chunk_id, text, chunk in zip(ids, texts, result["chunks"])
        if not chunk["withheld"]
    ]


@dataclass
class EngineProtector:
    """In process: an open :class:`Engine` (``Engine.open`` or ``Engine.for_policy``) and who asks, for what."""

    engine: Engine
    principal: str | None = None
    purpose: str | None = None

    def protect(self, chunks: Sequence[tuple[str, str]], query: str | None = None) -> list[ProtectedChunk]:
        result = self.engine.protect_passages(list(chunks), query=query, principal=self.principal, purpose=self.purpose)
        return _released(result.to_dict(), [i for i, _ in chunks], [c.text for c in result.chunks])


@dataclass
class ServiceProtector:
    """Through ``policy-engine serve``: ``POST {base_url}/v1/protect-passages`` with an API key (the key names the principal).

    ``client`` is any ``httpx.Client``-like object (one is made when omitted);
    an HTTP error raises ``httpx.HTTPStatusError``, never releases the chunks.
    """

    base_url: str
    api_key: str
    bundle: str | None = None
    purpose: str | None = None
    client: Any = None
    timeout_s: float = 120.0

    def protect(self, chunks: Sequence[tuple[str, str]], query: str | None = None) -> list[ProtectedChunk]:
        import httpx

        client = self.client if self.client is not None else httpx.Client(timeout=self.timeout_s)
        body: dict[str, Any] = {"passages": [{"chunk_id": i, "text": t} for i, t in chunks], "question": query, "bundle": self.bundle, "purpose": self.purpose}
        answer = client.post(f"{self.base_url.rstrip('/')}/v1/protect-passages", json=body, headers={"Authorization": f"Bearer {self.api_key}"})
        answer.raise_for_status()
        data = answer.json()
        return _released(data, [i for i, _ in chunks], [c["text"] for c in data["chunks"]])
