"""Policy files: ``lint``, ``fmt`` and ``schema export``."""

from __future__ import annotations

from pathlib import Path

import click

import policy_engine
from policy_engine.cli.common import ExitCode, choice, format_option, handle_errors, is_quiet, is_verbose, output_options, report_policy_error, use_colour
from policy_engine.cli.inputs import BundleDir, ExistingPath
from policy_engine.diagnostics import Severity
from policy_engine.lint.formats import FORMATS as LINT_FORMATS


@click.command()
@click.argument("paths", nargs=-1, required=True, type=ExistingPath())
@format_option(LINT_FORMATS, help="Output format: human text, JSON, SARIF 2.1.0, JUnit XML or GitHub workflow annotations.")
@click.option(
    "--fail-level",
    type=choice(Severity),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code non-zero (errors always exit 3; lower levels exit 2).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to a file instead of stdout.")
@click.option("--max-file-bytes", type=click.IntRange(min=1), default=8 * 1024 * 1024, show_default=True, help="Refuse policy files larger than this.")
@click.option("--bundle", "bundles", multiple=True, type=BundleDir(), help="Also report dead constraints (PE161) against this compiled bundle (repeatable; needs the engine extra).")
@click.option("--corpus", "with_corpus", is_flag=True, help="Check each policy's corpus files as compile would (PE163 for every file it would skip), then compile into bundles/<name> (incremental) and report dead constraints (PE161); needs the engine extra.")
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
    if bundles or with_corpus:  # dead constraints need a compiled corpus
        from policy_engine.lint.corpus import bundle_diagnostics, corpus_diagnostics
        from policy_engine.lint.corpus_files import corpus_file_diagnostics

        found = [d for b in bundles for d in bundle_diagnostics(report.policies, b)]
        found += corpus_file_diagnostics(report.policies) if with_corpus else []
        if with_corpus and report.exit_code() != ExitCode.POLICY:
            found += corpus_diagnostics(report.policies)
        report.diagnostics = sorted(report.diagnostics + found, key=lambda d: d.sort_key)
    text = render(
        report,
        fmt,
        colour=use_colour() and output is None,
        verbose=is_verbose(),
        summary=not is_quiet(),
    )
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    ctx.exit(report.exit_code(fail_level))


@click.command("fmt")
@click.argument("paths", nargs=-1, required=True, type=ExistingPath())
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
    if not is_quiet():
        click.echo(f"{len(results)} file(s) checked, {len(changed)} {'reformatted' if mode == 'write' else 'to reformat'}, {len(failed)} unreadable", err=True)
    if failed or (changed and mode == "check"):
        ctx.exit(ExitCode.POLICY)


@click.group()
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
    from policy_engine.policy.schema import export_schemas, stale_schemas

    if check:
        stale = stale_schemas(out_dir)
        for name in stale:
            click.echo(f"out of date: {out_dir / name}", err=True)
        ctx.exit(ExitCode.POLICY if stale else ExitCode.OK)
    for path in export_schemas(out_dir):
        if not is_quiet():
            click.echo(f"wrote {path}")
