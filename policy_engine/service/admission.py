"""Admission control for ``/v1/`` requests: size and concurrency bounds with clear answers, and per-request metrics.

An ASGI middleware, so that a refused request costs no parsing and no thread:

* 413 when ``Content-Length`` or the bytes actually received exceed
  ``max_body_bytes`` (the body is read, bounded, before the route sees it);
* 429 when ``max_queued`` requests already wait for one of the
  ``max_in_flight`` slots (back off and retry);
* 503 when a slot did not free within ``queue_timeout_s``, while the bundles
  are still opening, or once shutdown began (``draining``).

Every request's status and latency are counted under its route (not its raw
path, so label values stay bounded).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from policy_engine.errors import PolicyEngineError
from policy_engine.service.config import Limits
from policy_engine.service.metrics import ServiceMetrics

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

GUARDED_PREFIX = "/v1/"

logger = logging.getLogger("policy_engine.service")


class _TooLarge(PolicyEngineError, ValueError):
    """The body passed the size limit (answered 413)."""


class Admission:
    """The admission state of one server; ``ready`` says whether the bundles are open, ``draining`` is set at shutdown.

    :class:`AdmissionMiddleware` runs every request through :meth:`handle`.
    ``routes`` (the paths metrics label by) is filled in once the routes exist.
    """

    def __init__(self, limits: Limits, metrics: ServiceMetrics, ready: Callable[[], bool]) -> None:
        self.limits = limits
        self.metrics = metrics
        self.ready = ready
        self.routes: frozenset[str] = frozenset()
        self.draining = False
        self._slots: asyncio.Semaphore | None = None
        self._waiting = 0

    async def handle(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        endpoint = path if path in self.routes else "other"
        started = time.perf_counter()
        status: dict[str, int] = {"code": 0}

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            if path.startswith(GUARDED_PREFIX):
                await self._admit(app, scope, receive, counted)
            else:
                await app(scope, receive, counted)
        except Exception as exc:  # noqa: BLE001 - the type only: an exception's message may quote request text
            logger.error("internal error on %s: %s", endpoint, type(exc).__name__)
            if not status["code"]:
                await self._refuse(counted, 500, "internal", f"internal error ({type(exc).__name__})")
        finally:
            self.metrics.requests.labels(endpoint, str(status["code"] or 500)).inc()
            self.metrics.latency.labels(endpoint).observe(time.perf_counter() - started)

    async def _admit(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limits.max_body_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._refuse(send, 413, "too_large", f"request body over {limit} bytes")
            return
        try:
            body = await _read_bounded(receive, limit)
        except _TooLarge:
            await self._refuse(send, 413, "too_large", f"request body over {limit} bytes")
            return
        if self.draining:
            await self._refuse(send, 503, "draining", "the server is shutting down", retry_after=1)
            return
        if not self.ready():
            await self._refuse(send, 503, "not_ready", "the bundles are not open yet (see /readyz)", retry_after=5)
            return
        slots = self._semaphore()
        if slots.locked() and self._waiting >= self.limits.max_queued:
            await self._refuse(send, 429, "queue_full", f"{self.limits.max_in_flight} requests running and {self._waiting} waiting; retry later", retry_after=1)
            return
        self._waiting += 1
        self.metrics.queued.set(self._waiting)
        try:
            await asyncio.wait_for(slots.acquire(), timeout=self.limits.queue_timeout_s)
        except asyncio.TimeoutError:
            await self._refuse(send, 503, "queue_timeout", f"no slot freed within {self.limits.queue_timeout_s:g} s; retry later", retry_after=1)
            return
        finally:
            self._waiting -= 1
            self.metrics.queued.set(self._waiting)
        self.metrics.in_flight.inc()
        try:
            await app(scope, _replay(body), send)
        finally:
            self.metrics.in_flight.dec()
            slots.release()

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:  # created on the server's event loop
            self._slots = asyncio.Semaphore(self.limits.max_in_flight)
        return self._slots

    async def _refuse(self, send: Send, status: int, reason: str, message: str, retry_after: int | None = None) -> None:
        self.metrics.rejected.labels(reason).inc()
        body = json.dumps({"status": status, "error": message}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if retry_after is not None:
            headers.append((b"retry-after", str(retry_after).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class AdmissionMiddleware:
    """The ASGI middleware that hands HTTP requests to an :class:`Admission` (lifespan and other scopes pass through)."""

    def __init__(self, app: ASGIApp, admission: Admission) -> None:
        self.app = app
        self.admission = admission

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self.admission.handle(self.app, scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _read_bounded(receive: Receive, limit: int) -> bytes:
    """The whole request body, raising :class:`_TooLarge` as soon as it passes ``limit`` bytes."""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        parts.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(parts)


def _replay(body: bytes) -> Receive:
    """A ``receive`` that hands the route the body already read, then waits like a connected client."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # never: the route has its body; a real disconnect ends the task
        return {"type": "http.disconnect"}

    return receive
