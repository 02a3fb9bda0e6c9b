"""The privacy-budget ledger beside the decision records: what each scope was charged, from both sides.

Every DP attempt that reserved budget leaves a ledger entry (committed with
what the accountant spent, or still reserved, which counts as spent); every
decision record of a DP attempt carries the epsilon it was charged
(``DecisionRecord.privacy``).  An auditor reconciles the two per scope: the
ledger's charge and the records' sum must agree to the ledger's resolution
(one unit of :data:`~audit.ledger.EPSILON_UNITS` per entry, since the ledger
rounds each charge up).  A difference means budget was charged that no
decision record accounts for (e.g. a reservation an enforcer could not settle
when the pipeline abandoned it, or a record whose audit write failed), or the
log and the ledger cover different periods; the report shows it instead of a
silent mismatch.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from audit.ledger import DELTA_UNITS, EPSILON_UNITS, BudgetLedger

#: What the report's budget columns mean (printed under the table in every format).
BUDGET_LEGEND = (
    "Epsilon spent (records): the sum of the epsilon each decision record says its DP attempt was charged. "
    "Epsilon charged (ledger): committed spend plus open reservations in the privacy-budget ledger (with --ledger). "
    "Reconciled: the two agree; 'no' means budget was charged that no decision record accounts for, or the log and the ledger cover different periods."
)

#: States of a ledger entry that hold budget (open reservations count as spent, as in :meth:`BudgetLedger.remaining`).
CHARGED_STATES = ("committed", "reserved")


@dataclass(frozen=True)
class LedgerCharge:
    """What the ledger charged one scope over all its windows: epsilon and delta, and how many entries hold it."""

    scope: str
    epsilon: float
    delta: float
    entries: int

    def differs_from(self, epsilon: float, delta: float) -> bool:
        """Whether the records' ``(epsilon, delta)`` for this scope disagree with the ledger beyond its rounding."""
        slack = max(self.entries, 1)
        return abs(self.epsilon - epsilon) > slack / EPSILON_UNITS or abs(self.delta - delta) > slack / DELTA_UNITS


def ledger_charges(ledger: BudgetLedger) -> dict[str, LedgerCharge]:
    """Scope -> the ledger's total charge (committed spend plus open reservations), over every entry it holds."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for entry in ledger.entries():
        if entry.state not in CHARGED_STATES:
            continue
        committed = entry.state == "committed"
        row = totals[entry.scope]
        row[0] += (entry.epsilon or 0.0) if committed else entry.epsilon_reserved
        row[1] += (entry.delta or 0.0) if committed else entry.delta_reserved
        row[2] += 1
    return {scope: LedgerCharge(scope, eps, delta, int(count)) for scope, (eps, delta, count) in totals.items()}


def reconciled_cell(reconciled: bool | None, ledger_epsilon: float | None, records_epsilon: float) -> str:
    """``yes``, ``no (ledger +X)`` (what the ledger charged beyond the records) or ``-`` without a ledger."""
    if reconciled is None:
        return "-"
    return "yes" if reconciled else f"no (ledger {(ledger_epsilon or 0.0) - records_epsilon:+.6g})"
