"""Audit reports: aggregate decision records and export HTML, JSON, CSV or Markdown.

:func:`build_report` reduces an iterable of records (plus, optionally, the
privacy-budget ledger and verification results) to an :class:`AuditReport`
with: a summary, decisions over time per outcome, redactions per constraint
and category, denials and abstentions, budget consumption per scope, stage
latencies and the policy revisions in force. The renderers only format that
model; the HTML one is a single self-contained file (inline CSS and SVG, no
scripts, no network fetches) an auditor can open offline.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from audit.charts import horizontal_bars, stacked_columns
from audit.coverage import CHECKPOINT_LEGEND, CoverageCounter, coverage_legend, coverage_note
from audit.ledger import BudgetLedger
from audit.reconcile import BUDGET_LEGEND, LedgerCharge, ledger_charges, reconciled_cell
from audit.records import DecisionRecord, Outcome
from audit.report_model import (
    LATENCY_LEGEND,
    AuditReport,
    BudgetRow,
    ExceptionRow,
    RedactionCount,
    RevisionRow,
    StageLatency,
    TimeBucket,
)

FORMATS = ("html", "json", "csv", "md")
EXCEPTION_LIMIT = 200




def _optional(value: float | None) -> str:
    return "-" if value is None else f"{value:.6g}"


def _reconciled(row: BudgetRow) -> str:
    return reconciled_cell(row.reconciled, row.ledger_epsilon, row.epsilon_spent)


def _bucket_format(start: datetime | None, end: datetime | None) -> tuple[str, str]:
    if start is None or end is None or (end - start).total_seconds() <= 2 * 86400:
        return "hour", "%Y-%m-%d %H:00"
    if (end - start).days <= 120:
        return "day", "%Y-%m-%d"
    return "month", "%Y-%m"


def _percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


def _latency(stage: str, samples: list[tuple[float, float]]) -> StageLatency:
    """``samples``: (the stage's ms, the request's total ms) for each request in which the stage ran."""
    ordered, totals = sorted(ms for ms, _ in samples), sorted(total for _, total in samples)
    return StageLatency(
        stage=stage, count=len(ordered), p50_ms=_percentile(ordered, 0.5), p95_ms=_percentile(ordered, 0.95),
        total_p50_ms=_percentile(totals, 0.5), total_p95_ms=_percentile(totals, 0.95),
    )


def _reasons(record: DecisionRecord) -> list[str]:
    reasons = [f"{c.constraint_id}: {c.reason}" for c in record.constraints if c.applied]
    reasons += [f"{name}: {section['verdict']}" for name, section in sorted(record.enforcement.items()) if section.get("verdict")]
    return reasons


def build_report(
    records: Iterable[DecisionRecord],
    *,
    sources: list[str],
    ledger: BudgetLedger | None = None,
    verification: list[dict[str, Any]] | None = None,
    constraints: list[tuple[str, str | None]] | None = None,
) -> AuditReport:
    """Aggregate ``records`` into an :class:`AuditReport` (one pass; keeps only aggregates).

    ``constraints`` (``(id, severity)`` of the policy's constraints) makes every one of
    them appear in the coverage table, zero counts included; without it the
    constraints the records considered are listed.
    """
    outcomes: Counter[str] = Counter()
    principals: set[str] = set()
    per_time: dict[datetime, Counter[str]] = defaultdict(Counter)
    redactions: Counter[tuple[str, str]] = Counter()
    exceptions: list[ExceptionRow] = []
    exceptions_total = failed_closed = masking_fallbacks = 0
    budget: dict[str, dict[str, Any]] = {}
    revisions: dict[tuple, dict[str, Any]] = {}
    stages: dict[str, list[tuple[float, float]]] = defaultdict(list)
    coverage = CoverageCounter()
    start = end = None
    for record in records:
        outcomes[record.outcome.value] += 1
        when = record.timestamp
        start, end = min(start or when, when), max(end or when, when)
        per_time[when.replace(minute=0, second=0, microsecond=0)][record.outcome.value] += 1
        if record.principal:
            principals.add(record.principal)
        failed_closed += record.error is not None
        masking_fallbacks += "audit.masking" in record.labels
        for redaction in record.redactions:
            redactions[(redaction.constraint_id, redaction.category)] += 1
        coverage.add(((c.constraint_id, c.applied) for c in record.constraints), (r.constraint_id for r in record.redactions))
        if record.outcome in (Outcome.denied, Outcome.abstained):
            exceptions_total += 1
            if len(exceptions) < EXCEPTION_LIMIT:
                exceptions.append(
                    ExceptionRow(
                        decision_id=record.decision_id,
                        timestamp=when,
                        principal=record.principal,
                        outcome=record.outcome,
                        policy=f"{record.policy_name or '-'}@{record.policy_revision or '-'}",
                        reasons=_reasons(record),
                        error=record.error,
                    )
                )
        if record.privacy is not None:
            row = budget.setdefault(record.privacy.scope, {"principals": set(), "decisions": 0, "eps": 0.0, "delta": 0.0})
            row["decisions"] += 1
            row["eps"] += record.privacy.epsilon_spent
            row["delta"] += record.privacy.delta_spent
            if record.principal:
                row["principals"].add(record.principal)
        key = (record.policy_name, record.policy_revision, record.bundle_digest)
        seen = revisions.setdefault(key, {"first": when, "last": when, "count": 0})
        seen.update(first=min(seen["first"], when), last=max(seen["last"], when), count=seen["count"] + 1)
        total = record.stages.get("total", sum(ms for name, ms in record.stages.items() if name != "total"))
        for stage, ms in record.stages.items():
            stages[stage].append((ms, max(total, ms)))

    unit, fmt = _bucket_format(start, end)
    timeline: dict[str, Counter[str]] = defaultdict(Counter)
    for hour in sorted(per_time):
        timeline[hour.strftime(fmt)].update(per_time[hour])

    budget_rows = {
        scope: BudgetRow(
            scope=scope,
            principals=sorted(row["principals"]),
            decisions=row["decisions"],
            epsilon_spent=row["eps"],
            delta_spent=row["delta"],
        )
        for scope, row in budget.items()
    }
    if ledger is not None:
        charges = ledger_charges(ledger)
        for scope in sorted({*ledger.scopes(), *charges}):
            row = budget_rows.setdefault(scope, BudgetRow(scope=scope, principals=[], decisions=0, epsilon_spent=0.0, delta_spent=0.0))
            if scope in ledger.scopes():
                state = ledger.remaining(scope)
                row.epsilon_total, row.epsilon_remaining, row.delta_remaining = state.epsilon_total, state.epsilon_remaining, state.delta_remaining
            charge = charges.get(scope, LedgerCharge(scope, 0.0, 0.0, 0))
            row.ledger_epsilon, row.ledger_entries = charge.epsilon, charge.entries
            row.reconciled = not charge.differs_from(row.epsilon_spent, row.delta_spent)

    return AuditReport(
        generated_at=datetime.now(timezone.utc),
        sources=sources,
        period_start=start,
        period_end=end,
        total=sum(outcomes.values()),
        outcomes={outcome.value: outcomes[outcome.value] for outcome in Outcome},
        principals=len(principals),
        failed_closed=failed_closed,
        masking_fallbacks=masking_fallbacks,
        bucket_unit=unit,
        timeline=[TimeBucket(bucket=bucket, counts=dict(counts)) for bucket, counts in timeline.items()],
        redactions=[
            RedactionCount(constraint_id=c, category=k, count=n) for (c, k), n in sorted(redactions.items(), key=lambda kv: -kv[1])
        ],
        constraints=coverage.rows(constraints or []),
        exceptions=exceptions,
        exceptions_total=exceptions_total,
        budget=sorted(budget_rows.values(), key=lambda row: -row.epsilon_spent),
        revisions=[
            RevisionRow(
                policy_name=name, policy_revision=revision, bundle_digest=digest, first_seen=v["first"], last_seen=v["last"], decisions=v["count"]
            )
            for (name, revision, digest), v in sorted(revisions.items(), key=lambda kv: kv[1]["first"])
        ],
        stages=[_latency(stage, values) for stage, values in sorted(stages.items())],
        verification=verification or [],
    )


# -- renderers -------------------------------------------------------------------


def render_json(report: AuditReport) -> str:
    return report.model_dump_json(indent=2) + "\n"


def render_csv(report: AuditReport) -> str:
    """Tidy CSV: one ``section,label,detail,value`` row per figure in the report."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", "label", "detail", "value"])
    writer.writerow(["summary", "total_decisions", "", report.total])
    writer.writerow(["summary", "principals", "", report.principals])
    writer.writerow(["summary", "failed_closed", "", report.failed_closed])
    writer.writerow(["summary", "period_start", "", report.period_start.isoformat() if report.period_start else ""])
    writer.writerow(["summary", "period_end", "", report.period_end.isoformat() if report.period_end else ""])
    for outcome, count in report.outcomes.items():
        writer.writerow(["outcome", outcome, "", count])
    for bucket in report.timeline:
        for outcome, count in bucket.counts.items():
            writer.writerow(["timeline", bucket.bucket, outcome, count])
    for row in report.redactions:
        writer.writerow(["redactions", row.constraint_id, row.category, row.count])
    for row in report.constraints:
        writer.writerow(["constraints", row.constraint_id, f"applied={row.applied} severity={row.severity or '-'}{' coverage=to-review' if row.flagged else ''}", row.redactions])
    for row in report.exceptions:
        writer.writerow(["exceptions", row.decision_id, row.outcome.value, "; ".join(row.reasons) or (row.error or "")])
    for row in report.budget:
        writer.writerow(["budget", row.scope, "epsilon_spent", row.epsilon_spent])
        writer.writerow(["budget", row.scope, "delta_spent", row.delta_spent])
        if row.epsilon_remaining is not None:
            writer.writerow(["budget", row.scope, "epsilon_remaining", row.epsilon_remaining])
        if row.ledger_epsilon is not None:
            writer.writerow(["budget", row.scope, "ledger_epsilon_charged", row.ledger_epsilon])
            writer.writerow(["budget", row.scope, "reconciled", row.reconciled])
    for row in report.revisions:
        writer.writerow(["revisions", f"{row.policy_name}@{row.policy_revision}", row.bundle_digest or "", row.decisions])
    for row in report.stages:
        writer.writerow(["latency_ms", row.stage, "p50", row.p50_ms])
        writer.writerow(["latency_ms", row.stage, "p95", row.p95_ms])
        writer.writerow(["latency_ms", row.stage, "total_p50", row.total_p50_ms])
    return out.getvalue()


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("audit", "templates"), autoescape=select_autoescape(["html", "j2"]))
    env.filters["ts"] = lambda value: value.strftime("%Y-%m-%d %H:%M:%S UTC") if value else "-"
    env.filters["num"] = lambda value: "-" if value is None else f"{value:,.6g}"
    env.filters["reconciled"] = _reconciled
    return env


def render_html(report: AuditReport) -> str:
    charts = {
        "timeline": stacked_columns(
            [b.bucket for b in report.timeline],
            {o.value: [b.counts.get(o.value, 0) for b in report.timeline] for o in Outcome},
            title=f"Decisions per {report.bucket_unit} by outcome",
        ),
        "outcomes": horizontal_bars([(name, count) for name, count in report.outcomes.items()], title="Decisions by outcome"),
        "redactions": horizontal_bars(
            [(r.constraint_id, r.redactions) for r in report.constraints[:30]], title="Redactions per constraint (zero included)"
        ),
        "budget": horizontal_bars(
            [(row.scope, row.epsilon_spent) for row in report.budget[:20]], title="Epsilon spent per scope", colour="#00838f"
        ),
    }
    return _environment().get_template("report.html.j2").render(
        report=report, charts=charts, budget_legend=BUDGET_LEGEND, coverage_note=coverage_note(report.constraints, report.total),
        coverage_legend=coverage_legend(report.total), checkpoint_legend=CHECKPOINT_LEGEND, latency_legend=LATENCY_LEGEND,
    )


def _cell(value: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(report: AuditReport) -> str:
    lines = [
        "# Audit report",
        "",
        f"Generated {report.generated_at:%Y-%m-%d %H:%M UTC} from {', '.join(report.sources)}.",
        "",
        "## Summary",
        "",
        "| Figure | Value |",
        "|---|---|",
        f"| Decisions | {report.total} |",
        f"| Period | {report.period_start or '-'} to {report.period_end or '-'} |",
        f"| Principals | {report.principals} |",
        f"| Failed closed (errors) | {report.failed_closed} |",
        *[f"| {outcome.capitalize()} | {count} |" for outcome, count in report.outcomes.items()],
        "",
    ]
    if report.verification:
        lines += ["## Log verification", "", "| Log | Result |", "|---|---|"]
        lines += [f"| {_cell(v['log'])} | {_cell('; '.join([('OK' if v['ok'] else str(v['problem'])), *v.get('unchecked', []), *v.get('reanchors', [])]))} |" for v in report.verification]
        lines.append("")
    lines += [f"## Decisions per {report.bucket_unit}", "", "| Bucket | " + " | ".join(o.value for o in Outcome) + " |"]
    lines.append("|---|" + "---|" * len(Outcome))
    lines += [f"| {b.bucket} | " + " | ".join(str(b.counts.get(o.value, 0)) for o in Outcome) + " |" for b in report.timeline]
    lines += ["", "## Constraints (every constraint, zero included)", ""]
    if any(r.flagged for r in report.constraints):
        lines += [coverage_note(report.constraints, report.total), ""]
    lines += ["| Constraint | Severity | Applied | Redactions | Coverage |", "|---|---|---|---|---|"]
    lines += [
        f"| {_cell(r.constraint_id)} | {r.severity or '-'} | {r.applied} | {r.redactions} | {'to review' if r.flagged else ''} |" for r in report.constraints
    ]
    lines += ["", coverage_legend(report.total)]
    lines += ["", "## Redactions per constraint and category", "", "| Constraint | Category | Count |", "|---|---|---|"]
    lines += [f"| {_cell(r.constraint_id)} | {_cell(r.category)} | {r.count} |" for r in report.redactions]
    lines += ["", f"## Denials and abstentions ({report.exceptions_total})", "", "| Time | Decision | Principal | Outcome | Reasons |", "|---|---|---|---|---|"]
    lines += [
        f"| {r.timestamp:%Y-%m-%d %H:%M:%S} | {_cell(r.decision_id)} | {_cell(r.principal or '-')} | {r.outcome.value} | {_cell('; '.join(r.reasons) or r.error or '-')} |"
        for r in report.exceptions
    ]
    lines += ["", "## Privacy budget per scope", "", "| Scope | Principals | Decisions | Epsilon spent (records) | Delta spent | Epsilon charged (ledger) | Epsilon remaining | Reconciled |", "|---|---|---|---|---|---|---|---|"]
    lines += [
        f"| {_cell(b.scope)} | {_cell(', '.join(b.principals) or '-')} | {b.decisions} | {b.epsilon_spent:.6g} | {b.delta_spent:.3g} | "
        f"{_optional(b.ledger_epsilon)} | {_optional(b.epsilon_remaining)} | {_reconciled(b)} |"
        for b in report.budget
    ]
    if report.budget:
        lines += ["", BUDGET_LEGEND]
    lines += ["", "## Policy revisions in force", "", "| Policy | Revision | Bundle | First seen | Last seen | Decisions |", "|---|---|---|---|---|---|"]
    lines += [
        f"| {_cell(r.policy_name or '-')} | {_cell(r.policy_revision or '-')} | {_cell(r.bundle_digest or '-')} | {r.first_seen:%Y-%m-%d %H:%M} | {r.last_seen:%Y-%m-%d %H:%M} | {r.decisions} |"
        for r in report.revisions
    ]
    return "\n".join(lines) + "\n"


RENDERERS = {"html": render_html, "json": render_json, "csv": render_csv, "md": render_markdown}


def render(report: AuditReport, fmt: str) -> str:
    """Render ``report`` in one of :data:`FORMATS`."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")
    return RENDERERS[fmt](report)
