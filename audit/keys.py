"""HMAC keys for checkpoint signatures and keyed hashing of masked fields.

Key sources, in order (the first key found is the *active* key; all keys are
accepted when verifying, which is how rotation works):

1. the environment variable named by ``settings.key_env``;
2. ``<key_env>_PREVIOUS``: comma-separated retired keys, still accepted;
3. ``settings.key_file``: one key per line; the first line is active unless an
   environment key is set, the remaining lines are retired keys.

Rotation: put the new key first (env var or first line of the key file) and
move the old one to ``<key_env>_PREVIOUS`` or a later line; logs written with
the old key keep verifying as long as it stays listed. Each signature names
its key by ``key_id`` (a one-way fingerprint), never by the key itself.

Two independent sub-keys are derived from every key (domain separation), so a
masked-field hash can never be replayed as a checkpoint signature.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

from audit.errors import AuditKeyError
from audit.settings import KeySettingsLike

_SIGNING_CONTEXT = b"policy-engine/audit/checkpoint/v1"
_MASKING_CONTEXT = b"policy-engine/audit/mask/v1"
_KEY_ID_CONTEXT = b"policy-engine/audit/key-id/v1"


@dataclass(frozen=True)
class AuditKey:
    """One secret key and the sub-keys derived from it."""

    secret: bytes = field(repr=False)

    @property
    def key_id(self) -> str:
        """Public fingerprint naming the key in signatures and hashes."""
        return hmac.new(self.secret, _KEY_ID_CONTEXT, hashlib.sha256).hexdigest()[:16]

    def sign(self, message: bytes) -> str:
        """HMAC-SHA256 signature of ``message`` under the checkpoint sub-key."""
        subkey = hmac.new(self.secret, _SIGNING_CONTEXT, hashlib.sha256).digest()
        return hmac.new(subkey, message, hashlib.sha256).hexdigest()

    def mask(self, value: bytes) -> str:
        """Keyed hash of a masked value under the masking sub-key."""
        subkey = hmac.new(self.secret, _MASKING_CONTEXT, hashlib.sha256).digest()
        return hmac.new(subkey, value, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class KeyRing:
    """The active key (used to sign) and every key accepted when verifying."""

    active: AuditKey | None
    accepted: tuple[AuditKey, ...] = ()

    def find(self, key_id: str) -> AuditKey | None:
        """The accepted key with this fingerprint, if any."""
        return next((key for key in self.accepted if key.key_id == key_id), None)

    def verify(self, key_id: str, message: bytes, signature: str) -> bool:
        """True when ``signature`` is a valid signature of ``message`` by a known key."""
        key = self.find(key_id)
        return key is not None and hmac.compare_digest(key.sign(message), signature)


def _keys_from_file(path: Path) -> list[AuditKey]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise AuditKeyError(
            f"{path}: cannot read the audit key file ({exc.strerror}); "
            "fix the path in the policy's audit.key_file or unset it"
        ) from exc
    keys = [AuditKey(line.strip().encode()) for line in lines if line.strip() and not line.startswith("#")]
    if not keys:
        raise AuditKeyError(f"{path}: the audit key file holds no key; put one key per line (first = active)")
    return keys


def load_keyring(settings: KeySettingsLike, environ: dict[str, str] | None = None) -> KeyRing:
    """Collect keys from the environment and key file named by ``settings``.

    Returns a ring with ``active=None`` when no key is configured anywhere;
    raises :class:`AuditKeyError` when a configured key file is unreadable or empty.
    """
    env = os.environ if environ is None else environ
    keys: list[AuditKey] = []
    if env.get(settings.key_env, "").strip():
        keys.append(AuditKey(env[settings.key_env].strip().encode()))
    previous = env.get(f"{settings.key_env}_PREVIOUS", "")
    keys.extend(AuditKey(part.strip().encode()) for part in previous.split(",") if part.strip())
    if settings.key_file:
        keys.extend(_keys_from_file(Path(settings.key_file)))
    unique = tuple({key.key_id: key for key in keys}.values())
    return KeyRing(active=keys[0] if keys else None, accepted=unique)


def refuse_unkeyed(keyring: KeyRing, anchor_key_id: str | None, log: object) -> None:
    """Raise :class:`AuditKeyError` when a log whose anchor is signed would be written without a key.

    An unsigned entry appended to a signed log would be absorbed by the next
    keyed write's signature without trace; refusing keeps every entry covered.
    """
    if keyring.active is None and anchor_key_id is not None:
        raise AuditKeyError(
            f"{log}: this log is signed (key {anchor_key_id}) but no audit key is configured; writing unsigned "
            "entries is refused: set the key named by the policy's audit.key_env (default POLICY_ENGINE_AUDIT_KEY) or audit.key_file"
        )
