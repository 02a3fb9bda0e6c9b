"""The base install is the slim linter: no heavy dependency is declared in it, and lint imports none."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: Distributions that must never be in the base install (the engine's weight: models, tensors, NLP pipelines).
HEAVY = {"torch", "transformers", "faiss-cpu", "umap-learn", "scikit-learn", "spacy", "numpy", "dp-accounting", "gguf"}


def _names(requirements: list[str]) -> set[str]:
    """Normalised distribution names of PEP 508 requirement strings."""
    return {re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-") for requirement in requirements}


def test_the_base_dependencies_are_slim_and_the_engine_extra_holds_the_heavy_ones() -> None:
    base = _names(PROJECT["dependencies"])
    assert base & HEAVY == set()
    assert HEAVY <= _names(PROJECT["optional-dependencies"]["engine"])


def test_lint_schema_and_fmt_import_no_engine_dependency(tmp_path: Path) -> None:
    """Each command runs in a fresh interpreter; none of the modules it imported belongs to the engine extra."""
    engine = _names(PROJECT["optional-dependencies"]["engine"]) | HEAVY
    owners = {module: {d.lower().replace("_", "-") for d in dists} for module, dists in packages_distributions().items()}
    probe = (
        "import json, sys, click_cli\n"
        "try:\n    click_cli.main(sys.argv[1:])\n    code = 0\nexcept SystemExit as exc:\n    code = exc.code or 0\n"
        "print(json.dumps({'code': code, 'modules': sorted({m.partition('.')[0] for m in sys.modules})}))\n"
    )
    for command in (["lint", "policies/clinic"], ["fmt", "--check", "policies/clinic"], ["schema", "export", "-o", str(tmp_path)], ["--help"]):
        done = subprocess.run([sys.executable, "-c", probe, *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outcome = json.loads(done.stdout.splitlines()[-1])
        assert outcome["code"] == 0, f"policy-engine {' '.join(command)}: {done.stdout}{done.stderr}"
        imported = outcome["modules"]
        assert {"click", "click_cli", "policy_engine"} <= set(imported)
        heavy = sorted(m for m in imported if owners.get(m, set()) & engine)
        assert heavy == [], f"policy-engine {' '.join(command)} imported {heavy}"
