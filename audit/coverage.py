"""Constraint coverage for the audit report: every constraint with its counts, zero included.

A constraint that never redacted anything is invisible in a list of
redactions; an auditor needs to see it ("a critical rule protected
nothing").  The constraint list comes from the policy when the report is
given one (with severities), and otherwise from the decision records, which
list every constraint considered for each request (applied or not).
Constraints of severity ``critical`` or ``high`` with no redaction are
flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

__all__ = ["FLAGGED_SEVERITIES", "ConstraintCoverage", "CoverageCounter"]

#: Severities whose constraints are flagged when they never fired.
FLAGGED_SEVERITIES = frozenset({"critical", "high"})


class ConstraintCoverage(BaseModel):
    """One constraint: how often it was applied and how many spans it redacted."""

    constraint_id: str
    severity: str | None
    applied: int
    redactions: int
    flagged: bool


class CoverageCounter:
    """Counts applications and redactions per constraint while the report reads records."""

    def __init__(self) -> None:
        self.applied: Counter[str] = Counter()
        self.redactions: Counter[str] = Counter()
        self.seen: dict[str, None] = {}

    def add(self, considered: Iterable[tuple[str, bool]], redacted: Iterable[str]) -> None:
        """One record: ``(constraint id, applied)`` for each constraint considered, and the constraint id of each redaction."""
        for constraint_id, applied in considered:
            self.seen.setdefault(constraint_id)
            self.applied[constraint_id] += applied
        for constraint_id in redacted:
            self.seen.setdefault(constraint_id)
            self.redactions[constraint_id] += 1

    def rows(self, policy_constraints: Sequence[tuple[str, str | None]] = ()) -> list[ConstraintCoverage]:
        """Every constraint (the policy's first, in its order, then any other the records name), flagged ones first."""
        severities = dict(policy_constraints)
        ids = list(dict.fromkeys([cid for cid, _ in policy_constraints] + list(self.seen)))
        rows = [
            ConstraintCoverage(
                constraint_id=cid,
                severity=severities.get(cid),
                applied=self.applied[cid],
                redactions=self.redactions[cid],
                flagged=self.redactions[cid] == 0 and severities.get(cid) in FLAGGED_SEVERITIES,
            )
            for cid in ids
        ]
        return sorted(rows, key=lambda r: (not r.flagged, -r.redactions))
