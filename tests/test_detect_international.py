"""Hand-written international regression set (``tests/fixtures/international/regression.json``).

Five locales (Ireland, Canada, Australia, India, Germany): national
numbers with valid check digits, phone numbers, postcodes, unit designators
and addresses, each named by a plain policy statement with no ``detect``
hints (the real resolver, spaCy pipeline and recognizers decide).  Every
value the statement names must be hidden; the ordinary words and numbers
listed as ``kept`` must not be touched.

When the set was written (main at b59c2be, before any change to detect/),
9 of the 14 cases left a value visible: ie-pps (8765432S), ie-eircode-apartment
(both Eircodes), ca-sin (130 692 544), ca-postal-unit (both postal codes),
au-tfn-abn (all three numbers), au-address ("Unit 7/42 Smith Street", 3065),
in-aadhaar-pan (all three numbers), in-pin-flat (560034) and de-steuer-id
(36 574 261 809); no kept word was hidden.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policy_engine import lint, load_policy
from policy_engine.detect import Analyzer
from policy_engine.detect.explain import explain_policy
from policy_engine.engine.runtime import Engine
from policy_engine.policy.model import Constraint, Metadata, Policy

CASES = json.loads((Path(__file__).parent / "fixtures" / "international" / "regression.json").read_text(encoding="utf-8"))["cases"]
CONSTRAINTS = {case["id"]: Constraint(id=case["id"], statement=case["statement"]) for case in CASES}


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="international"), constraints=list(CONSTRAINTS.values())))


def _covered(analyzer: Analyzer, case: dict) -> set[int]:
    return {i for f in analyzer.analyze(case["text"], [CONSTRAINTS[case["id"]]]) for i in range(f.start, f.end)}


def _visible(covered: set[int], text: str, value: str) -> bool:
    start = text.index(value)
    return any(i not in covered for i in range(start, start + len(value)) if text[i].isalnum())


def _touched(covered: set[int], text: str, phrase: str) -> bool:
    start = text.index(phrase)
    return any(i in covered for i in range(start, start + len(phrase)))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_value_a_plain_statement_names_is_hidden(analyzer: Analyzer, case: dict) -> None:
    covered = _covered(analyzer, case)
    assert [v for v in case["hidden"] if _visible(covered, case["text"], v)] == []


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_no_ordinary_word_is_hidden(analyzer: Analyzer, case: dict) -> None:
    covered = _covered(analyzer, case)
    assert [k for k in case["kept"] if _touched(covered, case["text"], k)] == []


# ------------------------------------------------------------ kinds no detector covers


def _statements_policy(tmp_path: Path, statement: str) -> Path:
    (tmp_path / "statements.md").write_text(f"# Tenants\n\n- {statement} {{#tenant-ids}}\n", encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: tenants}\ninclude: [statements.md]\n", encoding="utf-8"
    )
    return tmp_path / "policy.yaml"


def test_lint_warns_at_the_position_of_an_identifier_kind_no_detector_covers(tmp_path: Path) -> None:
    path = _statements_policy(tmp_path, "Do not reveal tenants' PPS numbers or Glorbex numbers")
    warnings = [d for d in lint([path]).diagnostics if d.code == "PE116"]
    assert len(warnings) == 1
    line = (tmp_path / "statements.md").read_text(encoding="utf-8").splitlines()[warnings[0].span.line - 1]
    assert line[warnings[0].span.col - 1 :].startswith("Glorbex numbers")
    assert "'Glorbex numbers'" in warnings[0].message and "closest known kinds" in warnings[0].message


@pytest.mark.parametrize("statement", [case["statement"] for case in CASES])
def test_lint_knows_every_kind_the_regression_statements_name(tmp_path: Path, statement: str) -> None:
    assert [d.message for d in lint([_statements_policy(tmp_path, statement)]).diagnostics if d.code == "PE116"] == []


def test_protect_hides_the_known_kind_and_never_reports_the_unknown_one_applied(tmp_path: Path) -> None:
    policy = load_policy(_statements_policy(tmp_path, "Do not reveal tenants' PPS numbers or Glorbex numbers"))
    assert any("Glorbex numbers" in w for e in explain_policy(policy) for w in e.warnings)
    result = Engine.for_policy(policy, audit=False).protect_passages([("c1", "Her PPS number is 6433435F and her Glorbex number is QX-77.")])
    assert "6433435F" not in result.context
    [outcome] = [o for o in result.applied if o.constraint_id == "tenant-ids"]
    assert "NOT enforced for 'Glorbex numbers'" in outcome.reason


def test_phone_formats_follow_the_regions_the_analyzer_is_given() -> None:
    phones = Constraint(id="phones", statement="Hide phone numbers.")
    text = "The caretaker's number is 087 765 4321 for emergencies."
    policy = Policy(metadata=Metadata(name="phones"), constraints=[phones])
    assert [text[f.start : f.end] for f in Analyzer(policy).analyze(text, [phones])] == ["087 765 4321"]
    assert [text[f.start : f.end] for f in Analyzer(policy, phone_regions=("IE",)).analyze(text, [phones])] == ["087 765 4321"]
    assert Analyzer(policy, phone_regions=("US", "CA")).analyze(text, [phones]) == []
