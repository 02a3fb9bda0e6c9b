"""Install an enforcer package into a temporary directory the way a third party ships one, and run code against it.

The package is made discoverable through the real mechanism: the directory
goes on ``PYTHONPATH`` with a ``*.dist-info`` whose ``entry_points.txt`` names
the package's enforcer module in the ``policy_engine.enforcers`` group.  The
code runs in a fresh interpreter, because the policy model adds enforcer
sections when it is first imported; the registries of the test process are
never touched, so nothing needs cleaning up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def install_package(directory: Path, package: str, files: dict[str, str], entry_name: str) -> None:
    """Write ``package`` (file name -> source) under ``directory`` with a dist-info that registers ``package.enforcer``."""
    (directory / package).mkdir(parents=True)
    (directory / package / "__init__.py").write_text("", encoding="utf-8")
    for name, source in files.items():
        (directory / package / name).write_text(source, encoding="utf-8")
    dist = directory / f"{package}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[policy_engine.enforcers]\n{entry_name} = {package}.enforcer\n", encoding="utf-8")


def run_with_package(directory: Path, script: str, timeout: float = 240) -> dict:
    """Run ``script`` in a fresh interpreter that sees ``directory``; the script prints one JSON object, returned here."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(directory), str(ROOT)]), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=directory, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
