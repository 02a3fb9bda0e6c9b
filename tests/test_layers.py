"""The declared layers of the runtime package, lowest first: no import points up (an AST walk, imports in functions included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Lowest first.  A module may import its own layer and the layers below it, never one above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("policy_engine.errors", "policy_engine.diagnostics")),
    ("policy", ("policy_engine.policy",)),
    ("audit", ("audit",)),
    ("nlp", ("policy_engine.nlp",)),
    ("llm", ("policy_engine.llm",)),
    ("detect", ("policy_engine.detect",)),
    ("bundle", ("policy_engine.bundle",)),
    ("enforcement", ("policy_engine.enforcement",)),
    ("enforcers", ("enforcers",)),
    ("engine", ("policy_engine.engine",)),
    ("tools", ("policy_engine.lint", "policy_engine.policytest", "policy_engine.scale")),
    ("cli", ("policy_engine.cli", "click_cli")),
)
#: Names the lazy package face re-exports, and the module each comes from (``from policy_engine import load_policy``).
FACE = {"lint": "policy_engine.lint", "LintReport": "policy_engine.lint", "load_policy": "policy_engine.policy", "load_repo": "policy_engine.policy"}


def layer_of(module: str) -> int | None:
    """The index of the layer ``module`` belongs to (longest matching prefix), or None outside the package."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> list[tuple[str, int]]:
    """Every absolute module ``path`` imports, with its line (``from policy_engine import X`` resolves X through the face)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "policy_engine":
                found.extend((FACE.get(alias.name, "policy_engine.diagnostics"), node.lineno) for alias in node.names)
            else:
                found.append((node.module, node.lineno))
    return found


def runtime_modules() -> list[Path]:
    paths = [ROOT / "click_cli.py"]
    for package in ("policy_engine", "enforcers", "audit"):
        paths.extend(sorted((ROOT / package).rglob("*.py")))
    return [p for p in paths if p != ROOT / "policy_engine" / "__init__.py"]  # the face names lint lazily, by string


def test_every_runtime_module_has_a_layer() -> None:
    assert [module_name(p) for p in runtime_modules() if layer_of(module_name(p)) is None] == []


def test_no_import_points_up() -> None:
    upward = []
    for path in runtime_modules():
        own = layer_of(module_name(path))
        for target, line in imported(path):
            theirs = layer_of(target)
            if theirs is not None and own is not None and theirs > own:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {LAYERS[own][0]} imports {target} ({LAYERS[theirs][0]})")
    assert upward == []


@pytest.mark.parametrize(("module", "layer"), [("policy_engine.bundle.compiler", "bundle"), ("enforcers.redaction.enforcer", "enforcers"), ("policy_engine.lint.formats", "tools"), ("audit.log", "audit")])
def test_the_layer_map_reads_real_modules(module: str, layer: str) -> None:
    """Guard against a vacuous pass: real modules land in the layers they should."""
    index = layer_of(module)
    assert index is not None and LAYERS[index][0] == layer
    assert (ROOT / (module.replace(".", "/") + ".py")).exists()
