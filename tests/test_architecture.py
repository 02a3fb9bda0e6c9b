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


def test_only_the_cli_names_an_enforcer() -> None:
    """The engine finds enforcers, their sections and their lint rules through registries; only a command names an enforcer's body
    (the service's review console is the browser face of ``policy-engine review``)."""
    allowed = ("cli",)
    offenders = [
        str(path.relative_to(ROOT))
        for path in _modules("policy_engine")
        if path.relative_to(ROOT).parts[1] not in allowed
        and path.relative_to(ROOT).parts[1:3] != ("service", "console")
        and any(n == "enforcers" or n.startswith("enforcers.") for n in _imports(path))
    ]
    assert offenders == [], "policy_engine discovers enforcers by module name (enforcement.registry, policy.sections, lint.registry)"


def test_the_checks_see_real_imports() -> None:
    """Guard against a vacuous pass: the walker finds the imports that do exist."""
    assert "policy_engine.enforcement.placeholders" in _imports(ROOT / "enforcers" / "redaction" / "redactor.py")
    assert "policy_engine.cli.common" in _imports(ROOT / "policy_engine" / "cli" / "runtime.py")


WALKTHROUGH_POLICY = """apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {name: walkthrough}
enforcement: {order: [redaction, digit_mask]}
digit_mask:
  min_digits: 3
"""

WALKTHROUGH_SCRIPT = """
import json
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.lint import lint

report = lint(["policy.yaml"])
policy = report.policies[0].policy
enforcer = registered()["digit_mask"].from_parts(EngineParts(policy=policy, detector=None))
context = EnforcementContext(passages=(Passage.of("c1", "account 12345678 closed in 1999"),), constraints=())
result = EnforcementPipeline([enforcer]).run(Stage.CONTEXT, context)
print(json.dumps({
    "diagnostics": [[d.code, d.span.line, d.span.col] for d in report.diagnostics],
    "text": result.context.passages[0].text, "masked": result.context.sections["digit_mask"].masked,
    "failure": None if result.failure is None else result.failure.reason,
}))
"""


def test_the_walkthrough_package_in_docs_runs_as_written(tmp_path: Path) -> None:
    """docs/architecture.md's settings.py, enforcer.py and lint.py, installed verbatim as a package: section, lint rule and enforcer work."""
    import re

    from tests.enforcer_package_support import install_package, run_with_package

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    files = dict(re.findall(r"```python\n# enforcers/digit_mask/(\w+\.py)\n(.*?)```", text, re.S))
    assert sorted(files) == ["enforcer.py", "lint.py", "settings.py"]
    install_package(tmp_path, "digit_mask", files, entry_name="digit_mask")
    (tmp_path / "policy.yaml").write_text(WALKTHROUGH_POLICY, encoding="utf-8")
    out = run_with_package(tmp_path, WALKTHROUGH_SCRIPT)
    assert out["diagnostics"] == [["PE990", 6, 15]]
    assert out["failure"] is None and out["text"] == "account [DIGITS] closed in [DIGITS]" and out["masked"] == 2


# Exception classes that must not derive from PolicyEngineError, each with the reason.
NOT_ERRORS = {
    # A warnings category (warnings.warn, never raised by the library): a caller's
    # `except PolicyEngineError` under `-W error` must not swallow the notice that
    # DP noise was seeded insecurely.
    "enforcers.dp_decoding.noise.InsecureNoiseWarning",
}


def _library_exceptions() -> dict[str, type[BaseException]]:
    """Every BaseException subclass defined in the runtime packages, by qualified name, after importing each of their modules."""
    import importlib
    import pkgutil

    for package in LIBRARY:
        importlib.import_module(package)
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}."):
            importlib.import_module(info.name)
    found: dict[str, type[BaseException]] = {}
    pending: list[type[BaseException]] = [BaseException]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.split(".")[0] in LIBRARY:
            found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_library_exception_derives_from_the_one_root() -> None:
    from policy_engine.errors import PolicyEngineError

    exceptions = _library_exceptions()
    assert {"policy_engine.errors.BudgetExhausted", "audit.errors.LogCorruptError", "enforcers.query_rewrite.rewriter.QueryRefused"} <= exceptions.keys()
    assert NOT_ERRORS <= exceptions.keys(), "an exemption names a class that no longer exists"
    outside = sorted(name for name, cls in exceptions.items() if not issubclass(cls, PolicyEngineError) and name not in NOT_ERRORS)
    assert outside == [], "derive these from policy_engine.errors.PolicyEngineError (keep the builtin base beside it)"
    assert not any(issubclass(exceptions[name], PolicyEngineError) for name in NOT_ERRORS)


def test_one_budget_exhausted_error() -> None:
    import audit.errors
    from policy_engine.engine.runtime import EngineError as RuntimeEngineError
    from policy_engine.errors import BudgetExhausted, EngineError

    assert audit.errors.BudgetExhausted is BudgetExhausted
    assert RuntimeEngineError is EngineError
    budget_like = [name for name in _library_exceptions() if "budget" in name.rsplit(".", 1)[1].lower()]
    assert budget_like == ["policy_engine.errors.BudgetExhausted"]


#: A module longer than this says in its docstring why it is not split (issue 29).
MAX_LINES = 400


def test_a_module_over_400_lines_states_why() -> None:
    long = [path for package in LIBRARY for path in _modules(package) if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES]
    unexplained = [str(p.relative_to(ROOT)) for p in long if "400 lines" not in (ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or "")]
    assert unexplained == [], f"over {MAX_LINES} lines with no stated reason in the module docstring: {unexplained}"
