"""Generated JSON Schema stays in sync with the models; fmt canonicalizes without losing comments."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from click.testing import CliRunner
from ruamel.yaml import YAML

from click_cli import cli
from policy_engine.policy.fmt import canonical_text
from policy_engine.policy.schema import stale_schemas

ROOT = Path(__file__).parent.parent
CLEAN = Path(__file__).parent / "fixtures" / "clean_policy"


def test_schemas_match_models():
    assert stale_schemas(ROOT / "schemas") == [], "run `policy-engine schema export` and commit schemas/"


def test_schema_validates_policy_files():
    schema = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    tests = jsonschema.Draft202012Validator(json.loads((ROOT / "schemas" / "policy-test.schema.json").read_text()))
    for path in list(CLEAN.rglob("*.yaml")) + list((ROOT / "policies").rglob("*.yaml")):
        document = YAML(typ="safe").load(path.read_text())
        (tests if document.get("kind") == "PolicyTest" else validator).validate(document)
    bad = YAML(typ="safe").load((CLEAN / "policy.yaml").read_text())
    bad["constraints"][0]["redaction"] = "blackout"
    assert list(validator.iter_errors(bad))


def test_schema_check_detects_drift(tmp_path):
    runner = CliRunner()
    assert runner.invoke(cli, ["schema", "export", "-o", str(tmp_path)]).exit_code == 0
    assert runner.invoke(cli, ["schema", "export", "--check", "-o", str(tmp_path)]).exit_code == 0
    (tmp_path / "policy.schema.json").write_text("{}")
    assert runner.invoke(cli, ["schema", "export", "--check", "-o", str(tmp_path)]).exit_code == 3


MESSY = """# top comment
kind: PrivacyPolicy
constraints:
- statement: Hide the names of patients   # keep me
  id: hide-names
metadata:
    name: messy
apiVersion: policy-engine.dev/v1
"""


def test_canonical_text_reorders_and_keeps_comments():
    out = canonical_text(MESSY)
    assert out.index("apiVersion") < out.index("kind") < out.index("metadata") < out.index("constraints")
    assert "# top comment" in out and "# keep me" in out
    assert out.index("id: hide-names") < out.index("statement:")
    assert canonical_text(out) == out  # idempotent
    assert YAML(typ="safe").load(out) == YAML(typ="safe").load(MESSY)  # same data


def test_fmt_cli_check_then_write(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(CLEAN, repo)
    (repo / "messy.yaml").write_text(MESSY)
    runner = CliRunner()
    result = runner.invoke(cli, ["fmt", "--check", "--diff", str(repo)])
    assert result.exit_code == 3 and "would reformat" in result.output and "+apiVersion" in result.output
    assert runner.invoke(cli, ["fmt", "--write", str(repo)]).exit_code == 0
    assert runner.invoke(cli, ["fmt", "--check", str(repo)]).exit_code == 0
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [1, 2\n")
    assert runner.invoke(cli, ["fmt", "--check", str(broken)]).exit_code == 3
