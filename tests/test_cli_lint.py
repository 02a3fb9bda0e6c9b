"""CLI conventions: exit codes, formats, quiet/verbose, NO_COLOR, help with examples."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from click_cli import cli

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args: str, env: dict | None = None):
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)

    return invoke


def test_clean_policy_exits_0(run):
    result = run("lint", str(FIXTURES / "clean_policy"))
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output


def test_broken_policies_exit_3_with_positions(run):
    result = run("lint", str(FIXTURES / "broken_policies"))
    assert result.exit_code == 3
    assert "PE103-duplicate-constraint-id.yaml:8:9: error[PE103]" in result.output


def test_warnings_exit_2_only_when_asked(run):
    target = str(FIXTURES / "broken_policies" / "PE106-permissive-statement.yaml")
    assert run("lint", target).exit_code == 0
    assert run("lint", target, "--fail-level", "warning").exit_code == 2
    info_only = str(FIXTURES / "broken_policies" / "PE144-weak-epsilon.yaml")
    assert run("lint", info_only, "--fail-level", "warning").exit_code == 0
    assert run("lint", info_only, "--fail-level", "info").exit_code == 2


def test_usage_errors_exit_1(run):
    assert run("lint", "--format", "xml", str(FIXTURES)).exit_code == 1
    assert run("lint").exit_code == 1
    assert run("no-such-command").exit_code == 1


def test_output_file_and_formats(run, tmp_path):
    out = tmp_path / "lint.sarif"
    result = run("lint", str(FIXTURES / "broken_policies"), "-f", "sarif", "-o", str(out))
    assert result.exit_code == 3 and result.output == ""
    assert json.loads(out.read_text())["version"] == "2.1.0"
    for fmt in ("json", "junit", "github"):
        assert run("lint", str(FIXTURES / "broken_policies"), "-f", fmt).exit_code == 3


def test_quiet_drops_summary(run):
    result = run("lint", "-q", str(FIXTURES / "clean_policy"))
    assert result.exit_code == 0 and result.output == ""


def test_no_color_and_tty_rules():
    # A real process: stdout is a pipe, and NO_COLOR is set, so no escape codes either way.
    proc = subprocess.run(
        [sys.executable, "-m", "click_cli", "lint", str(FIXTURES / "broken_policies" / "PE110-invalid-pattern.yaml")],
        capture_output=True,
        text=True,
        env={"NO_COLOR": "1", "PATH": ""},
    )
    assert proc.returncode == 3
    assert "\x1b[" not in proc.stdout and "PE110" in proc.stdout


def _commands(group, path=()):
    """Every leaf command, loading lazily registered ones as ``policy-engine <name> --help`` would."""
    import click

    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, path + (name,))
        else:
            yield path + (name,)


def test_every_command_has_help_with_example(run):
    commands = list(_commands(cli))
    assert ("lint",) in commands and len(commands) > 10
    for args in commands:
        result = run(*args, "--help")
        assert result.exit_code == 0, args
        assert "Example" in result.output, f"{' '.join(args)} --help has no example"


def test_version(run):
    result = run("--version")
    assert result.exit_code == 0 and "policy-engine" in result.output


def test_vocab_lists_builtins(run):
    result = run("vocab", "tasks")
    assert result.exit_code == 0 and len(result.output.splitlines()) == 20
    result = run("vocab", "attributes")
    assert sum(len(line.split(None, 1)[1].split(", ")) for line in result.output.splitlines()) == 30
