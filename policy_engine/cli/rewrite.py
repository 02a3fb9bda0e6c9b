"""``policy-engine rewrite``: show the need-to-know rewrite of a question under a policy (before / after)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

import policy_engine
from policy_engine.diagnostics import PolicyError
from policy_engine.rewrite import QueryRefused, rewrite_query

EXIT_REFUSED, EXIT_POLICY = 1, 3


@click.command()
@click.argument("policy_path", type=click.Path(exists=True, path_type=Path))
@click.argument("question")
@click.option("--purpose", default=None, help="Purpose of the request (necessity rules may be purpose-specific).")
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True, help="Output format.")
def rewrite(policy_path: Path, question: str, purpose: str | None, fmt: str) -> None:
    """Rewrite QUESTION so that it carries only what its task needs (query_rewrite).

    Classifies the task, finds sensitive attribute spans and whom they are
    about, keeps the essential ones verbatim and removes or generalizes the
    rest under the policy's necessity rules (built-in defaults otherwise).
    Prints the question before and after and the decision per span
    (attribute, subject, outcome; the JSON form holds no span values).
    Exits 1 when no rewrite passes verification (the question is refused).

    \b
    Example:
      policy-engine rewrite policies/clinic "I'm allergic to peanuts. What snacks should I pack for a hike?"
    """
    try:
        policy = policy_engine.load_policy(policy_path)
        result = rewrite_query(question, policy, purpose=purpose)
    except PolicyError as exc:
        from policy_engine.lint import LintReport
        from policy_engine.lint.formats import render_human

        click.echo(render_human(LintReport(diagnostics=exc.diagnostics), colour=False), err=True, nl=False)
        sys.exit(EXIT_POLICY)
    except QueryRefused as exc:
        click.echo(f"refused: {exc}", err=True)
        sys.exit(EXIT_REFUSED)
    section = result.section(question)
    if fmt == "json":
        click.echo(json.dumps({"before": question, "after": result.text, "decision": section.model_dump(mode="json")}, indent=2))
        return
    click.echo(f"task      {section.task or 'none'} ({section.task_source}, confidence {section.confidence:.2f}; rule: {section.rule or 'built-in defaults'})")
    click.echo(f"before    {question}")
    click.echo(f"after     {result.text}")
    for decision in result.decisions:
        span = decision.span
        click.echo(f"  {decision.outcome:<12} {span.attribute:<20} {span.subject:<12} {span.value(question)!r}  ({decision.basis})")
