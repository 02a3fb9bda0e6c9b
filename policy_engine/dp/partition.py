"""Disjoint partition of the retrieved documents (PEARL Algorithm 1, line 3).

A document goes to subset ``HMAC-SHA256(key, document id) mod M``.  The
assignment of a document depends only on its own id, so adding or removing
one document changes exactly one subset and leaves the others untouched —
the property the document-level sensitivity analysis relies on.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["RetrievedDocument", "assign_subset", "partition_documents", "partition_key_from_seed"]


@dataclass(frozen=True)
class RetrievedDocument:
    """One retrieved document: the privacy unit of the guarantee."""

    id: str
    text: str


def partition_key_from_seed(seed: int) -> bytes:
    """Deterministic partition key for a configured seed."""
    return hashlib.sha256(f"policy-engine/pearl-partition/{seed}".encode()).digest()


def assign_subset(document_id: str, subsets: int, key: bytes) -> int:
    """Subset index in ``range(subsets)`` for ``document_id`` under ``key``."""
    if subsets < 1:
        raise ValueError("subsets must be at least 1")
    digest = hmac.new(key, document_id.encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % subsets


def partition_documents(
    documents: Iterable[RetrievedDocument], subsets: int, key: bytes
) -> list[list[RetrievedDocument]]:
    """Split ``documents`` into ``subsets`` disjoint lists (some may be empty).

    Documents keep their input order inside each subset.
    """
    parts: list[list[RetrievedDocument]] = [[] for _ in range(subsets)]
    for document in documents:
        parts[assign_subset(document.id, subsets, key)].append(document)
    return parts
