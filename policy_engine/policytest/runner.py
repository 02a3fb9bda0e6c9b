"""Running policy tests through the real engine, and coverage per constraint.

Each test file names its policy; the policy is loaded once and served by one
:class:`~policy_engine.engine.runtime.Engine` (no audit writes: tests are not
decisions).  A case's passages go through
:meth:`Engine.protect_passages`; a question goes through
:meth:`Engine.protect` on the compiled bundle given with ``bundle``.

Coverage: a constraint is *exercised* when its detectors target at least one
span of a case's passages (for question cases: when it redacts a span); for
each constraint the categories it resolves to are listed with those no case
ever triggered.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from policy_engine.diagnostics import Diagnostic, PolicyError, SourceSpan
from policy_engine.policy.expectations import PolicyTestCase, PolicyTestFile
from policy_engine.policy.loader import validation_diagnostics
from policy_engine.policy.model import Policy
from policy_engine.policy.yaml_source import PositionMap, parse_yaml, read_text_file

#: File names the runner collects under a directory.
TEST_FILE_GLOB = "*_test.yaml"


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: ``failures`` are readable lines (expected vs actual); ``diff`` shows what protection changed."""

    file: str
    name: str
    line: int
    policy: str
    failures: tuple[str, ...] = ()
    diff: str = ""
    error: str | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and self.error is None


@dataclass
class ConstraintCoverage:
    """How the cases exercised one constraint."""

    constraint_id: str
    categories: tuple[str, ...]
    redactions: int = 0  # spans targeted
    cases: set[str] = field(default_factory=set)
    triggered: set[str] = field(default_factory=set)

    @property
    def exercised(self) -> bool:
        return self.redactions > 0

    @property
    def untriggered(self) -> tuple[str, ...]:
        return tuple(c for c in self.categories if c not in self.triggered)


@dataclass
class TestRun:
    """All cases of a run and the coverage of every policy they tested."""

    results: list[CaseResult] = field(default_factory=list)
    coverage: dict[str, dict[str, ConstraintCoverage]] = field(default_factory=dict)  # policy name -> constraint id -> coverage

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def coverage_ratio(self) -> float:
        """Share of constraints exercised by at least one case, over every tested policy (1.0 when none)."""
        entries = [c for per_policy in self.coverage.values() for c in per_policy.values()]
        return sum(c.exercised for c in entries) / len(entries) if entries else 1.0


def discover_test_files(paths: Iterable[Path]) -> list[Path]:
    """``*_test.yaml`` files under directories, and files given directly."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob(TEST_FILE_GLOB) if not any(part.startswith(".") for part in p.relative_to(path).parts)))
        elif path.is_file():
            found.append(path)
        else:
            raise PolicyError([Diagnostic("PE011", "no such file or directory", SourceSpan(str(path)))])
    return list(dict.fromkeys(found))


def load_test_file(path: Path) -> tuple[PolicyTestFile, PositionMap]:
    """Parse and validate one test file; raises :class:`PolicyError` with positioned diagnostics."""
    display = str(path)
    data, positions = parse_yaml(read_text_file(path, display), display)
    try:
        return PolicyTestFile.model_validate(data), positions
    except ValidationError as exc:
        raise PolicyError(validation_diagnostics(exc, PolicyTestFile, positions)) from exc


class _PolicyUnderTest:
    """One policy, its engine (no audit) and the coverage its cases build up."""

    def __init__(self, policy: Policy, bundle: Path | None) -> None:
        from policy_engine.engine.runtime import Engine

        self.policy = policy
        self.engine = Engine.open(bundle, audit=False) if bundle is not None else Engine.for_policy(policy, audit=False)
        plans = {c.id: self.engine.detector.plan(c) for c in policy.constraints}  # type: ignore[attr-defined]
        self.coverage = {cid: ConstraintCoverage(cid, tuple(plan.categories)) for cid, plan in plans.items()}


def run_policy_tests(paths: Sequence[Path], *, bundle: Path | None = None) -> TestRun:
    """Run every case of every test file under ``paths``; never raises for a failing case (only for unreadable files)."""
    from policy_engine import load_policy

    run = TestRun()
    policies: dict[Path, _PolicyUnderTest] = {}
    for test_path in discover_test_files(paths):
        spec, positions = load_test_file(test_path)
        policy_path = (test_path.parent / spec.policy).resolve()
        if policy_path not in policies:
            policies[policy_path] = _PolicyUnderTest(load_policy(policy_path), bundle)
        under_test = policies[policy_path]
        run.coverage[under_test.policy.metadata.name] = under_test.coverage
        for index, case in enumerate(spec.cases):
            line = positions.value(("cases", index)).line
            run.results.append(_run_case(test_path, line, case, under_test))
    return run


def _passages(case: PolicyTestCase, base: Path) -> list[tuple[str, str]]:
    items = []
    for index, spec in enumerate(case.passages, start=1):
        if spec.file is not None:
            path = base / spec.file
            items.append((spec.id or path.name, path.read_text(encoding="utf-8")))
        else:
            items.append((spec.id or f"passage-{index}", spec.text or ""))
    return items


def _run_case(test_path: Path, line: int, case: PolicyTestCase, under_test: _PolicyUnderTest) -> CaseResult:
    name = under_test.policy.metadata.name
    try:
        if case.question is not None:
            if under_test.engine.retriever is None:
                return CaseResult(str(test_path), case.name, line, name, error="a question case needs a compiled corpus: pass --bundle DIR")
            result = under_test.engine.protect(case.question, principal=case.principal, purpose=case.purpose)
            originals = [(c.chunk_id, "") for c in result.chunks]
        else:
            originals = _passages(case, test_path.parent)
            result = under_test.engine.protect_passages(originals, principal=case.principal, purpose=case.purpose)
    except OSError as exc:
        return CaseResult(str(test_path), case.name, line, name, error=f"cannot read a passage file: {exc}")
    detected = _detections(under_test, originals) if case.question is None else [(s.constraint_id, s.category) for s in result.redactions]
    for constraint_id, category in detected:
        entry = under_test.coverage.get(constraint_id)
        if entry is not None:
            entry.redactions += 1
            entry.cases.add(case.name)
            entry.triggered.add(category)
    failures = tuple(_check(case, result, {constraint_id for constraint_id, _ in detected}, set(under_test.coverage)))
    diff = _diff(originals, result) if failures and case.question is None else ""
    return CaseResult(str(test_path), case.name, line, name, failures, diff)


def _detections(under_test: _PolicyUnderTest, passages: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """(constraint id, category) of every span the policy's detectors target in ``passages``.

    Each constraint is run alone: the detector resolves overlapping findings
    of different constraints to one (the strongest), and a redaction keeps
    only one label, so a constraint counts as applied whenever it bites, also
    where another constraint covers the same span.
    """
    texts = [text for _, text in passages]
    return [
        (f.constraint_id, f.category)
        for constraint in under_test.policy.constraints
        for findings in under_test.engine.detector.analyze_many(texts, [constraint])
        for f in findings
    ]


def _check(case: PolicyTestCase, result, fired: set[str], known: set[str]) -> Iterable[str]:  # noqa: ANN001 - a ProtectResult
    expect = case.expect
    context = result.context
    if expect.outcome is not None and result.outcome.value != expect.outcome:
        yield f"outcome: expected {expect.outcome}, got {result.outcome.value}"
    for value in expect.hidden:
        if value in context:
            yield f"hidden: {value!r} must not appear, but the protected context holds it"
    for value in expect.kept:
        if value not in context:
            yield f"kept: {value!r} must survive, but the protected context does not hold it"
    for label in expect.placeholders:
        if not re.search(rf"\[{re.escape(label.upper())}_\d+\]", context):
            yield f"placeholders: expected a [{label.upper()}_n] placeholder, found none"
    for text in expect.contains:
        if text not in context:
            yield f"contains: expected {text!r} in the protected context"
    for constraint_id in [*expect.applied, *expect.not_applied]:
        if constraint_id not in known:
            yield f"constraint {constraint_id!r} is not in the policy (removed or renamed?)"
    for constraint_id in expect.applied:
        if constraint_id in known and constraint_id not in fired:
            yield f"applied: constraint {constraint_id!r} must target at least one span here, but its detectors found nothing"
    for constraint_id in expect.not_applied:
        if constraint_id in fired:
            yield f"not_applied: constraint {constraint_id!r} must protect nothing here, but it targets at least one span"
    for enforcer, wanted in expect.sections.items():
        actual = result.decision.enforcement.get(enforcer)
        if actual is None:
            yield f"sections.{enforcer}: expected a section from enforcer {enforcer!r}; it did not run or wrote none"
            continue
        for key, value in wanted.items():
            if actual.get(key) != value:
                yield f"sections.{enforcer}.{key}: expected {value!r}, got {actual.get(key)!r}"


def _diff(originals: Sequence[tuple[str, str]], result) -> str:  # noqa: ANN001 - a ProtectResult
    """Unified diff of each passage: original (-) against protected (+)."""
    protected = [c.text for c in result.chunks] if len(result.chunks) == len(originals) else ["[withheld: request denied]"] * len(originals)
    out: list[str] = []
    for (chunk_id, text), after in zip(originals, protected):  # by position: the ids the engine shows are redacted
        out.extend(
            difflib.unified_diff(text.splitlines(), after.splitlines(), fromfile=f"{chunk_id} (original)", tofile=f"{chunk_id} (protected)", lineterm="", n=0)
        )
    return "\n".join(out)
