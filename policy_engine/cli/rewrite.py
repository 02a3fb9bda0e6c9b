"""``policy-engine rewrite``: show the need-to-know rewrite of a question under a policy (before / after)."""

from __future__ import annotations

from pathlib import Path

import click

import policy_engine
from policy_engine.cli.common import echo_json, format_option, handle_errors, output_options
from policy_engine.cli.inputs import ExistingPath, label_option, question_argument
from policy_engine.diagnostics import ExitCode


@click.command("rewrite")
@click.argument("policy_path", type=ExistingPath())
@question_argument()
@label_option("purpose", "Purpose of the request (necessity rules may be purpose-specific).")
@format_option()
@output_options
@click.pass_context
@handle_errors
def rewrite(ctx: click.Context, policy_path: Path, question: str, purpose: str | None, fmt: str) -> None:
    """Rewrite QUESTION so that it carries only what its task needs (query_rewrite).

    Classifies the task, finds sensitive attribute spans and whom they are
    about, keeps the essential ones verbatim and removes or generalizes the
    rest under the policy's necessity rules (built-in defaults otherwise).
    Prints the question before and after and the decision per span
    (attribute, subject, outcome; the JSON form holds no span values).
    Exit codes: 0 rewritten (or nothing to remove), 1 bad input or tool
    error, 3 the policy does not load, 4 no rewrite passes verification (the
    question is refused, never forwarded raw).

    \b
    Example:
      policy-engine rewrite policies/clinic "I'm allergic to peanuts. What snacks should I pack for a hike?"
    """
    from enforcers.query_rewrite.rewriter import QueryRefused, rewrite_query

    policy = policy_engine.load_policy(policy_path)
    try:
        result = rewrite_query(question, policy, purpose=purpose)
    except QueryRefused as exc:
        click.echo(f"refused: {exc}", err=True)
        ctx.exit(ExitCode.REFUSED)
    section = result.section(question)
    if fmt == "json":
        echo_json({"before": question, "after": result.text, "decision": section.model_dump(mode="json")})
        return
    click.echo(f"task      {result.shown_task} ({section.task_source}, confidence {section.confidence:.2f}; rule: {section.rule or 'built-in defaults'})")
    click.echo(f"before    {question}")
    click.echo(f"after     {result.text}")
    for decision in result.decisions:
        span = decision.span
        click.echo(f"  {result.outcome(decision):<12} {span.attribute:<20} {span.subject:<12} {span.value(question)!r}  ({decision.basis})")
