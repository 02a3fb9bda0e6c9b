"""The detection layer's views: ``vocab`` (built-in vocabularies) and ``explain`` (what each constraint resolved to)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import click

import policy_engine
from policy_engine.cli.common import ExitCode, choice, echo_json, format_option, handle_errors, output_options
from policy_engine.cli.inputs import ExistingPath
from policy_engine.policy.vocabulary import Vocabulary, vocabulary_for


def _categories(v: Vocabulary) -> Iterator[str]:
    for cid, cat in v.categories.items():
        detectors = ", ".join(cat.entity_labels + cat.recognizers) or "-"
        yield f"{cid:<24} {cat.description}\n{'':<24} detectors: {detectors}; generalization: {cat.generalization or 'none (extractive only)'}"


def _tasks(v: Vocabulary) -> Iterator[str]:
    for tid, name in v.task_types.items():
        yield f"{tid:<36} {name}"


def _attributes(v: Vocabulary) -> Iterator[str]:
    for family, attrs in v.attribute_families.items():
        yield f"{family:<18} {', '.join(attrs)}"


def _quasi_identifiers(v: Vocabulary) -> Iterator[str]:
    yield f"{'shared':<10} {', '.join(v.qi_shared)}"
    yield from (f"{domain:<10} {', '.join(classes)}" for domain, classes in v.qi_domains.items() if classes)


#: Each vocabulary ``vocab`` lists, and how its lines read.
VOCABULARIES: dict[str, Callable[[Vocabulary], Iterator[str]]] = {
    "categories": _categories,
    "tasks": _tasks,
    "attributes": _attributes,
    "qi": _quasi_identifiers,
}


@click.command()
@click.argument("kind", type=choice(VOCABULARIES))
@click.option("--policy", "policy_path", type=ExistingPath(), help="Include this policy's vocabulary extensions.")
@handle_errors
def vocab(kind: str, policy_path: Path | None) -> None:
    """List the built-in vocabularies policies refer to.

    \b
    categories  sensitive categories constraints resolve to, with their detectors
    tasks       the 20 task types necessity rules are written for
    attributes  the 30 sensitive attributes in 6 families
    qi          the quasi-identifier classes per domain

    \b
    Example:
      policy-engine vocab categories
    """
    ext = policy_engine.load_policy(policy_path).vocabulary if policy_path else None
    for line in VOCABULARIES[kind](vocabulary_for(ext)):
        click.echo(line)


@click.command()
@click.argument("policy_path", type=ExistingPath())
@format_option(("text", "json"), default="text")
@click.option("--strict", is_flag=True, help="Exit 2 when any constraint has a warning (low confidence, not enforced).")
@output_options
@handle_errors
def explain(policy_path: Path, fmt: str, strict: bool) -> None:
    """Show what each constraint resolved to: categories, roles, detectors.

    Categories come with their score and evidence (keywords, embedding
    similarity to the category description, explicit detect hints); low-
    confidence resolutions and constraints that will not be enforced are
    warnings.

    \b
    Example:
      policy-engine explain policies/clinic
    """
    from policy_engine.detect.explain import explain_policy, render_text

    explanations = explain_policy(policy_engine.load_policy(policy_path))
    if fmt == "json":
        echo_json([e.to_dict() for e in explanations])
    else:
        click.echo(render_text(explanations), nl=False)
    if strict and any(e.warnings for e in explanations):
        click.get_current_context().exit(ExitCode.WARNINGS)
