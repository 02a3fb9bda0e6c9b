"""What a policy's private entity is (``private_knowledge.entities``), through the real pipeline.

The clinic's home-visit address "340 Ochoa Pine" is title case and spaCy tags no entity over it, as it would not
over a rare name; it was taken for a person, reported as a name under every constraint (``generalize-visit-dates``
included) and its "variants" "Pine" and "340" would have been hidden in any text.  The street-address recognizer
reads it as a house number and a street, so it is an address; a private person keeps its name variants.
"""

from __future__ import annotations

from pathlib import Path

from policy_engine.detect import Analyzer
from policy_engine.policy.loader import load_policy

ROOT = Path(__file__).resolve().parents[1]


def test_the_clinic_home_visit_address_is_an_address_under_every_constraint() -> None:
    policy = load_policy(ROOT / "policies" / "clinic")
    text = (ROOT / "examples" / "clinic" / "docs" / "clinic-049.md").read_text(encoding="utf-8")
    found = Analyzer(policy).analyze(text, [policy.constraint("generalize-visit-dates")])
    assert [(text[f.start : f.end], f.category) for f in found if "Ochoa" in text[f.start : f.end]] == [("340 Ochoa Pine", "address")]
    assert "March 11, 2025" in [text[f.start : f.end] for f in found]


def test_an_address_entity_hides_itself_and_not_its_words() -> None:
    policy = load_policy(ROOT / "policies" / "clinic")
    text = "The visit is at 340 Ochoa Pine. Room 340 of Pine Court was repainted."
    hidden = [text[f.start : f.end] for f in Analyzer(policy).analyze(text, [policy.constraint("generalize-visit-dates")])]
    assert hidden == ["340 Ochoa Pine"]


def test_a_private_person_keeps_its_name_variants() -> None:
    policy = load_policy(ROOT / "policies" / "lawfirm")
    analyzer = Analyzer(policy)
    (person,) = [p for p in analyzer._private if p.name == "Antonio Jackson"]
    assert person.is_person and person.category == "person_name"
    text = "Mr Jackson called the office twice."
    assert "Jackson" in [text[f.start : f.end] for f in analyzer.analyze(text, [policy.constraints[0]])]


def test_a_recognizer_never_overrides_a_name_spacy_labels_a_person() -> None:
    """"Baker" is a name spaCy labels PERSON; the occupation recognizer also finds the word whole, but its reading
    only places a name spaCy gives no label, so the private person keeps its variants and the occupation word in
    "the baker was late" is no private entity."""
    policy = load_policy(ROOT / "policies" / "lawfirm")
    policy.private_knowledge.entities.append("Baker")
    analyzer = Analyzer(policy)
    (person,) = [p for p in analyzer._private if p.name == "Baker"]
    assert person.is_person and person.category == "person_name"
    text = "The baker was late. Mr Baker called."
    hidden = [text[f.start : f.end] for f in analyzer.analyze(text, [policy.constraints[0]])]
    assert "baker" not in hidden and "Baker" in hidden
