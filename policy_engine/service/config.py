"""The server configuration file: API keys (stored as SHA-256 digests) mapped to principals and purposes, and limits.

Example (YAML or JSON)::

    keys:
      - principal: nurse-7
        sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
        purposes: [care, billing]
    limits:
      max_body_bytes: 65536      # larger requests: 413
      max_in_flight: 4           # requests running at once
      max_queued: 64             # waiting beyond this: 429
      queue_timeout_s: 30        # waited longer than this: 503

A key is never stored: ``policy-engine serve --hash-key`` prints the digest
to put in the file.  Two entries with the same principal are key rotation:
both keys authenticate until the old entry is removed.  A request's purpose
must be one of its key's ``purposes`` (``"*"`` allows any); a request that
names none gets the key's only purpose, or is refused when it has several.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policy_engine.errors import PolicyEngineError
from policy_engine.policy.yaml_source import read_yaml_file

ANY_PURPOSE = "*"


def hash_key(key: str) -> str:
    """The SHA-256 hex digest a key is stored as."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def fingerprint(key: str) -> str:
    """A short, non-reversible tag of a presented key for the server log (the first 12 hex digits of its digest)."""
    return hash_key(key)[:12]


class ApiKey(BaseModel):
    """One key: the digest it is stored as, the principal it authenticates, the purposes it may ask for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    principal: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    purposes: tuple[str, ...] = Field(min_length=1)


class Limits(BaseModel):
    """Request size and concurrency bounds (413, 429 and 503 answers)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_body_bytes: int = Field(default=64 * 1024, ge=1)
    max_in_flight: int = Field(default=4, ge=1)
    max_queued: int = Field(default=64, ge=0)
    queue_timeout_s: float = Field(default=30.0, gt=0)


class ServerConfig(BaseModel):
    """The whole file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keys: tuple[ApiKey, ...] = ()
    limits: Limits = Limits()

    @field_validator("keys")
    @classmethod
    def _digests_are_unique(cls, keys: tuple[ApiKey, ...]) -> tuple[ApiKey, ...]:
        digests = [k.sha256 for k in keys]
        if len(set(digests)) != len(digests):
            raise ValueError("the same key digest is listed twice")
        return keys

    @classmethod
    def load(cls, path: str | Path) -> ServerConfig:
        """Read the file (YAML or JSON); raises ``ValueError`` naming the field when it is invalid."""
        value, _ = read_yaml_file(Path(path), str(path))
        return cls.model_validate(value or {})


class AuthError(PolicyEngineError, PermissionError):
    """Authentication or authorization failed; ``status`` is 401 or 403 and the message holds no key or body value."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Authenticator:
    """Maps a presented key to its principal and checks the purpose, comparing digests in constant time."""

    def __init__(self, config: ServerConfig) -> None:
        self.keys = config.keys

    def identify(self, key: str | None) -> ApiKey:
        """The entry of ``key``; raises :class:`AuthError` 401 for no key or an unknown one."""
        if not key:
            raise AuthError(401, "missing API key (send 'Authorization: Bearer <key>' or 'X-API-Key')")
        digest = hash_key(key)
        found = None
        for entry in self.keys:  # every entry is compared, so the time does not say which one matched
            if hmac.compare_digest(entry.sha256, digest):
                found = entry
        if found is None:
            raise AuthError(401, "unknown API key")
        return found

    @staticmethod
    def authorize(entry: ApiKey, purpose: str | None) -> str | None:
        """The purpose the request runs under; raises :class:`AuthError` 403 when ``entry`` may not ask for it."""
        if purpose is None and len(entry.purposes) == 1 and entry.purposes[0] != ANY_PURPOSE:
            return entry.purposes[0]
        if ANY_PURPOSE in entry.purposes or purpose in entry.purposes:
            return purpose
        raise AuthError(403, "purpose not allowed for this key" if purpose is not None else "this key allows several purposes: name one")
