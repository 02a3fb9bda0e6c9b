"""Failure class 7: plain statements that resolved to nothing or to the wrong thing.

Each case is a statement written the way a data-protection officer writes
it, resolved by the real resolver (keyword phrases plus all-MiniLM-L6-v2
similarity); the refusal, advisory and allow-list cases run the real
engine with the real spaCy pipeline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policy_engine import lint, load_policy
from policy_engine.detect.analyzer import Analyzer
from policy_engine.detect.category_resolver import CategoryResolver
from policy_engine.detect.recognizers import registry
from policy_engine.engine.runtime import Engine, EngineError
from policy_engine.policy.model import Constraint, Metadata, Policy
from policy_engine.policy.resolution import Polarity
from policy_engine.policy.vocabulary import builtin_vocabulary


@pytest.fixture(scope="module")
def resolver() -> CategoryResolver:
    return CategoryResolver.for_policy(Policy(metadata=Metadata(name="statement-resolution")))


def categories(resolver: CategoryResolver, statement: str) -> set[str]:
    return set(resolver.resolve(Constraint(id="c", statement=statement)).category_ids)


def roles(resolver: CategoryResolver, statement: str) -> tuple[str, ...]:
    return resolver.resolve(Constraint(id="c", statement=statement)).roles


# ------------------------------------------------------- qualifier scope


@pytest.mark.parametrize(
    ("statement", "expected", "not_expected"),
    [
        ("Hide dates of birth", {"date_of_birth"}, {"date"}),
        ("Do not reveal customers' dates of birth", {"date_of_birth"}, {"date"}),
        ("Hide national insurance numbers", {"government_id"}, {"medical_record_number"}),
        ("Hide employee ID numbers", {"identifier"}, {"medical_record_number", "government_id"}),
        ("Hide national insurance numbers and employee ID numbers", {"government_id", "identifier"}, {"medical_record_number"}),
        ("Hide personal email addresses and phone numbers", {"contact"}, {"address"}),
        ("Hide home addresses and postcodes", {"address"}, {"contact"}),
        ("Hide hospital numbers and NHS numbers", {"medical_record_number"}, {"government_id"}),
        ("Hide the names of employees referred to occupational health", {"person_name"}, {"medical_condition", "identifier"}),
        ("Hide the names of customers", {"person_name"}, {"identifier"}),
        ("Mask exact visit, admission and discharge dates", {"date"}, {"date_of_birth"}),
    ],
)
def test_a_qualifier_keeps_its_scope(resolver: CategoryResolver, statement: str, expected: set[str], not_expected: set[str]) -> None:
    found = categories(resolver, statement)
    assert expected <= found, found
    assert not found & not_expected, found


@pytest.mark.parametrize(
    "statement",
    [
        "Hide identifying codes",
        "Hide reference numbers",
        "Hide case and application numbers and other identifying codes",
        "Hide employee numbers, claim references, matter numbers and other identifying codes",
        "Hide customer numbers and other account references",
    ],
)
def test_identifier_statements_resolve_to_the_generic_identifier(resolver: CategoryResolver, statement: str) -> None:
    assert "identifier" in categories(resolver, statement)


def test_account_numbers_run_the_generic_identifier_too(resolver: CategoryResolver) -> None:
    found = categories(resolver, "Hide account numbers")
    assert found == {"financial_account"}
    assert "identifier" in builtin_vocabulary().categories["financial_account"].recognizers


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("Hide nationalities", {"nationality"}),
        ("Hide trade union membership", {"trade_union_membership"}),
        ("Do not reveal details about a client's family or personal life", {"relative"}),
        ("Hide health information", {"medical_condition", "medication"}),
        ("Hide health information, including pregnancy, conditions and medication", {"medical_condition", "medication"}),
        ("Do not reveal a member's finances", {"financial_amount"}),
        ("Hide credit scores", {"financial_amount"}),
        ("Hide pay and pay awards", {"financial_amount"}),
        ("Hide ages", {"age"}),
        ("Hide professions", {"occupation"}),
        ("Hide amounts of money", {"financial_amount"}),
        ("Hide organisations and employers", {"employer"}),
    ],
)
def test_statements_that_resolved_to_nothing_or_too_much(resolver: CategoryResolver, statement: str, expected: set[str]) -> None:
    assert categories(resolver, statement) == expected


def test_negation_is_a_restriction_of_the_same_scope(resolver: CategoryResolver) -> None:
    res = resolver.resolve(Constraint(id="c", statement="Do not reveal the dates of birth of clients"))
    assert res.polarity is Polarity.RESTRICTION
    assert res.category_ids == ("date_of_birth",) and res.roles == ("client",)


# ------------------------------------------------------------------ roles


def test_role_words_are_roles_of_data_subjects_not_staff(resolver: CategoryResolver) -> None:
    complainants = roles(resolver, "Hide the names of complainants")
    witnesses = roles(resolver, "Hide the names of witnesses")
    subjects = roles(resolver, "Hide the names of employees under investigation and other disciplinary subjects")
    assert len({complainants, witnesses, subjects}) == 3
    assert "staff" not in complainants + witnesses + subjects
    for statement, role in [
        ("Hide the names of members and their family", "member"),
        ("Hide the names of tenants", "tenant"),
        ("Hide the names of claimants", "plaintiff"),
        ("Hide the names of applicants", "applicant"),
        ("Hide the names of clients", "client"),
        ("Hide the names of employees referred to occupational health", "employee"),
    ]:
        assert role in roles(resolver, statement), statement


def test_role_words_that_modify_an_identifier_are_no_qualifier(resolver: CategoryResolver) -> None:
    assert roles(resolver, "Hide customer numbers and other account references") == ()
    assert roles(resolver, "Hide employee ID numbers") == ()
    assert roles(resolver, "Hide a customer's account number") == ("customer",)


def test_relatives_of_patients_protects_the_relatives(resolver: CategoryResolver) -> None:
    assert roles(resolver, "Do not name the relatives of patients, such as spouses, parents or siblings") == ("relative",)
    assert roles(resolver, "Hide the names of patients and their relatives") == ("patient", "relative")


def test_other_private_persons_removes_the_qualifier(resolver: CategoryResolver) -> None:
    assert roles(resolver, "Hide the names of claimants, witnesses and other private persons") == ()


HR_TEXT = (
    "Following the meeting I have spoken to the witness, Connor Whitlock, again. "
    "The complainant, Janet Osei, has been off work since 28 February."
)


def test_findings_are_attributed_to_the_constraint_whose_roles_match() -> None:
    statements = {
        "complainants": "Hide the names of complainants",
        "witnesses": "Hide the names of witnesses",
        "subjects": "Hide the names of employees under investigation and other disciplinary subjects",
    }
    policy = Policy(metadata=Metadata(name="hr"), constraints=[Constraint(id=k, statement=v) for k, v in statements.items()])
    findings = Analyzer(policy).analyze(HR_TEXT, policy.constraints)
    owner = {HR_TEXT[f.start : f.end]: f.constraint_id for f in findings}
    assert owner.get("Janet Osei") == "complainants", owner
    assert owner.get("Connor Whitlock") == "witnesses", owner


# ----------------------------------------------------- refusal and advisory


def _write_policy(tmp_path: Path, statements: str, extra: str = "") -> Path:
    (tmp_path / "statements.md").write_text(statements, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(
        f"apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {{name: refusal}}\ninclude: [statements.md]\n{extra}",
        encoding="utf-8",
    )
    return tmp_path / "policy.yaml"


def test_an_unresolvable_statement_is_a_lint_error_and_a_refusal(tmp_path: Path) -> None:
    path = _write_policy(tmp_path, "# Rules\n\n- Hide the names of patients {#names}\n- Be careful with data {#careful}\n")
    report = lint([path])
    errors = [d for d in report.diagnostics if d.code == "PE109"]
    assert [(d.severity.value, d.span.line) for d in errors] == [("error", 4)]
    assert report.exit_code() == 3
    with pytest.raises(EngineError) as refused:
        Engine.for_policy(load_policy(path), audit=False)
    message = str(refused.value)
    assert "constraint 'careful'" in message and "statements.md:4:" in message and "advisory" in message
    assert "constraint 'names'" not in message


def test_an_advisory_statement_opens_and_is_reported_not_applied(tmp_path: Path) -> None:
    path = _write_policy(tmp_path, "- Hide the names of patients {#names}\n- Be careful with data {#careful advisory=true}\n")
    assert [d.severity.value for d in lint([path]).diagnostics if d.code == "PE109"] == ["warning"]
    policy = load_policy(path)
    assert policy.constraint("careful").advisory
    result = Engine.for_policy(policy, audit=False).protect_passages([("c1", "The patient, Mary Jones, was seen today.")])
    assert [o.constraint_id for o in result.applied] == ["names"]
    assert [(o.constraint_id, o.applied) for o in result.not_applied] == [("careful", False)]
    assert "advisory" in result.not_applied[0].reason
    assert "Mary Jones" not in result.context
    assert {c.constraint_id for c in result.decision.constraints if c.applied} == {"names"}


def test_a_category_without_an_installed_detector_is_never_reported_applied(tmp_path: Path) -> None:
    path = _write_policy(tmp_path, "- Hide trade union membership {#union}\n")
    assert not [d for d in lint([path]).diagnostics if d.code == "PE109"]
    policy = load_policy(path)
    text = "She has been a member of the union since 2019."
    if "union_membership" in registry():
        result = Engine.for_policy(policy, audit=False).protect_passages([("c1", text)])
        assert [o.constraint_id for o in result.applied] == ["union"] and "member of the union" not in result.context
        return
    assert [d.code for d in lint([path]).diagnostics] == ["PE115"]
    with pytest.raises(EngineError, match="union_membership"):  # fail closed: never served with the protection missing
        Engine.for_policy(policy, audit=False)


# ------------------------------------------------------------ allow-lists

CLINIC_TEXT = "Referred by Riverside Orthopaedic Clinic. The patient works for Pellman Logistics Limited in Leeds."


def test_allow_listed_terms_are_never_redacted(tmp_path: Path) -> None:
    statements = "- Hide the employers of patients {#employers}\n"
    plain = Engine.for_policy(load_policy(_write_policy(tmp_path, statements)), audit=False).protect_passages([("c1", CLINIC_TEXT)])
    assert "Riverside Orthopaedic Clinic" not in plain.context, "the clinic's name must be a finding for this test to mean anything"
    allowed = _write_policy(tmp_path, statements, "vocabulary:\n  allow: [riverside  orthopaedic clinic]\n")
    result = Engine.for_policy(load_policy(allowed), audit=False).protect_passages([("c1", CLINIC_TEXT)])
    assert "Riverside Orthopaedic Clinic" in result.context
    assert "Pellman Logistics" not in result.context


def test_allow_list_contradicting_a_private_entity_is_a_lint_error(tmp_path: Path) -> None:
    path = _write_policy(
        tmp_path,
        "- Hide the names of patients {#names}\n",
        "vocabulary:\n  allow:\n    - Mary Jones\nprivate_knowledge:\n  entities: [Mary Jones]\n",
    )
    found = [d for d in lint([path]).diagnostics if d.code == "PE114"]
    assert len(found) == 1 and found[0].severity.value == "error" and found[0].span.line == 7
