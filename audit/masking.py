"""Masking of sensitive decision-record fields before they are written.

``mask_record`` applies the policy's ``audit`` settings to the dotted paths in
``settings.mask_fields`` (e.g. ``input.query``, ``input.context``):

* ``masking: hash`` replaces the value with ``hmac-sha256:<key_id>:<hex>``, a
  keyed hash of its canonical JSON, so equal inputs can be correlated without
  being readable. When no key is configured the value is removed instead
  (removal never reveals more than a hash) and the record is labelled.
* ``masking: remove`` deletes the value.

Document and chunk ids (in ``retrieved``, ``redactions`` and the constraint
reasons that name them) are keyed hashes too unless the policy declares them
safe (``audit.ids: safe``): they are file names and may hold names.

Paths already listed in ``record.masked``/``record.erased`` are skipped, so
masking twice is harmless. On *any* failure the function returns a minimal
record (ids, policy, outcome, timestamp; no input, no free text) instead of
raising, so a masking bug can never cause unmasked data to be logged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from audit.keys import KeyRing, load_keyring
from audit.records import DecisionRecord
from audit.settings import AuditSettingsLike

HASH_PREFIX = "hmac-sha256"
#: Listed in ``record.masked`` once document and chunk ids were masked (policy ``audit.ids: mask``, the default).
ID_PATH = "chunk_ids"
_MISSING = object()

MINIMAL_FIELDS = (
    "decision_id",
    "timestamp",
    "principal",
    "trace_id",
    "policy_name",
    "policy_revision",
    "bundle_digest",
    "outcome",
)


def _split_path(path: str) -> list[str]:
    parts = path.split(".")
    if not path or any(not part for part in parts):
        raise ValueError(f"invalid mask path {path!r}: use dotted field names like 'input.query'")
    return parts


def _pop_path(document: dict[str, Any], parts: list[str]) -> Any:
    """Remove and return the value at ``parts`` (``_MISSING`` when absent)."""
    node: Any = document
    for part in parts[:-1]:
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    if not isinstance(node, dict):
        return _MISSING
    return node.pop(parts[-1], _MISSING)


def _set_path(document: dict[str, Any], parts: list[str], value: Any) -> None:
    node = document
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode()


def minimal_record(record: DecisionRecord, reason: str) -> DecisionRecord:
    """The fail-safe record: identifiers and outcome only, labelled with ``reason``."""
    kept = {name: getattr(record, name) for name in MINIMAL_FIELDS}
    return DecisionRecord(**kept, labels={"audit.masking": reason})


def _masked_document(
    record: DecisionRecord, paths: Iterable[str], method: str, keyring: KeyRing, ids: str = "mask"
) -> DecisionRecord:
    document = record.model_dump(mode="json")
    done = set(record.masked) | set(record.erased)
    masked, erased = list(record.masked), list(record.erased)
    labels = dict(record.labels)
    for path in paths:
        if path in done:
            continue
        parts = _split_path(path)
        value = _pop_path(document, parts)
        if value is _MISSING:
            continue
        if method == "hash" and keyring.active is not None:
            key = keyring.active
            _set_path(document, parts, f"{HASH_PREFIX}:{key.key_id}:{key.mask(_canonical(value))}")
            masked.append(path)
        elif method in ("hash", "remove"):
            erased.append(path)
            if method == "hash":
                labels["audit.masking"] = "removed: no audit key configured for hashing"
        else:
            raise ValueError(f"unknown masking method {method!r}: use 'hash' or 'remove'")
        done.add(path)
    if ids == "mask" and ID_PATH not in done:
        _mask_ids(document, keyring)
        masked.append(ID_PATH)
    document.update(masked=masked, erased=erased, labels=labels)
    return DecisionRecord.model_validate(document)


def _mask_ids(document: dict[str, Any], keyring: KeyRing) -> None:
    """Replace every chunk id (retrieved, redactions, and where reasons name them) by its keyed hash.

    Ids come from file names and may hold names or case numbers.  Without a
    key the id becomes ``id-removed``: an unkeyed hash of a guessable name
    would be reversible by trying names.
    """
    key = keyring.active

    def masked(chunk_id: str) -> str:
        return f"{HASH_PREFIX}:{key.key_id}:{key.mask(chunk_id.encode())}" if key is not None else "id-removed"

    items = [*document.get("retrieved", []), *document.get("redactions", [])]
    ids = {item["chunk_id"]: masked(item["chunk_id"]) for item in items if item.get("chunk_id")}
    for item in items:
        if item.get("chunk_id"):
            item["chunk_id"] = ids[item["chunk_id"]]
    for outcome in document.get("constraints", []):
        for chunk_id in sorted(ids, key=len, reverse=True):
            if outcome.get("reason"):
                outcome["reason"] = outcome["reason"].replace(chunk_id, ids[chunk_id])


def mask_record(
    record: DecisionRecord, settings: AuditSettingsLike, keyring: KeyRing | None = None
) -> DecisionRecord:
    """Return ``record`` with ``settings.mask_fields`` hashed or removed; never raises.

    ``keyring`` defaults to the keys named by ``settings`` (see :mod:`audit.keys`).
    """
    try:
        ring = keyring if keyring is not None else load_keyring(settings)
        return _masked_document(record, settings.mask_fields, settings.masking, ring, getattr(settings, "ids", "mask"))
    except Exception as exc:  # noqa: BLE001 - fail safe: any error yields the minimal record
        return minimal_record(record, f"minimal record: masking failed ({type(exc).__name__})")
