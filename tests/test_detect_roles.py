"""Role of a person mention and entity keys of name forms (no model needed)."""

from __future__ import annotations

import pytest

from policy_engine.detect.names import NameIndex, name_words, value_key
from policy_engine.detect.roles import PERSONNEL, SUBJECT, assign_roles, mention_role, qualify


def role_of(text: str, name: str) -> str | None:
    start = text.index(name)
    return mention_role(text, start, start + len(name))


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("Seen by Dr. Smith today.", "Smith", "doctor"),
        ("The physician Jane Roe signed.", "Jane Roe", "doctor"),
        ("Jane Roe, MD, signed.", "Jane Roe", "doctor"),
        ("Tom Lee, Esq. appeared.", "Tom Lee", "attorney"),
        ("Admitted patient John Doe overnight.", "John Doe", "patient"),
        ("John Doe, a 45-year-old patient, was admitted.", "John Doe", "patient"),
        ("the plaintiff, Mary Smith, testified", "Mary Smith", "plaintiff"),
        ("Kim Hull (MRN 7306235) called.", "Kim Hull", "patient"),
        ("Mr. Doe (DOB 04/05/1980) called.", "Doe", SUBJECT),
        ("Opened Mar 27, 2025 by Karen Peck.", "Karen Peck", PERSONNEL),
        ("[Agent Karen] how can I help?", "Karen", "staff"),
        ("Yesterday Maria Gonzalez phoned.", "Maria Gonzalez", None),
        ("The doctor told Maria Gonzalez to rest.", "Maria Gonzalez", None),  # a verb between: no apposition
        ("He thanked the nurse. Maria Gonzalez left.", "Maria Gonzalez", None),  # sentence-final role noun
    ],
)
def test_mention_role(text: str, name: str, role: str | None) -> None:
    assert role_of(text, name) == role


def test_role_spreads_to_other_mentions_of_the_same_entity() -> None:
    text = "Dr. Ahmed Okafor reviewed the chart. Later Okafor called."
    mentions = [(0, text.index("Ahmed"), text.index("Ahmed") + 12), (0, text.rindex("Okafor"), text.rindex("Okafor") + 6)]
    keys = ["k1", "k1"]
    assert [role for role, _ in assign_roles([text], mentions, keys)] == ["doctor", "doctor"]


def test_qualify_roles() -> None:
    patients = frozenset({"patient"})
    assert qualify("doctor", patients) == (False, "doctor")
    assert qualify("patient", patients) == (True, "patient")
    assert qualify(None, patients) == (True, None)  # unknown role: hidden
    assert qualify(SUBJECT, patients) == (True, "patient")
    assert qualify(SUBJECT, frozenset({"doctor"})) == (False, SUBJECT)
    assert qualify(PERSONNEL, frozenset({"doctor"})) == (True, "doctor")
    assert qualify(PERSONNEL, patients) == (False, PERSONNEL)
    assert qualify("applicant", frozenset({"customer"})) == (True, "applicant")
    assert qualify("doctor", frozenset()) == (True, "doctor")


def test_a_subject_role_no_constraint_in_force_names_is_doubt_and_hidden() -> None:
    victims = frozenset({"victim"})
    assert qualify("tenant", victims, victims) == (True, "tenant")  # "a local resident" under "Hide the names of victims"
    assert qualify("tenant", victims, victims | {"tenant"}) == (False, "tenant")  # a tenant rule is in force: it claims them
    assert qualify("doctor", victims, victims) == (False, "doctor")  # staff evidence still leaves a name visible
    assert qualify("tenant", frozenset({"doctor"}), frozenset({"doctor"})) == (False, "tenant")  # a staff rule never takes subjects


def test_a_reporting_resident_is_hidden_by_a_victims_rule_through_the_real_pipeline() -> None:
    from policy_engine.detect.analyzer import Analyzer
    from policy_engine.policy.model import Constraint, EnforcementSettings, Metadata, Policy

    victims = Constraint(id="victims", statement="Hide the names of victims.")
    addresses = Constraint(id="addresses", statement="Do not reveal addresses of residents.")  # names no one: claims no role
    analyzer = Analyzer(Policy(metadata=Metadata(name="police"), constraints=[victims, addresses], enforcement=EnforcementSettings(order=["redaction"])))
    text = "Last Tuesday Priya Lal, a local resident, reported that her car had been broken into. Ms Lal was called back by the desk."
    found = {text[f.start : f.end] for f in analyzer.analyze(text, [victims, addresses])}
    assert {"Priya Lal", "Ms Lal"} <= found, found


def test_name_forms_share_a_key() -> None:
    mentions = ["Jane Marie Doe", "Ms Doe", "Jane", "Doe's", "Dr. John Doe", "John"]
    index = NameIndex(mentions)
    keys = [index.key(i) for i in range(len(mentions))]
    assert keys[0] == keys[1] == keys[2] == keys[3]  # "Ms Doe" after Jane Marie Doe: nearest preceding Doe
    assert keys[4] == keys[5] != keys[0]
    assert name_words("Dr. Jane Roe, MD") == ("jane", "roe")


def test_numeric_values_are_keyed_by_digits() -> None:
    assert value_key("contact", "(415) 555-0100") == value_key("contact", "415.555.0100")
    assert value_key("contact", "415.555.0100") != value_key("contact", "415.555.0101")
    assert value_key("employer", "Porter  Group") == value_key("employer", "porter group")


def test_every_kinship_noun_makes_the_name_after_it_a_relative() -> None:
    """'her son X' and 'her husband X' get the same role, so their placeholders read alike ([RELATIVE_NAME_n])."""
    from policy_engine.detect import Analyzer
    from policy_engine.policy.model import Constraint, Metadata, Policy

    relatives = Constraint(id="relatives", statement="Hide the names of patients' relatives.")
    analyzer = Analyzer(Policy(metadata=Metadata(name="kin"), constraints=[relatives]))
    text = "Bottles were brought in by his son Marcus Heath; her husband, Tom Brown, drove; their niece Ada Lind called."
    named = {text[f.start : f.end]: f.role for f in analyzer.analyze(text, [relatives]) if f.category == "person_name"}
    assert named == {"Marcus Heath": "relative", "Tom Brown": "relative", "Ada Lind": "relative"}
