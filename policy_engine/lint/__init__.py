"""Policy lint: structural diagnostics from loading plus semantic rules that need no corpus.

Usage::

    from policy_engine import lint
    report = lint(["policies/"])
    for d in report.diagnostics:
        print(d.span, d.code, d.message)
    report.exit_code(fail_level="error")   # 0 clean, 2 warnings (when failing on warnings), 3 errors

A rule is ``check(loaded_policy, vocabulary)`` yielding
:class:`~policy_engine.diagnostics.Diagnostic`; :func:`policy_engine.lint.registry.rules`
lists them in the order they run: the policy layer's own, then the ones each
enforcer package keeps in its ``lint.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from policy_engine.diagnostics import Diagnostic, ExitCode, Severity
from policy_engine.lint.registry import rules
from policy_engine.policy.loader import LoadedPolicy, load_repo
from policy_engine.policy.vocabulary import vocabulary_for
from policy_engine.policy.yaml_source import DEFAULT_MAX_FILE_BYTES


@dataclass
class LintReport:
    """Everything lint found, over every file it read."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    policies: list[LoadedPolicy] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def exit_code(self, fail_level: str = "error") -> ExitCode:
        """0 clean; 3 when any error; 2 when only warnings and ``fail_level`` is 'warning' (or 'info')."""
        if self.count(Severity.ERROR):
            return ExitCode.POLICY
        threshold = Severity(fail_level).rank
        if any(d.severity.rank >= threshold for d in self.diagnostics):
            return ExitCode.WARNINGS
        return ExitCode.OK


def lint_loaded(policies: Iterable[LoadedPolicy]) -> list[Diagnostic]:
    """Run every registered rule (:func:`policy_engine.lint.registry.rules`) over already-loaded policies."""
    out: list[Diagnostic] = []
    for lp in policies:
        vocab = vocabulary_for(lp.policy.vocabulary)
        for rule in rules():
            out.extend(rule(lp, vocab))
    return out


def lint(paths: Iterable[str | Path], max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> LintReport:
    """Load every policy under ``paths`` and lint it; never raises for bad policy input."""
    result = load_repo(list(paths), max_file_bytes)
    diagnostics = result.diagnostics + lint_loaded(result.policies)
    diagnostics.sort(key=lambda d: d.sort_key)
    return LintReport(diagnostics=diagnostics, files=result.files, policies=result.policies)
