"""Enforcer-owned sections merge across a policy's files like the core ones, with positions from the file that wrote each value."""

from __future__ import annotations

from pathlib import Path

from policy_engine.lint import lint
from policy_engine.policy.loader import load_repo
from policy_engine.policy.sections import sections

ROOT = """apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {name: merged}
include: [more.yaml]
necessity:
  rules:
    - {task: summarisation, essential: [age]}
vocabulary:
  allow: [Acme Clinic]
"""

FRAGMENT = """apiVersion: policy-engine.dev/v1
kind: PolicyFragment
necessity:
  default_task: translation
  min_confidence: 0.5
  rules:
    - {task: no-such-task, essential: [age]}
private_knowledge:
  on_conflict: withhold
vocabulary:
  allow: [Ward 7]
"""


def test_the_built_in_enforcers_declare_their_sections() -> None:
    owners = {name: section.model.__module__ for name, section in sections().items()}
    assert owners == {
        "differential_privacy": "enforcers.dp_decoding.settings",
        "quasi_identifiers": "enforcers.output_guard.settings",
        "necessity": "enforcers.query_rewrite.settings",
        "kg_erasure": "enforcers.kg_erasure.settings",
    }


def test_a_concat_section_keeps_every_field_and_every_position(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(ROOT, encoding="utf-8")
    (tmp_path / "more.yaml").write_text(FRAGMENT, encoding="utf-8")
    loaded = load_repo([tmp_path / "policy.yaml"]).policies[0]
    policy = loaded.policy
    assert [r.task for r in policy.necessity.rules] == ["summarisation", "no-such-task"]
    assert (policy.necessity.default_task, policy.necessity.min_confidence) == ("translation", 0.5)
    assert policy.private_knowledge.on_conflict == "withhold"
    assert policy.vocabulary.allow == ["Acme Clinic", "Ward 7"]
    span = loaded.span(("necessity", "rules", 1, "task"))
    assert (span.file.endswith("more.yaml"), span.line) == (True, 7)
    assert loaded.span(("vocabulary", "allow", 1)).line == 11
    unknown = [d for d in lint([tmp_path / "policy.yaml"]).diagnostics if d.code == "PE130"]
    assert [(Path(d.span.file).name, d.span.line) for d in unknown] == [("more.yaml", 7)]


def test_a_single_section_defined_twice_is_pe013(tmp_path: Path) -> None:
    dp = "differential_privacy: {epsilon: 4}\n"
    (tmp_path / "policy.yaml").write_text(ROOT + dp, encoding="utf-8")
    (tmp_path / "more.yaml").write_text(FRAGMENT + dp, encoding="utf-8")
    result = load_repo([tmp_path / "policy.yaml"])
    assert result.policies == []
    assert [(d.code, Path(d.span.file).name, d.span.line) for d in result.diagnostics] == [("PE013", "more.yaml", 12)]
