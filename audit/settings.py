"""The audit settings the package reads, as a structural protocol.

The policy model (``policy_engine.policy.model.AuditSettings``, the policy's
``audit:`` section) provides these attributes; any object with them works, so
the audit package does not depend on the policy package.
"""

from __future__ import annotations

from typing import Literal, Protocol


class AuditSettingsLike(Protocol):
    """Attributes of the policy's ``audit:`` section used by this package."""

    log: str
    sink: Literal["file", "sqlite", "stdout"]
    mask_fields: list[str]
    masking: Literal["hash", "remove"]
    key_env: str
    key_file: str | None
    checkpoint_every: int
    rotate_bytes: int | None
    rotate_daily: bool
    ledger: str


class KeySettingsLike(Protocol):
    """The subset of the audit settings that locates the HMAC key."""

    key_env: str
    key_file: str | None
