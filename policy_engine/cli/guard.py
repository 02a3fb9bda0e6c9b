"""``policy-engine guard check`` and ``policy-engine review list|show|approve|reject``."""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path
from typing import Any

import click

import policy_engine
from audit.timestamps import when
from enforcers.output_guard.review_queue import ReviewItem
from policy_engine.cli.common import format_option, handle_errors
from policy_engine.cli.inputs import ExistingPath

_POLICY = click.argument("policy_path", metavar="POLICY", type=ExistingPath())
_FORMAT = format_option()


def _policy(path: Path) -> Any:
    policy = policy_engine.load_policy(path)
    if policy.quasi_identifiers is None:
        raise click.ClickException(f"{path}: the policy has no quasi_identifiers section; add one (domain, classes, max_per_subject) to use the output guard")
    return policy


def queue_errors(fn: Any) -> Any:
    """A review queue that SQLite cannot read is exit 1 with its path and the fix, not a bare "file is not a database"."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            from enforcers.output_guard.review_queue import queue_path

            policy = policy_engine.load_policy(kwargs["policy_path"])
            path = queue_path(policy.resolve_path(policy.audit.ledger))
            raise click.ClickException(f"{path}: the review queue cannot be read ({exc}); move the file aside to start an empty queue") from None

    return wrapper


@click.group("guard")
def guard_group() -> None:
    """Output guard: QI-cluster detection on answers (PPE).

    \b
    Examples:
      policy-engine guard check policies/clinic/policy.yaml "The patient is 52 years old, works as a welder and lives in Omaha."
    """


@guard_group.command("check")
@_POLICY
@click.argument("answer")
@_FORMAT
@handle_errors
@queue_errors
def guard_check(policy_path: Path, answer: str, fmt: str) -> None:
    """Run the output guard on ANSWER (an answer produced elsewhere), as an engine would.

    Prints the action (pass, redacted, generalized, refused, abstained), the
    released text if any, and why.  A withheld answer (abstained or refused) is
    put in the review queue with its reason.  Uses the shipped guard: nothing is
    trained.
    Exit codes: 0 checked, 1 bad input (an empty ANSWER) or tool error,
    3 the policy does not load.

    \b
    Example:
      policy-engine guard check policies/lawfirm/policy.yaml "Courts weigh the child's best interests."
    """
    from enforcers.output_guard.reviews import open_queue
    from enforcers.output_guard.service import OutputGuard
    from policy_engine.detect.analyzer import Analyzer
    from policy_engine.policy.vocabulary import vocabulary_for

    if not answer.strip():
        raise click.BadParameter("the answer is empty; pass the answer text to check, in quotes", param_hint="ANSWER")
    policy = _policy(policy_path)
    guard = OutputGuard(policy.quasi_identifiers, Analyzer(policy), policy.constraints, dict(vocabulary_for(policy.vocabulary).categories))
    outcome = guard.check(answer)
    section = outcome.section
    if not outcome.released:
        section = section.model_copy(update={"review_item": open_queue(policy).add(policy.metadata.name, answer, section.model_dump())})
    if fmt == "json":
        click.echo(json.dumps({"released": outcome.text, "reason": outcome.reason, "output_guard": section.model_dump()}, indent=2))
        return
    click.echo(f"action: {section.action} (verdict {section.verdict}, risk {section.risk:.3f}, tau {section.tau:.3f}, operating point {section.operating_point})")
    click.echo(f"QI classes about one subject: {', '.join(section.qi_classes) or 'none'} (max {section.max_per_subject})")
    click.echo(f"reason: {outcome.reason}")
    if section.review_item:
        click.echo(f"queued for review: {section.review_item}")
    click.echo(f"answer: {outcome.text if outcome.released else '[withheld]'}")
    click.echo(
        "  risk: the guard's calibrated score that the answer identifies someone (0-1); tau: the score at which the operating point "
        "flags it; a score in the review band just below tau goes to a reviewer instead of being released."
    )


# --- review -------------------------------------------------------------------


def _summary(item: ReviewItem) -> str:
    d = item.details
    return f"{item.item_id}  {when(item.created)}  {item.status:<8}  risk={d.get('risk', 0):.3f}  QI={','.join(d.get('qi_classes', [])) or '-'}"


@click.group("review")
def review_group() -> None:
    """Review queue of answers the output guard abstained on.

    The queue (guard-review.sqlite next to the policy's ledger) is the only
    place abstained answers are kept; it is access-controlled local storage.
    Every approval or rejection is written to the policy's audit log.

    \b
    Examples:
      policy-engine review list policies/clinic/policy.yaml
      policy-engine review show policies/clinic/policy.yaml ITEM
      policy-engine review approve policies/clinic/policy.yaml ITEM --reviewer alice
    """


@review_group.command("list")
@_POLICY
@click.option("--status", type=click.Choice(["pending", "approved", "rejected", "all"]), default="pending", show_default=True)
@handle_errors
@queue_errors
def review_list(policy_path: Path, status: str) -> None:
    """List review items (scores and QI classes; no answer text).

    \b
    Example:
      policy-engine review list policies/clinic --status all
    """
    from enforcers.output_guard.reviews import open_queue

    items = open_queue(policy_engine.load_policy(policy_path)).list(None if status == "all" else status)  # type: ignore[arg-type]
    for item in items:
        click.echo(_summary(item))
    if not items:
        click.echo(f"no {status if status != 'all' else ''} review items".replace("  ", " "))


@review_group.command("show")
@_POLICY
@click.argument("item_id")
@handle_errors
@queue_errors
def review_show(policy_path: Path, item_id: str) -> None:
    """Show one item: the withheld answer, its scores and its QI spans.

    \b
    Example:
      policy-engine review show policies/clinic 3f2a9c0d41b7e815
    """
    from enforcers.output_guard.reviews import open_queue

    item = open_queue(policy_engine.load_policy(policy_path)).get(item_id)
    click.echo(_summary(item))
    click.echo(f"answer: {item.answer}")
    click.echo(json.dumps(item.details, indent=2, sort_keys=True))
    if item.reviewer:
        click.echo(f"resolved by {item.reviewer} at {when(item.resolved)}" + (f": {item.note}" if item.note else ""))


def _resolve_command(verb: str, status: str) -> Any:
    @_POLICY
    @click.argument("item_id")
    @click.option("--reviewer", required=True, help="Who resolves the item (recorded as the audit record's principal).")
    @click.option("--note", help="Why (kept in the queue, not in the audit log).")
    @handle_errors
    @queue_errors
    def command(policy_path: Path, item_id: str, reviewer: str, note: str | None) -> None:
        from enforcers.output_guard.reviews import resolve

        item, decision_id = resolve(policy_engine.load_policy(policy_path), item_id, status, reviewer, note)  # type: ignore[arg-type]
        click.echo(f"{item.item_id} {status} by {reviewer}; audit record {decision_id}")

    command.__doc__ = f"Mark ITEM_ID {status} and write the resolution to the audit log.\n\n\b\nExample:\n  policy-engine review {verb} POLICY ITEM --reviewer alice"
    return command


review_group.command("approve")(_resolve_command("approve", "approved"))
review_group.command("reject")(_resolve_command("reject", "rejected"))
