"""The bundles a server serves: each opened once, in the background, and closed once at shutdown.

:class:`ServedBundles` opens every bundle with
:meth:`policy_engine.engine.runtime.Engine.open` on a loader thread (``/readyz``
answers 503 until all are open, and for good if one fails to open: the server
never serves a subset silently).  Per bundle it keeps, built on first use and
sharing the engine's detector and audit sink:

* a DP engine (``dp_decoding`` added before the answer checks, as ``ask --dp``
  builds it) for ``/v1/ask`` with ``dp``;
* one-enforcer pipelines (``query_rewrite`` for ``/v1/rewrite``,
  ``output_guard`` for ``/v1/guard``) built through the enforcer registry,
  so the service names no enforcer module and fails closed the same way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policy_engine.enforcement.base import EnforcementPipeline
from policy_engine.enforcement.plan import build_pipeline
from policy_engine.enforcement.registry import EngineParts
from policy_engine.engine.runtime import Engine
from policy_engine.errors import EngineError, PolicyEngineError

logger = logging.getLogger("policy_engine.service")


class NotServed(PolicyEngineError, LookupError):
    """No served bundle (or constraint) has the name the request gave (the service answers 404)."""


@dataclass
class ServedBundle:
    """One open bundle: its engine and the parts built from it on first use."""

    engine: Engine
    options: dict[str, Any]
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _dp: Engine | None = None
    _single: dict[str, EnforcementPipeline] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.engine.policy.metadata.name

    def dp_engine(self) -> Engine:
        """The engine ``ask`` uses with ``dp``: same policy, retriever, detector and audit sink, plus ``dp_decoding``."""
        with self._lock:
            if self._dp is None:
                engine = self.engine
                # the policy as compiled (the bundle's), so that dp_decoding lands before the answer checks the engine added
                self._dp = Engine(
                    getattr(engine.retriever, "policy", engine.policy),
                    retriever=engine.retriever,
                    detector=engine.detector,
                    audit_sink=engine.audit_sink,
                    bundle_digest=engine.bundle_digest,
                    extra_enforcers=("dp_decoding",),
                    **self.options,
                )
            return self._dp

    def pipeline_of(self, enforcer: str) -> EnforcementPipeline:
        """A pipeline running only ``enforcer`` under this bundle's policy (raises :class:`EngineError` when it cannot serve it)."""
        with self._lock:
            if enforcer not in self._single:
                policy = self.engine.policy
                alone = policy.model_copy(update={"enforcement": policy.enforcement.model_copy(update={"order": [enforcer]})})
                self._single[enforcer] = build_pipeline(EngineParts(alone, self.engine.detector, None, None, self.engine.model)).pipeline
            return self._single[enforcer]

    def close(self) -> None:
        """Close the one-enforcer pipelines, the DP engine's pipeline, then the engine (which closes the shared audit sink)."""
        with self._lock:
            for pipeline in self._single.values():
                pipeline.close()
            if self._dp is not None:
                self._dp.pipeline.close()
            self.engine.close()


class ServedBundles:
    """Every bundle of one server by policy name; opened on a background thread by :meth:`open_in_background`."""

    def __init__(self, paths: Sequence[Path], **options: Any) -> None:
        self.paths = tuple(paths)
        self.options = options
        self.bundles: dict[str, ServedBundle] = {}
        self.ready = threading.Event()
        self.failure: str | None = None
        self.open_seconds: float | None = None
        self._thread: threading.Thread | None = None

    def open_in_background(self) -> None:
        """Start opening every bundle (no-op once started)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._open_all, name="policy-engine-open", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the loader; True when every bundle is open."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.ready.is_set()

    def _open_all(self) -> None:
        import time

        started = time.perf_counter()
        try:
            for path in self.paths:
                served = ServedBundle(Engine.open(path, **self.options), dict(self.options))
                if served.name in self.bundles:
                    served.close()
                    raise EngineError(f"two bundles hold policy {served.name!r}; serve each policy once")
                self.bundles[served.name] = served
                logger.info("opened bundle %s (policy %s)", path, served.name)
        except Exception as exc:  # noqa: BLE001 - a bundle that does not open leaves the server unready, never half-served
            self.failure = f"{type(exc).__name__}: {exc}"
            logger.error("bundle failed to open; the server stays unready: %s", self.failure)
            return
        self.open_seconds = time.perf_counter() - started
        self.ready.set()
        logger.info("ready: %d bundle(s) open in %.1f s", len(self.bundles), self.open_seconds)

    def get(self, name: str | None) -> ServedBundle:
        """The bundle ``name`` (the only one when ``None`` and one is served); raises :class:`NotServed` naming the served ones."""
        if name is None and len(self.bundles) == 1:
            return next(iter(self.bundles.values()))
        if name in self.bundles:
            return self.bundles[name]
        served = ", ".join(sorted(self.bundles))
        raise NotServed(f"name the bundle ('bundle': one of {served})" if name is None else f"no bundle named {name!r} is served (served: {served})")

    def close(self) -> None:
        """Close every bundle (flushes and closes the audit logs); waits for the loader first."""
        self.wait()
        for served in self.bundles.values():
            served.close()
        self.bundles.clear()
        self.ready.clear()
