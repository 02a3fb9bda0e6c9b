"""Where a policy's guard models live, and loading them once per process.

A policy's models are saved under ``<policy dir>/.policy-engine/guard/<domain>/``
by ``policy-engine guard train POLICY`` (the training package of a source
checkout, ``training/output_guard/for_policy.py``).  An engine only loads a
saved model (:func:`load_saved`); nothing here trains one.
"""

from __future__ import annotations

import threading
from pathlib import Path

from enforcers.output_guard.domains import DOMAINS
from enforcers.output_guard.model import GuardModel
from policy_engine.errors import PolicyEngineError
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.policy.model import EmbeddingSettings, Policy

#: The embedder every guard model is trained and run with (float32, so scores do not depend on the CPU).
GUARD_EMBEDDING = EmbeddingSettings(precision="float32")

_LOADED: dict[tuple[str, float], GuardModel] = {}
_LOCK = threading.Lock()


class GuardModelError(PolicyEngineError, ValueError):
    """The policy's output guard cannot get a model (unsupported domain, unreadable files)."""


def models_dir(policy: Policy) -> Path:
    return Path(policy.root_dir) / ".policy-engine" / "guard"


def model_dir(policy: Policy, domain: str) -> Path:
    return models_dir(policy) / domain


def guard_domain(policy: Policy) -> str:
    """The policy's QI domain, or :class:`GuardModelError` when no detector can be trained for it."""
    if policy.quasi_identifiers is None:
        raise GuardModelError(f"policy {policy.metadata.name!r} has no quasi_identifiers section")
    domain = policy.quasi_identifiers.domain
    if domain not in DOMAINS:
        raise GuardModelError(
            f"policy {policy.metadata.name!r}: quasi_identifiers.domain is {domain!r}; the output guard has synthetic training data "
            f"for {', '.join(DOMAINS)} only (set the domain to one of them, or remove output_guard from enforcement.order)"
        )
    return domain


def guard_embedder() -> Embedder:
    return load_embedder(GUARD_EMBEDDING)


def load_saved(policy: Policy, embedder: Embedder | None = None) -> GuardModel | None:
    """The policy's saved model, loaded once per process; ``None`` when none was trained (``guard train``)."""
    directory = model_dir(policy, guard_domain(policy))
    meta = directory / "detector.json"
    with _LOCK:
        if not meta.is_file():
            return None
        key = (str(directory.resolve()), meta.stat().st_mtime)
        if key not in _LOADED:
            try:
                _LOADED[key] = GuardModel.load(directory, embedder or guard_embedder())
            except (OSError, KeyError) as exc:
                raise GuardModelError(f"guard model in {directory} is unreadable ({exc}); retrain it with `policy-engine guard train`") from exc
        return _LOADED[key]

