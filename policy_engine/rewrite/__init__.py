"""Need-to-Know query rewriting: forward what the task needs, remove or generalize the rest (contextual integrity)."""

from __future__ import annotations

from policy_engine.enforcement.base import SpanDetector
from policy_engine.policy.model import Policy
from policy_engine.rewrite.rewriter import QueryRefused, QueryRewriter, RewriteResult
from policy_engine.rewrite.section import QueryRewriteSection

__all__ = ["QueryRefused", "QueryRewriteSection", "QueryRewriter", "RewriteResult", "rewrite_query"]


def rewrite_query(query: str, policy: Policy, *, purpose: str | None = None, detector: SpanDetector | None = None) -> RewriteResult:
    """Rewrite ``query`` under ``policy``'s necessity rules (``detector`` defaults to the policy's Analyzer).

    Raises :class:`QueryRefused` when no rewrite passes verification.  For many
    queries build one :class:`QueryRewriter` and call ``rewrite`` on it.
    """
    if detector is None:
        from policy_engine.detect.analyzer import Analyzer

        detector = Analyzer(policy)
    return QueryRewriter(policy, detector).rewrite(query, purpose)
