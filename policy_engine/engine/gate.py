"""Refuse to serve a policy that would be silently half-enforced.

A statement that resolves to no category ("Be careful with data", "Hide
trade union membership" before any category names union membership) gives
the detectors nothing to look for.  Serving anyway would report the
constraint as applied while its values pass through, so the engine refuses
to open such a policy, naming each statement with its file and line and how
to fix it, unless the author marked the statement ``advisory: true``:
advisory statements that resolve to nothing, and statements that read as
permissions, are reported as *not applied* on every request and never reach
an enforcer.  So are constraints whose categories no installed detector
serves (:mod:`policy_engine.detect.coverage`), unless the engine is strict,
which refuses them as it refuses an enforcer that is not installed.  A
statement that also names an identifier kind no detector covers ("PPS
numbers or Glorbex numbers") is enforced for the rest, and its outcome says
which part is NOT enforced (:mod:`policy_engine.detect.kinds`, lint PE116).  A restriction that names no
category but a kind of fact with content ("Do not reveal tenants' safeguarding concerns") is enforced by
meaning (:mod:`policy_engine.detect.fact_kinds`), and its outcome says so with the matcher's modest measured
quality; only a statement with no kind meaning could match is refused.  The test is the lexical resolution
and the kinds lint uses (PE109), so lint and the runtime agree on which policies open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.records import ConstraintOutcome
from policy_engine.detect.coverage import describe, undetectable
from policy_engine.detect.fact_kinds import describe_meaning, meaning_kinds
from policy_engine.detect.kinds import describe_uncovered, uncovered_kinds
from policy_engine.diagnostics import SourceSpan
from policy_engine.errors import PolicyEngineError
from policy_engine.policy.loader import load_repo
from policy_engine.policy.model import Constraint, Policy
from policy_engine.policy.resolution import Polarity, enforceable, resolve_constraint
from policy_engine.policy.vocabulary import vocabulary_for

_FIX = (
    "fix: name the kind of data in the statement (e.g. 'names', 'dates of birth', 'account numbers'; "
    "`policy-engine vocab categories` lists them), add `detect: {categories: [...]}`, or mark guidance that is not "
    "enforced `advisory: true` ({#id advisory=true} in a statements file); `policy-engine lint` reports the same (PE109)"
)


class UnresolvedStatementError(PolicyEngineError, ValueError):
    """The policy has statements the engine cannot enforce and that are not marked advisory."""


@dataclass(frozen=True)
class ResolutionGate:
    """Which constraints of a policy are enforced; the others, with the reason, are reported as not applied."""

    not_enforced: dict[str, str]
    #: Enforced constraints with a part no detector covers (PE116): the part, named in the outcome's reason.
    partly: dict[str, str] = field(default_factory=dict)
    #: Constraints naming no category, enforced by meaning alone (PE109 warning): the kinds and the matcher's quality.
    by_meaning: dict[str, str] = field(default_factory=dict)

    @classmethod
    def check(cls, policy: Policy, *, strict: bool = False) -> ResolutionGate:
        """The gate for ``policy``.

        Raises :class:`UnresolvedStatementError` for unresolved statements
        that are not advisory and, with ``strict``, for constraints whose
        categories have no installed detector (otherwise reported as not
        applied, like an enforcer that is not installed).
        """
        vocab = vocabulary_for(policy.vocabulary)
        refused: list[Constraint] = []
        not_enforced: dict[str, str] = {}
        by_meaning: dict[str, str] = {}
        for constraint in policy.constraints:
            resolution = resolve_constraint(constraint, vocab)
            if not enforceable(resolution) and not constraint.advisory and (kinds := meaning_kinds(constraint, (), resolution.polarity, vocab)):
                by_meaning[constraint.id] = describe_meaning(kinds)
                continue
            missing = undetectable(constraint, resolution.category_ids, vocab) if enforceable(resolution) else {}
            if not enforceable(resolution):
                if not constraint.advisory:
                    refused.append(constraint)
                not_enforced[constraint.id] = "advisory statement resolves to no detectable category; not enforced" if constraint.advisory else ""
            elif missing:
                if strict and not constraint.advisory:
                    refused.append(constraint)
                not_enforced[constraint.id] = f"no installed detector finds {describe(missing)}; NOT enforced"
            elif resolution.polarity in (Polarity.PERMISSION, Polarity.NEGATED_RESTRICTION) and not constraint.detect.categories:
                not_enforced[constraint.id] = f"statement reads as a {resolution.polarity.value.replace('_', ' ')}; nothing to enforce"
        if refused:
            raise UnresolvedStatementError(_refusal(policy, refused, not_enforced))
        partly = {
            c.id: f"NOT enforced for {describe_uncovered(kinds)}: no detector covers it (PE116)"
            for c in policy.constraints
            if c.id not in not_enforced and not c.detect.patterns and (kinds := uncovered_kinds(c.statement, vocab, policy.countries))
        }
        return cls(not_enforced, partly, by_meaning)

    def enforced(self, constraints: Sequence[Constraint]) -> tuple[Constraint, ...]:
        """The constraints an enforcer acts on."""
        return tuple(c for c in constraints if c.id not in self.not_enforced)

    def partition(self, applied: list[ConstraintOutcome], not_applied: list[ConstraintOutcome]) -> tuple[list[ConstraintOutcome], list[ConstraintOutcome]]:
        """Outcomes with every constraint this gate does not enforce moved to *not applied*, with its reason."""
        notes = {**self.by_meaning, **self.partly}
        kept = [
            o.model_copy(update={"reason": f"{o.reason}; {notes[o.constraint_id]}"}) if o.constraint_id in notes else o
            for o in applied
            if o.constraint_id not in self.not_enforced
        ]
        moved = [ConstraintOutcome(constraint_id=o.constraint_id, applied=False, reason=self.not_enforced[o.constraint_id], score=o.score) for o in applied if o.constraint_id in self.not_enforced]
        return kept, list(not_applied) + moved


def _refusal(policy: Policy, refused: list[Constraint], reasons: dict[str, str]) -> str:
    spans = statement_spans(policy)
    lines = [f"policy {policy.metadata.name!r} cannot be enforced: {len(refused)} statement(s) resolve to no kind of data the engine can detect"]
    for constraint in refused:
        where = spans.get(constraint.id) or (policy.sources[0] if policy.sources else policy.metadata.name)
        detail = f" ({reasons[constraint.id]})" if reasons[constraint.id] else ""
        lines.append(f"  {where}: constraint {constraint.id!r}: {constraint.statement!r}{detail}")
    lines.append(f"  {_FIX}")
    return "\n".join(lines)


def statement_spans(policy: Policy) -> dict[str, SourceSpan]:
    """Source position of each constraint's statement, read again from the policy's root file ({} if it is gone)."""
    if not policy.sources:
        return {}
    root = Path(policy.root_dir) / Path(policy.sources[0]).name
    if not root.is_file():
        return {}
    for loaded in load_repo([root]).policies:
        if loaded.policy.metadata.name == policy.metadata.name:
            return {c.id: loaded.span(("constraints", i, "statement")) for i, c in enumerate(loaded.policy.constraints)}
    return {}
