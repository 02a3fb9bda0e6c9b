"""The enforcer registry: enforcers register themselves; the engine discovers them.

An enforcer is one class in one module, decorated with
:func:`register_enforcer`.  The class names itself once (``name``, the key
used in a policy's ``enforcement.order``) and declares ``stage``,
``version``, ``has_work(policy)`` (whether the policy gives it anything to
enforce) and ``from_parts(parts)`` (how it is built from the engine's shared
parts: policy, detector, local model).  Nothing in :mod:`policy_engine`
names an enforcer module: :func:`registered` imports every module of the
built-in ``enforcers`` package and every entry point of the
``policy_engine.enforcers`` group (how a third-party package ships its own,
as pytest plugins and Presidio recognizers do), and the decorators fill the
registry as they import.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from policy_engine.enforcement.base import Enforcer, Paraphraser, SpanDetector, Stage
from policy_engine.errors import PolicyEngineError
from policy_engine.policy.model import Policy, RedactionMode
from policy_engine.policy.sections import BUILTIN_PACKAGE, ENTRY_POINT_GROUP


class RegistryError(PolicyEngineError, RuntimeError):
    """An enforcer class cannot be registered (missing members, or a name taken by another class)."""


@dataclass(frozen=True)
class EngineParts:
    """What an enforcer may use to build itself: the policy and the engine's shared, loaded-once parts."""

    policy: Policy
    detector: SpanDetector
    paraphraser: Paraphraser | None = None
    redaction_mode: RedactionMode | None = None
    model: Any | None = None  # the engine's local model, when one is loaded

    def resolve(self, path: str | Path) -> Path:
        """``path`` made absolute against the policy's directory (how audit and ledger paths resolve)."""
        return self.policy.resolve_path(path)


class EnforcerClass(Protocol):
    """What :func:`register_enforcer` requires of a class."""

    name: str
    version: str
    stage: Stage

    @classmethod
    def has_work(cls, policy: Policy) -> bool: ...

    @classmethod
    def from_parts(cls, parts: EngineParts) -> Enforcer: ...


E = TypeVar("E")

_REGISTRY: dict[str, EnforcerClass] = {}
_LOCK = threading.RLock()
_discovered = False


def register_enforcer(cls: E) -> E:
    """Class decorator: add ``cls`` to the registry under ``cls.name``.

    Raises :class:`RegistryError` when a member is missing or the name is
    already taken by a different class (re-registering the same class, as a
    module reload does, is allowed).
    """
    missing = [m for m in ("name", "version", "stage", "has_work", "from_parts", "apply") if not hasattr(cls, m)]
    if missing:
        raise RegistryError(f"enforcer class {getattr(cls, '__qualname__', cls)!r} lacks {', '.join(missing)}")
    if not isinstance(cls.stage, Stage):  # type: ignore[attr-defined]
        raise RegistryError(f"enforcer {cls.name!r}: stage must be a Stage, not {cls.stage!r}")  # type: ignore[attr-defined]
    name: str = cls.name  # type: ignore[attr-defined]
    with _LOCK:
        existing = _REGISTRY.get(name)
        if existing is not None and existing.__qualname__ != cls.__qualname__:  # type: ignore[attr-defined]
            raise RegistryError(f"enforcer name {name!r} is taken by {existing.__module__}.{existing.__qualname__}")
        _REGISTRY[name] = cls  # type: ignore[assignment]
    return cls


def unregister_enforcer(name: str) -> None:
    """Remove ``name`` from the registry (tests that register a toy enforcer clean up with this)."""
    with _LOCK:
        _REGISTRY.pop(name, None)


def _discover() -> None:
    global _discovered
    with _LOCK:
        if _discovered:
            return
        package = importlib.import_module(BUILTIN_PACKAGE)
        for module in pkgutil.iter_modules(package.__path__):
            # an enforcer package keeps its class in ``enforcer.py``; its body loads only when used
            importlib.import_module(f"{BUILTIN_PACKAGE}.{module.name}.enforcer" if module.ispkg else f"{BUILTIN_PACKAGE}.{module.name}")
        for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            entry_point.load()
        _discovered = True


def registered() -> Mapping[str, EnforcerClass]:
    """Every known enforcer class by policy name (built-ins and entry points, discovered once)."""
    _discover()
    with _LOCK:
        return dict(_REGISTRY)

