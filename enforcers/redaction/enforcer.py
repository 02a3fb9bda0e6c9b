"""The ``redaction`` context-stage enforcer (SD-RAG Sections III-B, III-C2).

A thin registered class over :class:`enforcers.redaction.redactor.Redactor`,
which holds the redaction itself; the body (and spaCy, which its
generalizations parse with) loads when an engine builds the enforcer, not when
the registry discovers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from policy_engine.enforcement.base import EnforcementContext, Paraphraser, SpanDetector, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import CategoryDefinition, Policy, RedactionMode

if TYPE_CHECKING:
    from enforcers.redaction.redactor import Redactor


@register_enforcer
class RedactionEnforcer:
    """The ``redaction`` enforcer: extractive and periphrastic redaction of passages.

    ``mode`` forces one mode for every constraint; by default each constraint's
    own ``redaction`` field decides.  ``batch_size`` constraints are detected
    per detector call (SD-RAG applies constraints in batches); each passage is
    parsed once per request whatever the number of batches (see :mod:`enforcers.redaction.redactor`).
    """

    name = "redaction"
    version = "1"
    stage = Stage.CONTEXT

    def __init__(
        self,
        detector: SpanDetector,
        categories: Mapping[str, CategoryDefinition],
        *,
        mode: RedactionMode | None = None,
        batch_size: int = 4,
        paraphraser: Paraphraser | None = None,
    ) -> None:
        from enforcers.redaction.redactor import Redactor

        self.redactor: Redactor = Redactor(detector, categories, mode=mode, batch_size=batch_size, paraphraser=paraphraser)

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        """Every policy has constraints to apply (an empty list is a lint error)."""
        return True

    @classmethod
    def from_parts(cls, parts: EngineParts) -> RedactionEnforcer:
        from policy_engine.policy.vocabulary import vocabulary_for

        categories = vocabulary_for(parts.policy.vocabulary).categories
        return cls(parts.detector, categories, mode=parts.redaction_mode, paraphraser=parts.paraphraser)

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        return self.redactor.apply(context)
