"""``policy-engine test``, ``diff`` and ``init``: policy repos as code, with tests, reviewable changes and CI hooks."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import click

from policy_engine.cli.common import echo_json, format_option, handle_errors, output_options
from policy_engine.cli.inputs import BundleDir, ExistingPath, missing_path_message
from policy_engine.diagnostics import ExitCode
from policy_engine.policytest.report import FORMATS as TEST_FORMATS


@click.command("test")
@click.argument("paths", nargs=-1, required=True, type=ExistingPath())
@click.option("--bundle", type=BundleDir(), help="Compiled bundle for cases that ask a question of the corpus.")
@format_option(TEST_FORMATS)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to this file instead of stdout.")
@click.option("--min-coverage", type=click.FloatRange(0, 100), help="Fail when fewer than this percentage of constraints are exercised by a case.")
@output_options
@click.pass_context
@handle_errors
def test_command(ctx: click.Context, paths: tuple[Path, ...], bundle: Path | None, fmt: str, output: Path | None, min_coverage: float | None) -> None:
    """Run the policy tests (``*_test.yaml``, kind PolicyTest) under PATHS.

    Each case protects its passages (or asks its question of the compiled
    corpus with --bundle) through the real engine as the given principal and
    purpose, and checks the outcome, values that must be hidden or kept,
    placeholders, and the constraints that must (not) apply.  A failing case
    shows what was expected, what came back, and a diff of each passage
    before and after protection.  Coverage per constraint lists constraints
    no case exercises and categories never triggered.

    \b
    Examples:
      policy-engine test policies/clinic
      policy-engine test policies/ --min-coverage 100 -f junit -o policy-tests.xml

    Exit codes: 0 all passed, 1 bad input or tool error, 3 a case failed or coverage is below --min-coverage.
    """
    from policy_engine.policytest.report import RENDERERS, render_human
    from policy_engine.policytest.runner import run_policy_tests

    run = run_policy_tests(list(paths), bundle=bundle)
    floor = None if min_coverage is None else min_coverage / 100.0
    text = render_human(run, min_coverage=floor) if fmt == "human" else RENDERERS[fmt](run)
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    below = floor is not None and run.coverage_ratio() + 1e-12 < floor
    if below:
        click.echo(f"constraint coverage {run.coverage_ratio():.0%} is below the minimum {floor:.0%}", err=True)
    ctx.exit(ExitCode.OK if run.passed and not below else ExitCode.POLICY)


def _policy_argument(argument: str, workdir: Path, hint: str) -> Path:
    """``diff``'s OLD or NEW as a local path, or a usage error naming the argument, the bad part and the fix.

    A path that does not exist, a revision git does not know, a path missing at
    that revision, or a revision outside a git repository: never git's command
    line, nor the temporary directory a revision is extracted into.
    """
    from policy_engine.policytest.diff import resolve_policy_argument

    if Path(argument).exists():
        return Path(argument)
    if ":" not in argument:
        raise click.BadParameter(f"{missing_path_message(Path(argument))} (or give a git revision as REV:PATH, e.g. origin/main:{argument})", param_hint=hint)
    revision, _, inner = argument.partition(":")
    try:
        resolved = resolve_policy_argument(argument, workdir)
    except subprocess.CalledProcessError as exc:
        said = (exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr or "").strip().splitlines()
        reason = said[0] if said else f"git exited {exc.returncode}"
        raise click.BadParameter(f"{argument}: git cannot read revision {revision!r} ({reason}); use REV:PATH with a branch, tag or commit of this repository", param_hint=hint) from None
    except ValueError:
        raise click.BadParameter(f"{argument}: {inner} is outside the git repository of the current directory; run diff from inside the repository", param_hint=hint) from None
    if not resolved.exists():
        raise click.BadParameter(f"{argument}: {inner} does not exist at revision {revision}; check the path (`git ls-tree --name-only {revision} {Path(inner).parent}/`)", param_hint=hint)
    return resolved


@click.command("diff")
@click.argument("old")
@click.argument("new")
@format_option(("markdown", "json"), default="markdown", help="Output format (markdown suits a pull-request comment).")
@click.option("--allow-exposure", is_flag=True, help="Exit 0 even when the change exposes something.")
@output_options
@click.pass_context
@handle_errors
def diff_command(ctx: click.Context, old: str, new: str, fmt: str, allow_exposure: bool) -> None:
    """Show what changing policy OLD into NEW newly exposes or newly hides on the corpus.

    OLD and NEW are policy directories or files, or git revisions as
    REV:PATH (e.g. ``origin/main:policies/clinic``).  Both policies' detectors
    run over NEW's corpus; per constraint the report gives counts and sample
    locations (document#start-end and category), never the raw values.

    \b
    Examples:
      policy-engine diff origin/main:policies/clinic policies/clinic
      policy-engine diff old/clinic policies/clinic -f json

    Exit codes: 0 nothing newly exposed (or --allow-exposure), 1 bad input or tool error, 3 something is newly exposed.
    """
    from policy_engine import load_policy
    from policy_engine.policytest.diff import diff_policies

    with tempfile.TemporaryDirectory(prefix="policy-engine-diff-") as workdir:
        old_path = _policy_argument(old, Path(workdir) / "old", "OLD")
        new_path = _policy_argument(new, Path(workdir) / "new", "NEW")
        result = diff_policies(load_policy(old_path), load_policy(new_path), old_label=old, new_label=new)
    if fmt == "json":
        echo_json(result.to_dict())
    else:
        click.echo(result.to_markdown())
    ctx.exit(ExitCode.POLICY if result.exposes and not allow_exposure else ExitCode.OK)


@click.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", help="Policy name (default: the directory's name).")
@click.option("--owner", default="privacy-office@example.org", show_default=True, help="Who owns the policy (metadata.owner).")
@click.option("--action", default=None, help="The GitHub Action reference the CI workflow uses (default: this project's release).")
@output_options
@handle_errors
def init_command(directory: Path, name: str | None, owner: str, action: str | None) -> None:
    """Scaffold a new policy repo in DIRECTORY that passes its own checks.

    Writes policy.yaml, statements.md, docs/example.md (its corpus), a policy
    test covering every statement, .pre-commit-config.yaml (lint, fmt, test)
    and .github/workflows/privacy-policy.yml.  Never overwrites a file.

    \b
    Example:
      policy-engine init my-policy && cd my-policy && policy-engine test .
    """
    from policy_engine.policytest.scaffold import DEFAULT_ACTION, ScaffoldError, init_policy_repo

    chosen = name or directory.resolve().name.lower()
    try:
        scaffold = init_policy_repo(directory, chosen, owner=owner, action=action or DEFAULT_ACTION)
    except ScaffoldError as exc:
        raise click.BadParameter(str(exc), param_hint="DIRECTORY") from None
    for path in scaffold.written:
        click.echo(f"wrote {path}")
    click.echo(f"next: cd {directory} && policy-engine lint . && policy-engine test .  (then `git init && pre-commit install`)")

