"""Statements that name a kind of fact no category lists are enforced by meaning, not refused (issue 33, item 3).

"Do not reveal a client's immigration history" names no category keyword;
before, the engine's gate refused the whole policy (PE109) although the
meaning matcher (:mod:`policy_engine.detect.semantic_facts`) could enforce
it.  Now lint warns at the kind, saying it is matched by meaning and how
modest the matcher's measured precision is; the engine opens, hides what
the matcher finds and says so in the outcome.  A statement whose only kind
is a general noun ("Hide sensitive information") or that restricts nothing
("Be careful with data") stays refused.  Through the real loader, lint,
engine, spaCy and embedder; the letter is from the hand-written housing set
(``tests/fixtures/semantic_facts/housing_letters.json``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policy_engine import lint, load_policy
from policy_engine.engine.runtime import Engine, EngineError

LETTER = (
    "Mr Haddad came to the advice centre about his housing benefit claim. He explained that he arrived as an asylum "
    "seeker in 2019 and was granted refugee status last year; his earlier visa application had been refused."
)


def _policy(tmp_path: Path, statements: str) -> Path:
    (tmp_path / "statements.md").write_text(statements, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: meaning}\ninclude: [statements.md]\n", encoding="utf-8"
    )
    return tmp_path / "policy.yaml"


def test_lint_warns_at_the_kind_matched_by_meaning_with_its_precision(tmp_path: Path) -> None:
    path = _policy(tmp_path, "- Hide the names of clients {#names}\n- Do not reveal tenants' safeguarding concerns {#safeguarding}\n")
    report = lint([path])
    found = [d for d in report.diagnostics if d.code == "PE109"]
    assert [(d.severity.value, d.span.line, d.span.col) for d in found] == [("warning", 2, len("- Do not reveal tenants' ") + 1)]
    assert "'safeguarding concerns'" in found[0].message and "matched by meaning" in found[0].message and "precision" in found[0].message
    assert report.exit_code() != 3


def test_a_statement_naming_no_category_is_enforced_by_meaning(tmp_path: Path) -> None:
    policy = load_policy(_policy(tmp_path, "- Hide the names of clients {#names}\n- Do not reveal a client's immigration history {#immigration}\n"))
    result = Engine.for_policy(policy, audit=False).protect_passages([("c1", LETTER)])
    outcome = {o.constraint_id: o for o in result.applied}
    assert set(outcome) == {"names", "immigration"}
    assert "matched by meaning" in outcome["immigration"].reason and "precision" in outcome["immigration"].reason
    assert "visa application" not in result.context
    assert "housing benefit" in result.context


@pytest.mark.parametrize("statement", ["Hide sensitive information", "Be careful with data", "Keep things private"])
def test_a_statement_with_no_kind_meaning_could_match_stays_refused(tmp_path: Path, statement: str) -> None:
    path = _policy(tmp_path, f"- Hide the names of clients {{#names}}\n- {statement} {{#vague}}\n")
    assert [d.severity.value for d in lint([path]).diagnostics if d.code == "PE109"] == ["error"]
    with pytest.raises(EngineError, match="constraint 'vague'"):
        Engine.for_policy(load_policy(path), audit=False)


def test_an_advisory_statement_naming_a_kind_stays_guidance(tmp_path: Path) -> None:
    path = _policy(tmp_path, "- Hide the names of clients {#names}\n- Do not reveal a client's immigration history {#immigration advisory=true}\n")
    assert [d.severity.value for d in lint([path]).diagnostics if d.code == "PE109"] == ["warning"]
    result = Engine.for_policy(load_policy(path), audit=False).protect_passages([("c1", LETTER)])
    assert [o.constraint_id for o in result.applied] == ["names"] and "visa application" in result.context


def test_explain_says_the_kind_is_matched_by_meaning_and_not_that_the_policy_is_refused(tmp_path: Path) -> None:
    from policy_engine.detect.explain import explain_policy

    policy = load_policy(_policy(tmp_path, "- Do not reveal a client's immigration history {#immigration}\n"))
    [explained] = explain_policy(policy)
    assert explained.active and any("'immigration history' matched by meaning" in w and "precision" in w for w in explained.warnings)
    assert not any("refuses" in w for w in explained.warnings), explained.warnings
