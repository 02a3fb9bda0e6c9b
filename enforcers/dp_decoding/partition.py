"""Disjoint partition of the retrieved documents (PEARL Algorithm 1, line 3).

A document goes to subset ``HMAC-SHA256(key, document id) mod M``.  The
assignment of a document depends only on its own id, so adding or removing
one document changes exactly one subset and leaves the others untouched —
the property the document-level sensitivity analysis relies on.

The key is secret: derived from the operator's key material
(:func:`partition_key_from_secret`), or drawn fresh for each request
(:func:`fresh_partition_key`) when none is configured.  It is never derived
from a policy setting, which anyone who can read the policy knows.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["RetrievedDocument", "assign_subset", "fresh_partition_key", "partition_documents", "partition_key_from_secret"]


@dataclass(frozen=True)
class RetrievedDocument:
    """One retrieved document: the privacy unit of the guarantee."""

    id: str
    text: str


_PARTITION_CONTEXT = b"policy-engine/pearl-partition/v1"


def partition_key_from_secret(secret: bytes) -> bytes:
    """The partition key derived from operator key material (domain-separated HMAC)."""
    if not secret:
        raise ValueError("the partition secret is empty")
    return hmac.new(secret, _PARTITION_CONTEXT, hashlib.sha256).digest()


def fresh_partition_key() -> bytes:
    """A random partition key for one request (used when no secret is configured)."""
    return secrets.token_bytes(32)


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
