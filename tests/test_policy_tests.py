"""Policy tests, policy diff, init, pre-commit and the GitHub Action's steps, through the CLI on real files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from click_cli import cli

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ROOT / "policies"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


def _run(*args: str, cwd: Path | None = None):
    if cwd is None:
        return CliRunner().invoke(cli, list(args), obj={})
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, list(args), obj={})
    finally:
        os.chdir(previous)


@pytest.mark.parametrize("name", ["clinic", "bank", "lawfirm"])
def test_example_policies_pass_their_tests_with_full_coverage(name: str) -> None:
    result = _run("test", str(POLICIES / name), "--min-coverage", "100", "-f", "json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0, "\n".join(f"{c['name']}: {c['failures']}" for c in report["cases"] if not c["passed"])
    assert report["summary"]["coverage"] == 1.0 and report["summary"]["failed"] == 0


def _clinic_copy(root: Path, documents: int = 8) -> Path:
    """The clinic policy under ``root`` with a slice of its corpus (the first ``documents`` files and JSONL records)."""
    copy = root / "policies" / "clinic"
    (root / ".git").mkdir(parents=True, exist_ok=True)  # a repository holding the policy and its corpus (corpus paths stay inside it)
    shutil.copytree(POLICIES / "clinic", copy)
    corpus = root / "examples" / "clinic"
    (corpus / "docs").mkdir(parents=True)
    for path in sorted((ROOT / "examples" / "clinic" / "docs").iterdir())[:documents]:
        shutil.copy(path, corpus / "docs" / path.name)
    records = (ROOT / "examples" / "clinic" / "records.jsonl").read_text().splitlines()[:documents]
    (corpus / "records.jsonl").write_text("\n".join(records) + "\n")
    return copy


def _weakened_clinic(tmp_path: Path) -> Path:
    """The clinic policy with the relatives constraint removed and the names constraint's role qualifier changed."""
    copy = _clinic_copy(tmp_path)
    statements = copy / "statements.md"
    statements.write_text("\n".join(line for line in statements.read_text().splitlines() if "hide-patient-relatives" not in line) + "\n")
    constraints = copy / "constraints.yaml"
    names = "  - id: hide-patient-names\n    statement: Hide the names of patients.\n    redaction: extractive\n    severity: high\n    detect:\n      entity_types:\n        - PERSON\n      roles:\n        - patient\n"
    assert names in constraints.read_text()
    constraints.write_text(constraints.read_text().replace(names, names.replace("patients.", "doctors.").replace("- patient", "- doctor")))
    return copy


def test_a_weakened_policy_fails_its_tests_with_a_readable_diff(tmp_path: Path) -> None:
    weakened = _weakened_clinic(tmp_path)
    result = _run("test", str(weakened))
    assert result.exit_code == 3, result.output
    out = result.stdout
    assert "FAIL" in out and "hidden: 'Maria Gonzalez' must not appear" in out
    assert "--- admission-note (original)" in out and "+++ admission-note (protected)" in out
    assert re.search(r"\+.*Maria Gonzalez", out), "the diff shows the name left in the protected text"
    assert "constraint 'hide-patient-relatives' is not in the policy (removed or renamed?)" in out


def test_diff_reports_what_the_weakened_policy_newly_exposes(tmp_path: Path) -> None:
    weakened = _weakened_clinic(tmp_path)
    original = _clinic_copy(tmp_path / "original")
    result = _run("diff", str(original), str(weakened), "-f", "json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    exposed = {entry["constraint_id"]: entry for entry in report["exposed"]}
    assert "hide-patient-names" in exposed and exposed["hide-patient-names"]["count"] > 0
    sample = exposed["hide-patient-names"]["samples"][0]
    assert re.fullmatch(r"docs/.+#\d+-\d+ \(person_name\)|.+#\d+-\d+ \(person_name\)", sample)
    markdown = _run("diff", str(original), str(weakened), "--allow-exposure")
    assert markdown.exit_code == 0 and "**Newly exposed**" in markdown.stdout and "| `hide-patient-names` |" in markdown.stdout
    truth = json.loads((ROOT / "examples" / "clinic" / "GROUND_TRUTH.json").read_text())
    raw_values = {span["value"] for doc in truth["documents"] for span in doc["spans"] if span["category"] in ("person_name", "contact", "date_of_birth")}
    assert raw_values and not any(value in markdown.stdout for value in raw_values), "the diff never shows raw values"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args], check=True, capture_output=True)


def _scaffold(tmp_path: Path) -> Path:
    repo = tmp_path / "hospital-policy"
    result = _run("init", str(repo))
    assert result.exit_code == 0, result.output
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    return repo


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}


def test_init_scaffolds_a_repo_that_passes_pre_commit(tmp_path: Path) -> None:
    repo = _scaffold(tmp_path)
    assert {p.name for p in repo.iterdir()} >= {"policy.yaml", "statements.md", "hospital-policy_test.yaml", ".pre-commit-config.yaml", ".github", "docs"}
    run = subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=repo, env=_env(), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert all(f"{hook}" in run.stdout for hook in ("policy-engine lint", "policy-engine fmt --check", "policy-engine test"))
    again = _run("init", str(repo))
    assert again.exit_code == 1 and "never overwrites" in again.output


def test_the_github_action_steps_run_on_a_scaffolded_repo(tmp_path: Path) -> None:
    """Every `run` step of action.yml except the PyPI installs and the PR comment, as the runner would execute it."""
    repo = _scaffold(tmp_path)
    _git(repo, "commit", "-q", "-m", "policy")
    base = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    statements = repo / "statements.md"
    statements.write_text("\n".join(line for line in statements.read_text().splitlines() if "hide-contact-details" not in line) + "\n")
    test_file = repo / "hospital-policy_test.yaml"
    test_file.write_text(test_file.read_text().replace(", hide-contact-details]", "]"))
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    inputs = {"policy": ".", "min-coverage": "100", "base-ref": base}
    summary = tmp_path / "summary.md"
    outcomes = {}
    for step in action["runs"]["steps"]:
        if "run" not in step or step["id"] in ("install", "install-engine", "comment"):
            continue
        script = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], step["run"])
        assert "${{" not in script, f"step {step['id']} uses an expression the test does not provide"
        done = subprocess.run(["bash", "-c", script], cwd=repo, env={**_env(), "GITHUB_STEP_SUMMARY": str(summary)}, capture_output=True, text=True, timeout=600)
        outcomes[step["id"]] = done
    assert outcomes["lint"].returncode == 0 and json.loads((repo / "policy-lint.sarif").read_text())["version"] == "2.1.0"
    assert outcomes["test"].returncode == 3  # the contact-details expectation was dropped with its constraint: emails now survive
    assert "<testsuite" in (repo / "policy-tests.xml").read_text()
    assert outcomes["diff"].returncode == 3, outcomes["diff"].stdout + outcomes["diff"].stderr
    assert "hide-contact-details" in summary.read_text() and "Newly exposed" in summary.read_text()
