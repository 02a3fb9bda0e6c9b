"""The ``necessity`` policy section: contextual-integrity rules per task (Need-to-Know Sections 1 and 3).

Every file of a policy may contribute rules (``merge="concat"``); a policy
without the section holds an empty one (no rules: the query rewriter has no work).
"""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from policy_engine.policy.sections import Section, StrictModel


class NecessityAction(str, Enum):
    REMOVE = "remove"
    GENERALIZE = "generalize"


class NecessityRule(StrictModel):
    """Contextual-integrity rule for one task type (Need-to-Know Section 3).

    ``essential`` attributes (or attribute families) are forwarded because the
    task needs them; ``non_essential`` ones are removed or generalized.  With
    ``purposes`` the rule applies only to requests made for one of them.
    """

    task: str
    essential: list[str] = Field(default_factory=list)
    non_essential: list[str] = Field(default_factory=list)
    action: NecessityAction = NecessityAction.GENERALIZE
    purposes: list[str] = Field(default_factory=list, description="Request purposes the rule applies to; empty = every purpose.")


class NecessitySettings(StrictModel):
    default_action: NecessityAction = NecessityAction.GENERALIZE
    default_task: str | None = Field(default=None, description="Task assumed when the query's task is classified below min_confidence.")
    min_confidence: float = Field(default=0.3, ge=0, le=1, description="Task-classifier confidence below which default_task (or the most protective rule) applies.")
    rules: list[NecessityRule] = Field(default_factory=list)


SECTIONS = (Section("necessity", NecessitySettings, merge="concat", default="empty"),)
