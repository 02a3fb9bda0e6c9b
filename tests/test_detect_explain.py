"""`policy-engine explain`: what each constraint resolved to, run through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from click_cli import cli

POLICY = """\
apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {name: explain-test}
constraints:
  - id: hide-patient-names
    statement: Hide the names of patients.
  - id: hide-project
    statement: Hide the project name
  - id: hide-sickness
    statement: Never reveal what ailments someone suffers from
  - id: show-doctors
    statement: Doctors' names may be shown
  - id: bad-category
    statement: Hide the diagnosis codes
    detect: {categories: [icd_codes]}
"""


def run_explain(tmp_path: Path, *args: str) -> tuple[int, str]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    result = CliRunner().invoke(cli, ["explain", str(policy), *args], obj={}, catch_exceptions=False)
    return result.exit_code, result.stdout


def test_explain_json_shows_categories_roles_detectors_and_warnings(tmp_path: Path) -> None:
    code, output = run_explain(tmp_path, "--format", "json")
    assert code == 0
    by_id = {e["constraint_id"]: e for e in json.loads(output)}
    names = by_id["hide-patient-names"]
    assert [c["category"] for c in names["categories"]] == ["person_name"]
    assert names["roles"] == ["patient"] and "PERSON" in names["entity_labels"] and names["warnings"] == []
    assert any(ev.startswith("similarity=") for ev in names["categories"][0]["evidence"])
    assert any("low-confidence" in w for w in by_id["hide-project"]["warnings"])
    assert by_id["hide-sickness"]["method"] == "embedding" and "medical_condition" in by_id["hide-sickness"]["recognizers"]
    assert not by_id["show-doctors"]["active"] and any("not enforced" in w for w in by_id["show-doctors"]["warnings"])
    assert any("icd_codes" in w for w in by_id["bad-category"]["warnings"])


def test_explain_text_and_strict_exit_code(tmp_path: Path) -> None:
    code, output = run_explain(tmp_path)
    assert code == 0
    assert "hide-patient-names\n  statement:  Hide the names of patients." in output
    assert "warning:    low-confidence resolution" in output
    assert "5 constraint(s), 4 with warnings" in output
    strict_code, _ = run_explain(tmp_path, "--strict")
    assert strict_code == 2


def test_explain_missing_policy_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["explain", str(tmp_path / "nope.yaml")], obj={})
    assert result.exit_code == 1 and "does not exist" in result.output
