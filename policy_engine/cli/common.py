"""What every command module shares: the root group, exit codes, option factories, error mapping, output.

One exit-code enum (:class:`~policy_engine.diagnostics.ExitCode`), one
``--format`` factory whose choices come from the library's own constants or
enums, one ``-q/--quiet`` / ``-v/--verbose`` pair that also works after the
command name, and one error handler that maps library exceptions to exit codes
(tracebacks only with ``--verbose``).  Cedar's CLI has the same shape.
"""

from __future__ import annotations

import enum
import functools
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from policy_engine.diagnostics import ExitCode, PolicyError
from policy_engine.engine.bounds import InputRejected

__all__ = [
    "ExitCode",
    "choice",
    "echo_json",
    "echo_table",
    "format_option",
    "handle_errors",
    "is_quiet",
    "is_verbose",
    "main",
    "output_options",
    "report_policy_error",
    "use_colour",
]


def use_colour(stream: Any = None) -> bool:
    """Colour only on a terminal, never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def choice(values: type[enum.Enum] | Iterable[Any]) -> click.Choice:
    """A ``click.Choice`` over an enum's values (or any iterable of names), so choices are never typed twice."""
    if isinstance(values, type) and issubclass(values, enum.Enum):
        return click.Choice([str(member.value) for member in values])
    return click.Choice([str(v) for v in values])


def format_option(values: type[enum.Enum] | Iterable[Any] = ("human", "json"), default: str = "human", help: str = "Output format.") -> Callable[[Any], Any]:
    """``-f/--format`` (passed to the command as ``fmt``) with choices taken from the library."""
    return click.option("-f", "--format", "fmt", type=choice(values), default=default, show_default=True, help=help)


def report_policy_error(exc: PolicyError) -> None:
    """Print a PolicyError's diagnostics in the human format on stderr."""
    from policy_engine.lint import LintReport
    from policy_engine.lint.formats import render_human

    click.echo(render_human(LintReport(diagnostics=exc.diagnostics), colour=use_colour(sys.stderr)), err=True, nl=False)


def _root_flags() -> dict[str, Any]:
    return click.get_current_context().find_root().obj or {}


def is_quiet() -> bool:
    return bool(_root_flags().get("quiet"))


def is_verbose() -> bool:
    return bool(_root_flags().get("verbose"))


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
    """Map library exceptions to exit codes: policy errors 3, rejected input 1 (one line), anything else 1; tracebacks only with --verbose."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except PolicyError as exc:
            report_policy_error(exc)
            ctx.exit(ExitCode.POLICY)
        except InputRejected as exc:  # bad input the library refused: one line, exit 1
            raise click.ClickException(str(exc)) from None
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(ExitCode.INTERRUPTED)
        except Exception as exc:  # noqa: BLE001 - last line of defence: no raw tracebacks for users
            if is_verbose():
                raise
            click.echo(f"error: {exc}", err=True)
            hint = missing_engine_hint(exc)
            if hint:
                click.echo(f"  {hint}", err=True)
            click.echo("  (run with --verbose for the full traceback)", err=True)
            ctx.exit(ExitCode.TOOL)

    return wrapper


def missing_engine_hint(exc: BaseException) -> str | None:
    """The install advice for a third-party module missing from a slim install (None for any other error)."""
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").partition(".")[0] not in ("policy_engine", "enforcers", "audit"):
        return "this needs the engine (the slim install lints only): pip install 'policy-engine[engine]'"
    return None


def echo_json(data: Any) -> None:
    """Pretty JSON on stdout (what every ``--format json`` prints)."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def echo_table(headers: Sequence[str], rows: Iterable[Sequence[str]], legend: Iterable[str] = ()) -> None:
    """A plain-text table whose columns are as wide as their widest cell (never cut mid-word), and its legend.

    Every column that prints a code or a number is explained once, in
    ``legend`` (one short line each, printed under the table).
    """
    table = [tuple(headers), *(tuple(row) for row in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    for row in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    for line in legend:
        click.echo(f"  {line}")


@dataclass(frozen=True)
class LazyCommand:
    """A command the root group imports only when it runs: ``target`` is ``"module:attribute"``.

    ``summary`` is the line ``policy-engine --help`` lists, so listing the
    commands imports none of them (tests/test_cli_startup.py checks that each
    summary opens the command's own help text).
    """

    target: str
    summary: str

    def load(self) -> click.Command:
        module, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class PolicyEngineCLI(click.Group):
    """Root group: usage errors exit 1 (2 stays 'warnings only'), and commands load lazily.

    A bad argument value (:class:`click.BadParameter`) prints one line,
    ``Error: Invalid value for 'X': <what is wrong; what to do>``; other usage
    errors (a missing argument, an unknown option) also show the usage line.

    A command module imports only when its command runs (or its own
    ``--help`` is asked for), so ``policy-engine --help`` and a command that
    needs no model never pay for loading one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: dict[str, LazyCommand] = {}

    def add_lazy_command(self, name: str, target: str, summary: str) -> None:
        """Register ``name`` to import ``target`` (``"module:attribute"``) when it is first used."""
        self.lazy_commands[name] = LazyCommand(target, summary)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            try:
                command = self.lazy_commands[cmd_name].load()
            except ModuleNotFoundError as exc:
                hint = missing_engine_hint(exc)
                if hint is None:
                    raise
                raise click.ClickException(f"{cmd_name}: {exc}; {hint}") from exc
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the lazy summaries (no command module is imported)."""
        rows = []
        for name in self.list_commands(ctx):
            if name in self.lazy_commands and name not in self.commands:
                summary = self.lazy_commands[name].summary
            else:
                command = self.commands[name]
                if command.hidden:
                    continue
                summary = command.get_short_help_str(formatter.width - 6 - len(name))
            rows.append((name, summary))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.BadParameter as exc:  # a wrong value: the one line naming it and the fix, no usage banner
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(ExitCode.TOOL)
        except click.ClickException as exc:
            exc.show()
            sys.exit(ExitCode.TOOL)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(ExitCode.TOOL)
        sys.exit(int(rv) if isinstance(rv, int) else ExitCode.OK)


@click.group(cls=PolicyEngineCLI, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(None, "-V", "--version", package_name="policy-engine", prog_name="policy-engine")
@click.option("-q", "--quiet", is_flag=True, help="Print only findings and errors, no summaries.")
@click.option("-v", "--verbose", is_flag=True, help="More detail; full tracebacks on internal errors.")
@click.pass_context
def main(ctx: click.Context, quiet: bool, verbose: bool) -> None:
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

    Exit codes: 0 ok, 1 tool/usage error (bad input included: one Error
    line names it and the fix), 2 warnings (with --fail-level warning), 3
    policy errors, 4 refused (protect/ask denied or withheld, rewrite found
    no safe rewrite).
    """
    ctx.ensure_object(dict)
    ctx.obj["quiet"] = ctx.obj.get("quiet") or quiet
    ctx.obj["verbose"] = ctx.obj.get("verbose") or verbose
