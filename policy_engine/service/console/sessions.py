"""Browser sessions of the review console: a random token per login, mapped server-side to the key's entry.

The cookie (``HttpOnly``, ``SameSite=Strict``, path ``/console``) carries only
the token; the store keeps the token's SHA-256, the authenticated
:class:`~policy_engine.service.config.ApiKey` entry (principal and purposes
come from the server config, never from a form), a CSRF token every POST
form must echo, and an expiry.  Sessions live in the server's memory: a
restart logs everyone out, and rotating a key out of the config does not end
the sessions it opened before their expiry (``lifetime_s``, 8 h by default).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass

from policy_engine.service.config import ApiKey

COOKIE = "pe_console"


@dataclass(frozen=True)
class Session:
    """One logged-in browser: who it is (``key``), the CSRF token of its forms, when it ends."""

    key: ApiKey
    csrf: str
    expires: float

    def csrf_ok(self, presented: str | None) -> bool:
        """Whether a form echoed this session's CSRF token (constant-time comparison)."""
        return presented is not None and hmac.compare_digest(self.csrf, presented)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class SessionStore:
    """Tokens to sessions, thread-safe; expired sessions are dropped when looked up."""

    def __init__(self, lifetime_s: float = 8 * 3600) -> None:
        self.lifetime_s = lifetime_s
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self, key: ApiKey) -> tuple[str, Session]:
        """A new session for ``key``; returns the cookie token (shown once, stored only as its digest) and the session."""
        token = secrets.token_urlsafe(32)
        session = Session(key, secrets.token_urlsafe(32), time.time() + self.lifetime_s)
        with self._lock:
            self._sessions[_digest(token)] = session
        return token, session

    def get(self, token: str | None) -> Session | None:
        """The live session of ``token``, or ``None`` (no token, unknown, or expired)."""
        if not token:
            return None
        digest = _digest(token)
        with self._lock:
            session = self._sessions.get(digest)
            if session is not None and session.expires <= time.time():
                del self._sessions[digest]
                session = None
        return session

    def close(self, token: str | None) -> None:
        """End the session of ``token`` (no-op when there is none)."""
        if token:
            with self._lock:
                self._sessions.pop(_digest(token), None)
