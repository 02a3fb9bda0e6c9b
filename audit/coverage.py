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

__all__ = ["CHECKPOINT_LEGEND", "FLAGGED_SEVERITIES", "ConstraintCoverage", "CoverageCounter", "coverage_legend", "coverage_note"]

#: Severities whose constraints are flagged when they never fired.
FLAGGED_SEVERITIES = frozenset({"critical", "high"})


#: What the verification table's checkpoint column means.
CHECKPOINT_LEGEND = (
    "Signed checkpoints: checkpoints whose signature verified / checkpoints in the log. A checkpoint signs the chain head every "
    "audit.checkpoint_every records (1000 by default), so a short log has none yet; every record is hash-chained and checked either way."
)


def coverage_note(rows: Sequence[ConstraintCoverage], requests: int) -> str:
    """The coverage to review, worded with the number of requests it rests on (a few requests prove little)."""
    flagged = sum(r.flagged for r in rows)
    return (
        f"Coverage to review: {flagged} critical or high-severity constraint(s) made no redaction in the {requests} request(s) of this report. "
        "Over a few requests that is expected; over many, check their detectors against the corpus (`policy-engine lint POLICY --bundle BUNDLE`, PE161)."
    )


def coverage_legend(requests: int) -> str:
    """What the constraint table's columns mean."""
    return (
        f"Applied: of the {requests} request(s), how many enforced the constraint. Redactions: spans it replaced. "
        "Coverage 'to review': a critical or high-severity constraint with no redaction in these requests."
    )


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
