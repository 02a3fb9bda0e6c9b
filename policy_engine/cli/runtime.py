"""Enforcement at run time: ``protect`` and ``ask``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from policy_engine.cli.common import choice, echo_json, echo_table, format_option, handle_errors, is_quiet, output_options
from policy_engine.cli.inputs import BundleDir, label_option, question_argument
from policy_engine.diagnostics import ExitCode
from policy_engine.policy.model import RedactionMode


def runtime_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by ``protect`` and ``ask``."""
    for option in reversed([
        click.argument("bundle_path", type=BundleDir()),
        question_argument(),
        label_option("principal", "Who is asking (recorded in the decision log; one line, at most 200 characters)."),
        label_option("purpose", "Why they are asking (recorded in the decision log; one line, at most 200 characters)."),
        click.option("--mode", type=choice(RedactionMode), help="Force one redaction mode for every constraint (default: each constraint's own)."),
        click.option("--no-audit", is_flag=True, help="Do not write a decision record (testing only)."),
        format_option(),
    ]):
        fn = option(fn)
    return fn


def _open_engine(bundle_path: Path, mode: str | None, no_audit: bool, **options: Any) -> Any:
    from policy_engine.engine.runtime import Engine

    return Engine.open(bundle_path, audit=not no_audit, redaction_mode=RedactionMode(mode) if mode else None, **options)


#: What the redaction table's columns mean (printed once under it).
REDACTION_LEGEND = (
    "chunk: file#start-end of the retrieved chunk; span: character offsets of the replaced text in that chunk.",
    "mode: extractive = a placeholder ([CATEGORY_n], the same n for the same value), periphrastic = a generalization.",
)


def _echo_protect_human(result: Any, quiet: bool) -> None:
    if result.denied:
        click.echo(f"denied: {result.decision.error or 'request denied'} (decision {result.decision.decision_id})", err=True)
        return
    click.echo(result.context)
    if quiet:
        return
    click.echo()
    rows = [(r.chunk_id, f"{r.start}-{r.end}", r.constraint_id, r.category, r.mode or "-", r.replacement) for r in result.redactions]
    echo_table(("chunk", "span", "constraint", "category", "mode", "replacement"), rows, REDACTION_LEGEND if rows else ())
    for c in result.applied:
        click.echo(f"applied      {c.constraint_id}: {c.reason}")
    for c in result.not_applied:
        click.echo(f"not applied  {c.constraint_id}: {c.reason}")
    click.echo(f"outcome {result.outcome.value}  decision {result.decision.decision_id}")


def _echo_notes(result: Any) -> None:
    for note in result.notes:
        click.echo(f"note: {note}", err=True)


@click.command("protect")
@runtime_options
@output_options
@handle_errors
def protect_command(bundle_path: Path, question: str, principal: str | None, purpose: str | None, mode: str | None, no_audit: bool, fmt: str) -> None:
    """Retrieve context for QUESTION and print it redacted, with the redaction table.

    The context is redacted by the constraints bound to the retrieved chunks
    before anything could answer (SD-RAG); the question never reaches the
    redaction step.  One decision record is written to the policy's audit log.

    \b
    Examples:
      policy-engine protect bundles/clinic "Why was the patient admitted?"
      policy-engine protect bundles/clinic "..." --principal nurse-7 --purpose care -f json

    Exit codes: 0 the context was printed, 1 bad input (an empty or
    oversized question, a principal or purpose that is not one short line, a
    path that is not a bundle) or tool error, 4 the request was denied (fail
    closed: a query-stage enforcer refused the question or an enforcer failed;
    no context is printed, the reason is on stderr).
    """
    result = _open_engine(bundle_path, mode, no_audit).protect(question, principal=principal, purpose=purpose)
    _echo_notes(result)
    if fmt == "json":
        echo_json(result.to_dict())
    else:
        _echo_protect_human(result, is_quiet())
    if result.denied:
        click.get_current_context().exit(ExitCode.REFUSED)


@contextmanager
def _decoding_progress(enabled: bool) -> Iterator[None]:
    """A token bar on stderr while a private answer is decoded, when stderr is a terminal (counts only, no text)."""
    if not (enabled and sys.stderr.isatty() and not is_quiet()):
        yield
        return
    from tqdm import tqdm

    from enforcers.dp_decoding.progress import listening

    with tqdm(desc="private answer", unit="token", file=sys.stderr, leave=False) as bar:

        def advance(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        with listening(advance):
            yield


@click.command("ask")
@runtime_options
@click.option("--model", "model_path", help="Answer with this local model directory ('default': the pulled SmolLM2) instead of the policy's model settings.")
@click.option("--dp", is_flag=True, help="Generate the answer with PEARL differentially private decoding, charged to --principal's budget.")
@output_options
@handle_errors
def ask_command(bundle_path: Path, question: str, principal: str | None, purpose: str | None, mode: str | None, no_audit: bool, fmt: str, model_path: str | None, dp: bool) -> None:
    """Retrieve, protect and answer QUESTION with the local model.

    Without a model (policy ``model.path`` with ``use_for: [answer]``, or
    --model), prints the sanitized context instead.  The model only ever sees
    the sanitized context.

    With --dp the answer is generated by the DP ensemble decoder over the
    sanitized context (document-level (epsilon, delta)-DP, PEARL); its cost is
    reserved from the policy's privacy-budget ledger for --principal, and an
    exhausted budget is a refusal, never a non-private answer.  The epsilon
    spent and what remains of the window are printed on stderr.

    \b
    Examples:
      policy-engine ask bundles/clinic "Why was the patient admitted?" --model default
      policy-engine ask bundles/clinic "Why was the patient admitted?" --dp --principal nurse-7

    Exit codes: 0 answered (or the context printed), 1 bad input (as for
    protect) or tool error, 4 refused (outcome denied or abstained: the
    request was denied before answering, the budget is exhausted, an
    answer-stage enforcer failed or found no safe answer).
    """
    if dp and not principal:
        raise click.UsageError("--dp needs --principal: the privacy budget is charged to someone")
    engine = _open_engine(bundle_path, mode, no_audit, answer_model=model_path, extra_enforcers=("dp_decoding",) if dp else ())
    with _decoding_progress(dp):
        asked = engine.ask(question, principal=principal, purpose=purpose)
    result = asked.protected
    _echo_notes(result)
    if fmt == "json":
        echo_json(asked.to_dict())
    elif result.denied:
        _echo_protect_human(result, True)
    elif asked.refused:
        click.echo(f"no answer ({asked.outcome.value}): {asked.refusal}; decision {result.decision.decision_id}", err=True)
    elif asked.answer is None:
        click.echo("note: no answer model configured (policy model.path with use_for: [answer], or --model); printing the sanitized context", err=True)
        click.echo(result.context)
    else:
        click.echo(asked.answer)
        if not is_quiet():
            click.echo(f"\n(answered by {asked.answered_by} from the sanitized context; outcome {asked.outcome.value}, decision {result.decision.decision_id})", err=True)
    if asked.privacy is not None and fmt != "json" and not is_quiet():
        spend = asked.privacy
        left = f"; {spend.epsilon_remaining:.3g} remains in this window" if spend.epsilon_remaining is not None else ""
        click.echo(f"(privacy budget {spend.scope}: epsilon {spend.epsilon_spent:.3g} spent{left})", err=True)
    if asked.refused or result.denied:
        click.get_current_context().exit(ExitCode.REFUSED)
