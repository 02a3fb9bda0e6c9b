"""The ``redaction`` context-stage enforcer (SD-RAG Sections III-B, III-C2).

A thin registered class over :class:`enforcers.redaction.redactor.Redactor`,
which holds the redaction itself; the body (and spaCy, which its
generalizations parse with) loads when an engine builds the enforcer, not when
the registry discovers it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import Policy

if TYPE_CHECKING:
    from enforcers.redaction.redactor import Redactor


@register_enforcer
class RedactionEnforcer:
    """The ``redaction`` enforcer: extractive and periphrastic redaction of passages.

    It applies its :class:`~enforcers.redaction.redactor.Redactor` (which holds
    the modes, the constraint batches and the one parse per passage) to the
    context; :meth:`from_parts` builds that redactor from an engine's parts.
    """

    name = "redaction"
    version = "1"
    stage = Stage.CONTEXT

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        """Every policy has constraints to apply (an empty list is a lint error)."""
        return True

    @classmethod
    def from_parts(cls, parts: EngineParts) -> RedactionEnforcer:
        from enforcers.redaction.redactor import Redactor
        from policy_engine.policy.vocabulary import vocabulary_for

        categories = vocabulary_for(parts.policy.vocabulary).categories
        return cls(Redactor(parts.detector, categories, mode=parts.redaction_mode, paraphraser=parts.paraphraser))

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        return self.redactor.apply(context)
