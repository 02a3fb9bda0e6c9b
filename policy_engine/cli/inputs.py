"""Command-line inputs checked before a command runs: paths, bundle directories, questions, principals, files.

A bad argument exits 1 (click's usage error, :class:`~policy_engine.cli.common.PolicyEngineCLI`)
with one line that names the input and says what to do: a mistyped path gets the
closest existing name, a policy passed where a bundle belongs gets the compile
command that writes the bundle outside the policy repo, an empty or oversized
question gets the limit from :mod:`policy_engine.engine.bounds` (the same limits
the library enforces).  Never a traceback, a temporary path or a file:line:col
position for a file that does not exist.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from policy_engine.engine.bounds import InputRejected, check_label, check_question

__all__ = [
    "BundleDir",
    "ExistingPath",
    "closest_sibling",
    "label_option",
    "missing_path_message",
    "question_argument",
    "read_text_file",
]


def closest_sibling(path: Path) -> Path | None:
    """The existing entry of ``path``'s directory whose name is closest to ``path``'s (a typo's likely target), if any is close."""
    parent = path.parent
    try:
        names = os.listdir(parent if str(parent) else ".")
    except OSError:
        return None
    match = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    return parent / match[0] if match else None


def missing_path_message(path: Path, otherwise: str | None = None) -> str:
    """``PATH does not exist; did you mean CLOSEST?``, else ``PATH does not exist; <otherwise>`` (by default: where relative paths start)."""
    closest = closest_sibling(path)
    if closest is not None:
        return f"{path} does not exist; did you mean {closest}?"
    return f"{path} does not exist; {otherwise or f'check the spelling and the directory you run from ({Path.cwd()})'}"


class ExistingPath(click.Path):
    """``click.Path(exists=True, ...)`` whose refusal names the path and the closest existing name."""

    def __init__(self, **options: Any) -> None:
        super().__init__(exists=True, path_type=Path, **options)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not os.path.exists(value):
            self.fail(missing_path_message(Path(value)), param, ctx)
        return super().convert(value, param, ctx)


def _policy_name(directory: Path) -> str | None:
    """The name of the policy in ``directory`` when it holds exactly one that loads, else None."""
    if not any(directory.glob("*.yaml")) and not any(directory.glob("*.yml")):
        return None
    from policy_engine import load_policy
    from policy_engine.errors import PolicyEngineError

    try:
        return load_policy(directory).metadata.name
    except (PolicyEngineError, OSError, ValueError):
        return None


class BundleDir(click.ParamType):
    """A compiled bundle directory (one with ``manifest.json``); a policy directory is refused with the compile command for it."""

    name = "bundle"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        from policy_engine.bundle.manifest import MANIFEST

        path = Path(value)
        if not path.exists():
            self.fail(missing_path_message(path, "a bundle is the directory `policy-engine compile POLICY` writes (bundles/<policy name> by default)"), param, ctx)
        if not path.is_dir():
            self.fail(f"{path} is a file, not a compiled bundle directory; pass the directory `policy-engine compile POLICY` wrote", param, ctx)
        if (path / MANIFEST).is_file():
            return path
        name = _policy_name(path)
        if name is not None:
            self.fail(f"{path} is a policy, not a compiled bundle; compile it first with `policy-engine compile {path}` (writes bundles/{name}) and pass bundles/{name}", param, ctx)
        self.fail(f"{path} is not a compiled bundle (no {MANIFEST}); compile a policy first with `policy-engine compile POLICY` (writes bundles/<policy name>)", param, ctx)


def _checked(check: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(_ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        try:
            return check(value)
        except InputRejected as exc:
            raise click.BadParameter(str(exc), param=param) from None

    return callback


def question_argument(name: str = "question") -> Callable[[Any], Any]:
    """The QUESTION argument: not empty, within the engine's length limit, no control characters."""
    return click.argument(name, callback=_checked(check_question))


def label_option(kind: str, help: str) -> Callable[[Any], Any]:
    """``--principal`` / ``--purpose``: one printable line within the engine's label limit (``kind`` is the option's name)."""
    return click.option(f"--{kind}", callback=_checked(lambda value: check_label(kind, value)), help=help)


def read_text_file(path: Path) -> str:
    """``path``'s UTF-8 text, or a one-line ClickException naming the file when it is not text."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); pass text files (.txt, .md)") from None
    except OSError as exc:
        raise click.ClickException(f"{path}: {exc.strerror or exc}") from None
