"""Every script under bench/ still imports at HEAD: a renamed or moved first-party name fails here, not in a benchmark run.

Importing every bench module for real would load torch, spaCy and Presidio
once per directory (the scripts put their own folders on ``sys.path``, and
several name a sibling ``dataset`` or ``metrics``), which takes minutes on
a small machine.  Instead each script's import statements, at any depth
(imports inside functions too), are resolved:

* first-party modules (``policy_engine``, ``enforcers``, ``audit``,
  ``click_cli``, ``bench``) are imported and every name taken from them must
  exist (as an attribute or a submodule);
* a sibling module a script reaches through its own ``sys.path`` entry
  (``import metrics`` next to it, ``from rcqa.dataset import ...`` under
  bench/) must exist as a file that defines each imported name at top level;
* any other module must be installed or belong to a declared extra of
  ``pyproject.toml`` (``bench`` for Presidio and Faker).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
FIRST_PARTY = {"policy_engine", "enforcers", "audit", "click_cli", "bench"}
SCRIPTS = sorted([*BENCH.glob("*.py"), *BENCH.glob("*/*.py")])


def _declared_distributions() -> set[str]:
    """Normalized names of every dependency and extra declared in pyproject.toml (the quoted requirements of [project])."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text[text.index("[project]") : text.index("[project.scripts]")]
    return {m.lower().replace("-", "_") for m in re.findall(r'^\s*"([A-Za-z0-9_.\-]+)', project, re.MULTILINE)}


def _imports(source: str, path: Path) -> list[tuple[str, tuple[str, ...], int]]:
    """``(module, names, line)`` of every absolute import in ``source`` (names empty for ``import module``)."""
    found: list[tuple[str, tuple[str, ...], int]] = []
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module != "__future__":
            found.append((node.module, tuple(a.name for a in node.names if a.name != "*"), node.lineno))
    return found


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _local_module(module: str, script: Path) -> Path | None:
    """The file ``module`` names when reached through the script's folder or bench/ (how the scripts extend ``sys.path``)."""
    relative = Path(*module.split("."))
    for base in (script.parent, BENCH):
        for candidate in (base / relative.with_suffix(".py"), base / relative / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _provides(module: ModuleType, name: str) -> bool:
    """Whether ``from module import name`` works: an attribute, or a submodule of a package."""
    if hasattr(module, name):
        return True
    return hasattr(module, "__path__") and importlib.util.find_spec(f"{module.__name__}.{name}") is not None


def _problems(script: Path, source: str, declared: set[str]) -> list[str]:
    """What does not resolve among the imports of ``source``, read as the script at ``script``."""
    problems = []
    for module, names, line in _imports(source, script):
        where = f"{script.relative_to(ROOT)}:{line}"
        top = module.split(".")[0]
        if top in FIRST_PARTY:
            try:
                imported = importlib.import_module(module)
            except ImportError as exc:
                problems.append(f"{where}: import {module} fails ({exc})")
                continue
            problems += [f"{where}: {module} has no {name}" for name in names if not _provides(imported, name)]
        elif (local := _local_module(module, script)) is not None:
            defined = _top_level_names(local)
            problems += [f"{where}: {local.relative_to(ROOT)} defines no {name}" for name in names if name not in defined and _local_module(f"{module}.{name}", script) is None]
        elif importlib.util.find_spec(top) is None and top.lower() not in declared:
            problems.append(f"{where}: {module} is neither installed nor declared in pyproject.toml")
    return problems


def test_there_are_bench_scripts_to_check() -> None:
    assert len(SCRIPTS) > 20 and BENCH / "compile_bench.py" in SCRIPTS and BENCH / "startup.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(BENCH)))
def test_bench_script_imports_resolve(script: Path) -> None:
    assert _problems(script, script.read_text(encoding="utf-8"), _declared_distributions()) == []


def test_a_missing_name_is_caught() -> None:
    """The check is not vacuous: the import compile_bench.py had before it was fixed, and an unknown module, are reported."""
    source = "from policy_engine.bundle.reader import compile_bundle, peak_rss_mb\nimport metrics_that_do_not_exist\n"
    problems = _problems(BENCH / "compile_bench.py", source, _declared_distributions())
    assert [p.split(": ", 1)[1] for p in problems] == [
        "policy_engine.bundle.reader has no peak_rss_mb",
        "metrics_that_do_not_exist is neither installed nor declared in pyproject.toml",
    ]
