"""The package arrows point one way: the CLI onto the library, the library never onto the CLI or an enforcer by name."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("policy_engine", "audit", "enforcers")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names, including imports inside functions)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_nothing_outside_the_cli_package_imports_it() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for package in LIBRARY
        for path in _modules(package)
        if "cli" not in path.relative_to(ROOT).parts[1:2] and any(n == "policy_engine.cli" or n.startswith("policy_engine.cli.") for n in _imports(path))
    ]
    assert offenders == []
    assert any(n.startswith("policy_engine.cli") for n in _imports(ROOT / "click_cli.py")), "click_cli.py is the one importer"


def test_the_library_never_imports_an_enforcer_by_name() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in _modules("policy_engine")
        if any(n == "enforcers" or n.startswith("enforcers.") for n in _imports(path))
    ]
    assert offenders == [], "policy_engine discovers enforcers through policy_engine.enforcement.registry only"


def test_the_checks_see_real_imports() -> None:
    """Guard against a vacuous pass: the walker finds the imports that do exist."""
    assert "enforcers.generalize" in _imports(ROOT / "enforcers" / "redaction.py")
    assert "policy_engine.cli.common" in _imports(ROOT / "policy_engine" / "cli" / "runtime.py")
