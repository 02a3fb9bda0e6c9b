"""Need-to-Know query rewriting as a query-stage enforcer (runs before retrieval and before any model).

The context's ``query`` is replaced by its need-to-know rewrite
(:mod:`enforcers.query_rewrite`), so retrieval and every later stage see only
the rewrite (with the values it carries as placeholder tokens restored for
retrieval and in the local answer, by the engine).  The decision record gets the ``query_rewrite`` section (task,
confidence, spans kept / removed / generalized by attribute; never values)
and a note with counts only.  Any failure raises: the pipeline fails closed
and the query is refused, never forwarded as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.errors import PolicyEngineError
from policy_engine.policy.model import Policy

if TYPE_CHECKING:  # the rewriter (learned models, embedder) loads when an engine builds this enforcer, not at discovery
    from enforcers.query_rewrite.rewriter import QueryRewriter


class MissingQuery(PolicyEngineError, ValueError):
    """The query stage was run without a query."""


@register_enforcer
@dataclass(frozen=True)
class QueryRewriteEnforcer:
    """The ``query_rewrite`` enforcer: forwards only what the task needs (Need-to-Know Sections 3, 4.1)."""

    rewriter: QueryRewriter

    name = "query_rewrite"
    version = "1"
    stage = Stage.QUERY

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        """Work exists when the policy states necessity rules (built-in defaults alone are opt-in via ``enforcement.order``)."""
        return bool(policy.necessity.rules)

    @classmethod
    def from_parts(cls, parts: EngineParts) -> QueryRewriteEnforcer:
        from enforcers.query_rewrite.rewriter import QueryRewriter

        return cls(QueryRewriter(parts.policy, parts.detector, model=parts.model))

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if context.query is None:
            raise MissingQuery("query_rewrite runs at the query stage and needs the query")
        result = self.rewriter.rewrite(context.query, context.purpose)
        section = result.section(context.query)
        note = (
            f"query_rewrite: task {section.task or 'none'} ({section.task_source}, confidence {section.confidence:.2f}); "
            f"kept {sum(section.kept.values())}, removed {sum(section.removed.values())}, generalized {sum(section.generalized.values())}, "
            f"placeholders {sum(section.placeholders.values())} span(s)"
        )
        # the placeholder tokens' values stay in the process: the engine retrieves with them and restores them in the local answer
        return context.evolve(query=result.text, placeholders=result.placeholders).noted(note).with_section(self.name, section)
