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
    ("integrations", ("policy_engine.integrations",)),
    ("service", ("policy_engine.service",)),
    ("cli", ("policy_engine.cli", "click_cli")),
)
#: Top-level folders of a source checkout that are never installed: no runtime module may import them ...
CHECKOUT_ONLY = ("training", "bench")
#: ... except these (module path, folder) pairs, inside a function: commands that work from a checkout only.
LAZY_CHECKOUT_IMPORTS: set[tuple[str, str]] = set()
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


def imported(path: Path) -> list[tuple[str, int, bool]]:
    """Every absolute module ``path`` imports, with its line and whether the import sits in a function (``from policy_engine import X`` resolves X through the face)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    in_function = {id(node) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in ast.walk(f)}
    found: list[tuple[str, int, bool]] = []
    for node in ast.walk(tree):
        lazy = id(node) in in_function
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, lazy) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "policy_engine":
                found.extend((FACE.get(alias.name, "policy_engine.diagnostics"), node.lineno, lazy) for alias in node.names)
            else:
                found.append((node.module, node.lineno, lazy))
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
        for target, line, _ in imported(path):
            theirs = layer_of(target)
            if theirs is not None and own is not None and theirs > own:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {LAYERS[own][0]} imports {target} ({LAYERS[theirs][0]})")
    assert upward == []


def checkout_imports(path: Path) -> list[tuple[str, int, bool]]:
    """The imports of :data:`CHECKOUT_ONLY` packages in ``path`` (module, line, inside a function)."""
    return [(target, line, lazy) for target, line, lazy in imported(path) if target.split(".")[0] in CHECKOUT_ONLY]


def test_runtime_never_imports_training_or_bench() -> None:
    """The installed package runs without the checkout's folders: only the listed commands reach ``training``, inside the command."""
    found = []
    for path in runtime_modules():
        relative = path.relative_to(ROOT).as_posix()
        for target, line, lazy in checkout_imports(path):
            if not (lazy and (relative, target.split(".")[0]) in LAZY_CHECKOUT_IMPORTS):
                found.append(f"{relative}:{line}: imports {target}" + ("" if lazy else " at module level"))
    assert found == []


def test_the_checkout_import_check_sees_imports(tmp_path: Path) -> None:
    """Guard against a vacuous pass: module-level and function-level imports of ``training`` and ``bench`` are found, others are not."""
    module = tmp_path / "module.py"
    module.write_text("import bench.detect\nfrom json import dumps\n\ndef train():\n    from training.output_guard import trainer\n", encoding="utf-8")
    assert checkout_imports(module) == [("bench.detect", 1, False), ("training.output_guard", 5, True)]


@pytest.mark.parametrize(("module", "layer"), [("policy_engine.bundle.compiler", "bundle"), ("enforcers.redaction.enforcer", "enforcers"), ("policy_engine.lint.formats", "tools"), ("audit.log", "audit"), ("policy_engine.service.app", "service")])
def test_the_layer_map_reads_real_modules(module: str, layer: str) -> None:
    """Guard against a vacuous pass: real modules land in the layers they should."""
    index = layer_of(module)
    assert index is not None and LAYERS[index][0] == layer
    assert (ROOT / (module.replace(".", "/") + ".py")).exists()
