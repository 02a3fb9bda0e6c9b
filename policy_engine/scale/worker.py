"""The unit of work both execution engines run: sanitize a batch of documents under one policy.

A :class:`SanitizeWorker` loads the policy and its engine (spaCy, MiniLM,
detectors) once, in its own process or Ray actor, and applies the policy's
context-stage enforcers (redaction, knowledge-graph erasure) to each
document through :meth:`Engine.protect_passages`.  It never writes to the
audit log or the privacy-budget ledger: it returns each document's decision
record for the driver to write.  A document whose enforcement fails or is
denied is withheld (fail closed), with the reason, and has a record too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from policy_engine.scale.state import SANITIZE_PRINCIPAL, SANITIZE_PURPOSE, DocumentResult, withheld

#: Columns of a batch handed to a worker, and of the batch it returns.
INPUT_COLUMNS = ("doc_id", "digest", "text")
OUTPUT_COLUMNS = ("doc_id", "digest", "status", "text", "reason", "decision_id", "record")


class SanitizeWorker:
    """Callable over column batches (``dict`` of equal-length sequences), as Ray Data's ``map_batches`` expects."""

    def __init__(self, policy_path: str) -> None:
        from policy_engine import load_policy
        from policy_engine.engine.runtime import Engine

        self.engine = Engine.for_policy(load_policy(Path(policy_path)), audit=False)

    def sanitize(self, doc_id: str, digest: str, text: str) -> DocumentResult:
        try:
            result = self.engine.protect_passages([(doc_id, text)], principal=SANITIZE_PRINCIPAL, purpose=SANITIZE_PURPOSE)
        except Exception as exc:  # noqa: BLE001 - a failing document is withheld, never released
            policy = self.engine.policy
            return withheld(doc_id, digest, f"enforcement failed ({type(exc).__name__}: {exc})", policy_name=policy.metadata.name, revision=policy.revision or None)
        record = result.decision
        record.labels = {**record.labels, "job": "sanitize", "document_digest": digest}
        chunks = result.chunks
        if result.denied or not chunks or chunks[0].withheld:
            reason = record.error or "denied by the policy"
            return DocumentResult(doc_id, digest, "withheld", None, reason, record.decision_id, record.model_dump_json())
        return DocumentResult(doc_id, digest, "done", chunks[0].text, None, record.decision_id, record.model_dump_json())

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
        results = [self.sanitize(str(d), str(g), str(t)) for d, g, t in zip(*(batch[c] for c in INPUT_COLUMNS))]
        return {column: [getattr(r, column) for r in results] for column in OUTPUT_COLUMNS}


def results_of(batch: Mapping[str, Sequence[Any]]) -> list[DocumentResult]:
    """The :class:`DocumentResult` rows of an output batch."""
    columns = [list(batch[c]) for c in OUTPUT_COLUMNS]
    return [DocumentResult(*(None if _missing(v) else v for v in row)) for row in zip(*columns)]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)
