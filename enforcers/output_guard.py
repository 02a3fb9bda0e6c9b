"""The ``output_guard`` answer-stage enforcer: direct identifiers and QI clusters in answers (PPE).

Thin adapter from :class:`policy_engine.guard.service.OutputGuard` to the
pipeline: the answer is replaced by what the guard releases (redacted or
generalized text), or withheld with ``context.refused("denied" | "abstained", reason)``;
an abstained answer goes to the review queue (the only place its text is
kept).  The typed section (scores, action, operating point, model version;
no text) goes to ``context.with_section("output_guard", ...)``.  Any error
propagates, and the pipeline withholds the answer (fail closed).

The model is loaded once per engine in :meth:`from_parts`; a policy without
a trained model gets one trained deterministically from the generator on
first use and saved (see :mod:`policy_engine.guard.store`).  A policy
without ``quasi_identifiers`` builds an idle guard without loading anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.guard.review_queue import ReviewQueue, queue_path
from policy_engine.guard.service import OutputGuard
from policy_engine.policy.model import Policy
from policy_engine.policy.vocabulary import vocabulary_for


@register_enforcer
@dataclass(frozen=True)
class OutputGuardEnforcer:
    """Checks every answer; ``guard`` is ``None`` when the policy has no quasi_identifiers section."""

    guard: OutputGuard | None
    queue: ReviewQueue | None
    policy_name: str
    notes: tuple[str, ...] = ()

    name = "output_guard"
    version = "1"
    stage = Stage.ANSWER

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return policy.quasi_identifiers is not None

    @classmethod
    def from_parts(cls, parts: EngineParts) -> OutputGuardEnforcer:
        policy = parts.policy
        if policy.quasi_identifiers is None:
            return cls(None, None, policy.metadata.name)
        from policy_engine.guard.store import load_or_train

        model, trained = load_or_train(policy)
        guard = OutputGuard(model, policy.quasi_identifiers, parts.detector, policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))
        queue = ReviewQueue(queue_path(Path(parts.resolve(policy.audit.ledger))))
        note = (f"output_guard: no saved model was found; {model.version} was trained at engine start ({model.info.get('train_seconds')} s) and saved",) if trained else ()
        return cls(guard, queue, policy.metadata.name, note)

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if self.guard is None or context.answer is None:
            return context
        outcome = self.guard.check(context.answer)
        section = outcome.section
        if section.action == "abstained":
            assert self.queue is not None
            item = self.queue.add(self.policy_name, context.answer, section.model_dump(), principal=context.principal)
            section = section.model_copy(update={"review_item": item})
        result = context.with_section(self.name, section).noted(
            *self.notes, f"output_guard: {section.action} (verdict {section.verdict}, QI classes {len(section.qi_classes)}/{section.max_per_subject}, model {section.model_version})"
        )
        if outcome.released:
            return result.evolve(answer=outcome.text)
        return result.refused("abstained" if section.action == "abstained" else "denied", f"output_guard: {outcome.reason}")
