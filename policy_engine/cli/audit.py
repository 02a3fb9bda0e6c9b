"""Tamper-evident decision logs: ``audit verify | repair | tail | query | report``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

import policy_engine
from audit.coverage import CHECKPOINT_LEGEND
from audit.records import Outcome
from audit.report import FORMATS as REPORT_FORMATS
from policy_engine.cli.common import ExitCode, choice, echo_json, format_option, handle_errors, is_quiet, output_options


def _audit_keyring(policy_path: Path | None, key_file: Path | None) -> Any:
    """Keys named by the policy's audit section (or the defaults), with an optional key-file override."""
    from audit.keys import load_keyring
    from policy_engine.policy.model import AuditSettings

    settings = policy_engine.load_policy(policy_path).audit if policy_path else AuditSettings()
    if key_file is not None:
        settings = settings.model_copy(update={"key_file": str(key_file)})
    return load_keyring(settings)


def _existing_logs(paths: tuple[Path, ...]) -> list[Path]:
    missing = [p for p in paths if not p.exists() and not p.with_name(p.name + ".head").exists()]
    if missing:
        raise click.BadParameter(f"no such log: {', '.join(map(str, missing))}; pass the decision log path (e.g. .policy-engine/audit/decisions.jsonl)", param_hint="LOGS")
    return list(paths)


def _open_ledger(path: Path) -> Any:
    """The budget ledger at ``path``, or a one-line usage error naming the file when it is missing or not a ledger."""
    import sqlite3

    from audit.ledger import BudgetLedger

    if not path.exists():
        raise click.BadParameter(f"no such ledger: {path}; pass the policy's budget ledger (audit.ledger, e.g. .policy-engine/ledger.sqlite) or leave --ledger out", param_hint="--ledger")
    try:
        ledger = BudgetLedger(path)
        ledger.scopes()
    except sqlite3.DatabaseError as exc:
        raise click.BadParameter(f"{path} is not a privacy-budget ledger ({exc}); pass the policy's audit.ledger file", param_hint="--ledger") from None
    return ledger


def _parse_time(_ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    from datetime import datetime

    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO-8601 time (e.g. 2026-11-01 or 2026-11-01T08:00:00Z)", param=param) from None


#: How ``audit tail`` and ``audit query`` print records: one aligned line each, or the masked JSON as logged.
RECORD_FORMATS = ("table", "jsonl")


def _record_line(entry: Any, record: Any) -> str:
    policy = f"{record.policy_name or '-'}@{record.policy_revision or '-'}"
    return (
        f"{entry.seq:>8} {record.timestamp:%Y-%m-%dT%H:%M:%SZ} {record.outcome.value:<9} "
        f"{record.principal or '-':<16} {record.decision_id} {policy} redactions={len(record.redactions)}"
        + (f" epsilon={record.privacy.epsilon_spent:.6g} scope={record.privacy.scope}" if record.privacy is not None else "")
    )


def audit_key_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--policy / --key-file: where the HMAC keys come from."""
    fn = click.option("--key-file", type=click.Path(dir_okay=False, path_type=Path), help="Audit key file (one key per line, first = active); overrides the policy's audit.key_file.")(fn)
    return click.option("--policy", "policy_path", type=click.Path(path_type=Path), help="Policy whose audit section names the key (key_env, key_file); defaults apply without it.")(fn)


def audit_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Exit 3 when a log is corrupt or tampered with; other errors go through handle_errors."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from audit.errors import LogCorruptError

        try:
            return fn(*args, **kwargs)
        except LogCorruptError as exc:
            click.echo(f"TAMPERED or corrupt: {exc}", err=True)
            click.get_current_context().exit(ExitCode.POLICY)

    return wrapper


@click.group("audit")
def audit_group() -> None:
    """Verify, inspect and report on tamper-evident decision logs.

    Decision logs are hash-chained JSON Lines (or SQLite) with HMAC-signed
    checkpoints and a signed head anchor. The key comes from the environment
    variable named by the policy's audit.key_env (default
    POLICY_ENGINE_AUDIT_KEY) or audit.key_file; retired keys go in
    POLICY_ENGINE_AUDIT_KEY_PREVIOUS (comma-separated).

    Exit codes: 0 ok, 1 usage or tool error, 3 tampering or corruption found.
    """


@audit_group.command("verify")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--partial", is_flag=True, help="Accept a chain that starts after seq 0 and no head anchor (archived or copied segments).")
@format_option()
@audit_key_options
@output_options
@click.pass_context
@handle_errors
@audit_errors
def audit_verify(ctx: click.Context, logs: tuple[Path, ...], partial: bool, fmt: str, policy_path: Path | None, key_file: Path | None) -> None:
    """Check decision logs for edits, deletions, reordering, truncation and forged signatures.

    An active log (e.g. decisions.jsonl) is verified together with its rotated
    segments and head anchor. The first broken record is named by seq and
    file:line.

    \b
    Examples:
      policy-engine audit verify .policy-engine/audit/decisions.jsonl
      policy-engine audit verify archive/decisions.000000100000.jsonl --partial

    Exit codes: 0 intact, 1 usage or tool error, 3 tampering, truncation or a torn tail found.
    """
    from audit.sources import verify_path

    keyring = _audit_keyring(policy_path, key_file)
    reports = [verify_path(log, keyring, partial=partial) for log in _existing_logs(logs)]
    if fmt == "json":
        echo_json([r.to_dict() for r in reports])
    for report in reports:
        if fmt == "human" and report.ok:
            click.echo(
                f"OK {report.log}: {report.decisions} decisions, hash chain intact, {report.signed_checkpoints} of {report.checkpoints} signed checkpoint(s) verified, next seq {report.next_seq}"
                + "".join(f"; {u}" for u in report.unchecked + report.reanchors)
            )
        elif fmt == "human":
            click.echo(f"TAMPERED {report.log}: {report.problem}" + "".join(f"; {u}" for u in report.unchecked + report.reanchors))
        if fmt == "human" and not is_quiet():
            for note in report.notes:
                click.echo(f"  note: {note}")
    if fmt == "human" and not is_quiet() and reports:
        click.echo(f"  {CHECKPOINT_LEGEND}")
    ctx.exit(ExitCode.OK if all(r.ok for r in reports) else ExitCode.POLICY)


@audit_group.command("repair")
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--reanchor", is_flag=True, help="With the head anchor missing: accept the unverifiable gap and write a signed re-anchored event into the log (verify shows it forever).")
@audit_key_options
@output_options
@handle_errors
@audit_errors
def audit_repair(log: Path, policy_path: Path | None, key_file: Path | None, reanchor: bool) -> None:
    """Truncate a torn tail left by a crashed writer and re-anchor the head.

    Refuses (exit 3) when the log shows anything other than a crash: repair
    never hides edits, deletions or reordering. A missing head anchor is
    refused too (trailing records may have gone with it): the message names
    the last signed checkpoint and the unverifiable entries after it; with
    --reanchor (key required) a signed re-anchor event is written into the
    log, and verify reports it forever.

    \b
    Example:
      policy-engine audit verify decisions.jsonl || policy-engine audit repair decisions.jsonl
      policy-engine audit repair decisions.jsonl --reanchor     # head lost: accept and record the gap

    Exit codes: 0 repaired or already intact, 1 usage or tool error, 3 refused.
    """
    from audit.verify import repair

    result = repair(_existing_logs((log,))[0], _audit_keyring(policy_path, key_file), reanchor=reanchor)
    click.echo(f"repaired {log}: truncated {result.truncated_bytes} torn bytes, head {'rebuilt' if result.head_rebuilt else 'unchanged'}; {result.report.decisions} decisions verify")


@audit_group.command("tail")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-n", "--lines", "count", type=click.IntRange(min=1), default=20, show_default=True, help="How many records.")
@format_option(RECORD_FORMATS, default="table")
@output_options
@handle_errors
@audit_errors
def audit_tail(logs: tuple[Path, ...], count: int, fmt: str) -> None:
    """Show the last decision records (masked as logged).

    \b
    Example:
      policy-engine audit tail .policy-engine/audit/decisions.jsonl -n 50
    """
    from audit.query import tail_records

    for entry, record in tail_records(_existing_logs(logs), count):
        click.echo(record.model_dump_json() if fmt == "jsonl" else _record_line(entry, record))


@audit_group.command("query")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--since", callback=_parse_time, help="Only records at or after this ISO-8601 time (UTC if no zone).")
@click.option("--until", callback=_parse_time, help="Only records before this ISO-8601 time.")
@click.option("--principal", help="Only records of this principal.")
@click.option("--constraint", help="Only records where this constraint id applied or redacted.")
@click.option("--outcome", type=choice(Outcome), help="Only records with this outcome.")
@format_option(RECORD_FORMATS, default="table")
@output_options
@click.pass_context
@handle_errors
@audit_errors
def audit_query(ctx: click.Context, logs: tuple[Path, ...], since: Any, until: Any, principal: str | None, constraint: str | None, outcome: str | None, fmt: str) -> None:
    """Filter decision records by time range, principal, constraint and outcome.

    \b
    Examples:
      policy-engine audit query decisions.jsonl --outcome denied --since 2026-11-01
      policy-engine audit query decisions.jsonl --constraint no-email -f jsonl
    """
    from audit.query import RecordFilter, query_records

    record_filter = RecordFilter(since, until, principal, constraint, Outcome(outcome) if outcome else None)
    matched = 0
    for entry, record in query_records(_existing_logs(logs), record_filter):
        matched += 1
        click.echo(record.model_dump_json() if fmt == "jsonl" else _record_line(entry, record))
    if not is_quiet():
        click.echo(f"{matched} matching record(s)", err=True)


@audit_group.command("report")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@format_option(REPORT_FORMATS, default="html")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to this file instead of stdout.")
@click.option("--ledger", "ledger_path", type=click.Path(dir_okay=False, path_type=Path), help="Privacy-budget ledger (SQLite) to include remaining budgets from.")
@click.option("--verify/--no-verify", default=True, show_default=True, help="Verify the logs and include the result in the report.")
@audit_key_options
@output_options
@click.pass_context
@handle_errors
@audit_errors
def audit_report(ctx: click.Context, logs: tuple[Path, ...], fmt: str, output: Path | None, ledger_path: Path | None, verify: bool, policy_path: Path | None, key_file: Path | None) -> None:
    """Export an audit report: summary, decisions over time, redactions, denials, budgets, revisions.

    The HTML report is one self-contained file (inline CSS and SVG, no
    scripts or network fetches) that can be opened offline.

    \b
    Examples:
      policy-engine audit report decisions.jsonl -o audit.html
      policy-engine audit report decisions.jsonl --ledger .policy-engine/ledger.sqlite -f md
      policy-engine audit report decisions.jsonl --policy policies/clinic -o audit.html   # every constraint, zero counts included

    Exit codes: 0 written, 1 usage or tool error, 3 written but a log failed verification.
    """
    from audit.report import build_report, render
    from audit.sources import iter_decisions, verify_path

    paths = _existing_logs(logs)
    verification = []
    if verify:
        keyring = _audit_keyring(policy_path, key_file)
        verification = [verify_path(p, keyring).to_dict() for p in paths]
    ledger = _open_ledger(ledger_path) if ledger_path else None
    constraints = [(c.id, c.severity.value) for c in policy_engine.load_policy(policy_path).constraints] if policy_path else None
    report = build_report((record for _, record in iter_decisions(paths)), sources=[str(p) for p in paths], ledger=ledger, verification=verification, constraints=constraints)
    text = render(report, fmt)
    if output:
        output.write_text(text, encoding="utf-8")
        if not is_quiet():
            click.echo(f"wrote {output} ({report.total} decisions)", err=True)
    else:
        click.echo(text, nl=False)
    ctx.exit(ExitCode.OK if all(v["ok"] for v in verification) else ExitCode.POLICY)
