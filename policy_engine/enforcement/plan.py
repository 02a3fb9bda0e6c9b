"""The enforcement pipeline a policy asks for, built from the enforcer registry (fail closed).

OPA's rule, applied to enforcers: naming a plugin that is not registered is
fatal at startup, not a warning.  An enforcer named in a policy's
``enforcement.order`` that is not installed in this engine is a refusal to
serve (:class:`~policy_engine.errors.EngineError`): a data owner's policy is
never half-enforced with a note.  The only exception is the development
opt-out ``allow_missing_enforcers=True``, which logs a warning and labels
every decision record with the missing names.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from policy_engine.enforcement.base import EnforcementPipeline, Enforcer
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.errors import EngineError
from policy_engine.policy.model import Policy

logger = logging.getLogger(__name__)

#: Decision-record label listing the ordered enforcers skipped under the development opt-out.
MISSING_LABEL = "missing_enforcers"


@dataclass(frozen=True)
class PipelinePlan:
    """The pipeline built for a policy, and the ordered enforcers skipped (only with the development opt-out)."""

    pipeline: EnforcementPipeline
    missing: tuple[str, ...] = ()

    def labels(self) -> dict[str, str]:
        """Decision-record labels that say a protection was skipped (empty when none was)."""
        return {MISSING_LABEL: ",".join(self.missing)} if self.missing else {}


def missing_message(policy_name: str, missing: list[str], installed: list[str]) -> str:
    """Why a policy cannot be served, and what to do about it."""
    names = ", ".join(map(repr, missing))
    return (
        f"policy {policy_name!r}: enforcement.order names {names}, not installed in this engine (installed: {', '.join(installed) or 'none'}); "
        "refusing to serve a policy with an ordered protection missing. Install the enforcer (a module in enforcers/ or a package with a "
        "'policy_engine.enforcers' entry point) or remove it from enforcement.order"
    )


def refuse_voided_guarantees(policy: Policy) -> None:
    """:class:`EngineError` when a setting would void a guarantee the engine gives (a fixed DP noise seed)."""
    if policy.differential_privacy is not None and policy.differential_privacy.decoding.seed is not None:
        raise EngineError(
            f"policy {policy.metadata.name!r}: differential_privacy.decoding.seed ({policy.differential_privacy.decoding.seed}) fixes the DP noise, "
            "so anyone who reads the policy can replay the sampler and the (epsilon, delta) guarantee does not hold; remove it (lint PE149)"
        )


def require_installed(policy: Policy, *, allow_missing_enforcers: bool = False) -> tuple[str, ...]:
    """The ordered enforcers not installed; :class:`EngineError` unless the development opt-out allows them (logged).

    Also refuses a policy whose settings void a guarantee (:func:`refuse_voided_guarantees`): both
    checks run before any file is opened or model loaded.
    """
    refuse_voided_guarantees(policy)
    available = registered()
    missing = [name for name in policy.enforcement.order if name not in available]
    if missing:
        message = missing_message(policy.metadata.name, missing, sorted(available))
        if not allow_missing_enforcers:
            raise EngineError(message)
        logger.warning("allow_missing_enforcers (development only): %s", message)
    return tuple(missing)


def build_pipeline(parts: EngineParts, *, allow_missing_enforcers: bool = False) -> PipelinePlan:
    """The pipeline for ``parts.policy.enforcement`` in its declared order.

    Raises :class:`EngineError` when an ordered enforcer is not installed
    (unless ``allow_missing_enforcers``, for development only) or when an
    installed one cannot serve the policy (its ``from_parts`` raised
    ``ValueError``/``OSError``).
    """
    settings = parts.policy.enforcement
    missing = require_installed(parts.policy, allow_missing_enforcers=allow_missing_enforcers)
    available = registered()
    enforcers: list[Enforcer] = []
    for name in settings.order:
        if name not in available:
            continue
        try:
            enforcers.append(available[name].from_parts(parts))
        except (ValueError, OSError) as exc:  # a policy the enforcer cannot serve: refuse to open, say why
            raise EngineError(f"enforcer {name!r} cannot serve policy {parts.policy.metadata.name!r}: {exc}") from exc
    pipeline = EnforcementPipeline(enforcers, on_error=settings.on_error, timeout_s=settings.timeout_s)
    return PipelinePlan(pipeline, missing)
