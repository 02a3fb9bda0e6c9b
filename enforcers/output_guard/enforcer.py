"""The ``output_guard`` answer-stage enforcer: direct identifiers and QIs per person in answers (PPE).

Thin adapter from :class:`enforcers.output_guard.service.OutputGuard` to the
pipeline: the answer is replaced by what the guard releases (redacted or
generalized text), or withheld with ``context.refused("denied" | "abstained", reason)``;
every withheld answer (abstained or refused) goes to the review queue with
its reason (the queue is the only place its text is kept).  The typed section
(scores, action, operating point, scorer version, QI classes per person; no
text) goes to ``context.with_section("output_guard", ...)``.  Any error
propagates, and the pipeline withholds the answer (fail closed).

The guard needs no training run: it scores with the shipped default scorer
(fitted on another team's annotations, :mod:`enforcers.output_guard.scoring`).
A policy without ``quasi_identifiers`` builds an idle guard without loading anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import Policy

if TYPE_CHECKING:  # the guard's body (detector, spaCy, scikit-learn) loads when an engine builds it, not at discovery
    from enforcers.output_guard.review_queue import ReviewQueue
    from enforcers.output_guard.service import OutputGuard


@register_enforcer
@dataclass(frozen=True)
class OutputGuardEnforcer:
    """Checks every answer; ``guard`` is ``None`` when the policy has no quasi_identifiers section."""

    guard: OutputGuard | None
    queue: ReviewQueue | None
    policy_name: str

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
        from enforcers.output_guard.review_queue import ReviewQueue, queue_path
        from enforcers.output_guard.service import OutputGuard
        from policy_engine.policy.vocabulary import vocabulary_for

        guard = OutputGuard(policy.quasi_identifiers, parts.detector, policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))
        queue = ReviewQueue(queue_path(Path(parts.resolve(policy.audit.ledger))))
        return cls(guard, queue, policy.metadata.name)

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if context.answer is None:
            return context
        if self.guard is None:
            return context
        outcome = self.guard.check(context.answer)
        section = outcome.section
        if not outcome.released:
            assert self.queue is not None
            item = self.queue.add(self.policy_name, context.answer, section.model_dump(), principal=context.principal)
            section = section.model_copy(update={"review_item": item})
        result = context.with_section(self.name, section).noted(
            f"output_guard: {section.action} (verdict {section.verdict}, QI classes per person {section.qi_per_person or [0]} / limit {section.max_per_subject}, scorer {section.model_version})"
        )
        if outcome.released:
            return result.evolve(answer=outcome.text)
        return result.refused("abstained" if section.action == "abstained" else "denied", f"output_guard: {outcome.reason}")
