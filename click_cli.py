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


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
    ctx.obj.update(quiet=quiet, verbose=verbose)


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
@click.pass_context
@handle_errors
def lint(ctx: click.Context, paths: tuple[Path, ...], fmt: str, fail_level: str, output: Path | None, max_file_bytes: int) -> None:
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


def main() -> None:
    """Console-script entry point."""
    cli(obj={})


if __name__ == "__main__":
    main()
