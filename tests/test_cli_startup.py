"""Start-up stays light: the package face and ``--help`` load no model, no torch, no spaCy and no command module."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from click_cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "spacy", "transformers", "sentence_transformers", "faiss", "numpy", "dp_accounting")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (which must not print)."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_package_loads_no_model_library() -> None:
    loaded = _modules_after("import policy_engine")
    assert [m for m in HEAVY if m in loaded] == []


def test_the_face_still_serves_its_names() -> None:
    loaded = _modules_after("import policy_engine\nassert callable(policy_engine.load_policy) and callable(policy_engine.lint)")
    assert "policy_engine.policy.loader" in loaded
    assert [m for m in ("torch", "sentence_transformers") if m in loaded] == []


def test_root_help_imports_no_command_module() -> None:
    code = "import sys, io, contextlib\nfrom click_cli import main\nsys.argv = ['policy-engine', '--help']\nwith contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main()\n    except SystemExit as exit:\n        assert exit.code == 0, exit.code"
    loaded = _modules_after(code)
    commands = sorted(m for m in loaded if m.startswith("policy_engine.cli.") and m != "policy_engine.cli.common")
    assert commands == []
    assert [m for m in (*HEAVY, "pydantic") if m in loaded] == []


def test_root_help_lists_every_command_with_its_summary() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    for name, (_, summary) in COMMANDS.items():
        assert f"{name} " in result.output and summary in " ".join(result.output.split()), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_opens_its_commands_own_help(name: str) -> None:
    """The summary ``--help`` lists without importing is the first sentence of the command's docstring."""
    command = main.lazy_commands[name].load()
    first_paragraph = " ".join(inspect.cleandoc(command.help or "").split("\n\n")[0].split())
    assert first_paragraph.startswith(COMMANDS[name][1].rstrip(".")), (name, first_paragraph)


def test_a_lazy_command_runs() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["vocab", "--help"])
    assert result.exit_code == 0 and "vocabular" in result.output


def test_a_command_whose_module_needs_a_missing_library_says_what_to_install() -> None:
    """A slim install lacks the engine's libraries: the command names the extra instead of a traceback."""
    from click.testing import CliRunner

    from policy_engine.cli.common import PolicyEngineCLI

    group = PolicyEngineCLI(name="probe")
    group.add_lazy_command("needs", "policy_engine_probe_missing_library:command", "Needs a library that is not installed.")
    result = CliRunner().invoke(group, ["needs"], standalone_mode=False)
    assert result.exit_code != 0 or result.exception is not None
    assert "policy-engine[engine]" in str(result.exception) or "policy-engine[engine]" in result.output
