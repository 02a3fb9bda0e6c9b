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


def test_only_the_cli_and_lint_name_an_enforcer() -> None:
    """The engine finds enforcers through the registry; only a command (and lint's DP timing rule) names one's body."""
    allowed = ("cli", "lint")
    offenders = [
        str(path.relative_to(ROOT))
        for path in _modules("policy_engine")
        if path.relative_to(ROOT).parts[1] not in allowed and any(n == "enforcers" or n.startswith("enforcers.") for n in _imports(path))
    ]
    assert offenders == [], "policy_engine discovers enforcers through policy_engine.enforcement.registry only"


def test_the_checks_see_real_imports() -> None:
    """Guard against a vacuous pass: the walker finds the imports that do exist."""
    assert "policy_engine.enforcement.placeholders" in _imports(ROOT / "enforcers" / "redaction" / "redactor.py")
    assert "policy_engine.cli.common" in _imports(ROOT / "policy_engine" / "cli" / "runtime.py")


def test_the_walkthrough_enforcer_in_docs_runs_as_written() -> None:
    """docs/architecture.md's example enforcer, executed verbatim, registers and runs through the pipeline."""
    import re
    import types

    from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
    from policy_engine.enforcement.registry import registered, unregister_enforcer

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    source = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "@register_enforcer" in block)
    module = types.ModuleType("digit_mask_example")
    try:
        exec(compile("\n".join(line[3:] for line in source.splitlines()), "docs/architecture.md", "exec"), module.__dict__)  # the block is indented 3
        enforcer = registered()["digit_mask"].from_parts(None)
        context = EnforcementContext(passages=(Passage.of("c1", "account 12345678 closed"),), constraints=())
        result = EnforcementPipeline([enforcer]).run(Stage.CONTEXT, context)
        assert result.failure is None and result.context.passages[0].text == "account [DIGITS] closed"
        assert result.context.sections["digit_mask"].masked == 1
    finally:
        unregister_enforcer("digit_mask")


def test_one_exception_root_and_one_budget_exhausted_error() -> None:
    import audit.errors
    from policy_engine.errors import BudgetExhausted, EngineError, PolicyEngineError

    deliberate = {
        "policy_engine.diagnostics": ["PolicyError"],
        "policy_engine.errors": ["EngineError", "BudgetExhausted"],
        "policy_engine.bundle.manifest": ["BundleError"],
        "policy_engine.bundle.corpus": ["CorpusError"],
        "policy_engine.nlp.embedding": ["EmbeddingModelError"],
        "policy_engine.llm.runtime": ["ModelNotAvailable", "ModelPullError"],
        "policy_engine.detect.analyzer": ["PatternError"],
        "policy_engine.enforcement.base": ["MalformedEnforcerOutput"],
        "policy_engine.enforcement.registry": ["RegistryError"],
        "audit.errors": ["AuditError", "AuditKeyError", "LogCorruptError", "ReservationError", "UnknownScopeError"],
    }
    import importlib

    for module, names in deliberate.items():
        for name in names:
            assert issubclass(getattr(importlib.import_module(module), name), PolicyEngineError), f"{module}.{name}"
    assert audit.errors.BudgetExhausted is BudgetExhausted
    from policy_engine.engine.runtime import EngineError as RuntimeEngineError

    assert RuntimeEngineError is EngineError
    budget_errors = [n for n in ("PrivacyBudgetRefused", "BudgetSpent") for m in ("enforcers.dp_decoding.accounting", "enforcers.dp_decoding.enforcer") if hasattr(importlib.import_module(m), n)]
    assert budget_errors == []
