"""The erase step's output reads as English, one label scheme per request (issue 31, `make demo`), through the real pipeline.

The clinic policy's context stage (kg_erasure, then redaction) on clinic-style
text written for these tests: an erased street address takes its locality
with it (no "an address, a local address"); a patient's name reads
``[PATIENT_NAME_n]`` with or without a role cue beside it; an identifier is
labelled by the field the text names ("member ID"), not by its category's
other kind (``MRN``); and a staff member referred to by role ("the referring
physician") is not generalized as if it were the patient's occupation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from enforcers.kg_erasure.eraser import Eraser
from policy_engine.engine.runtime import Engine
from policy_engine.policy.loader import load_policy
from policy_engine.policy.model import PrivateKnowledge

CLINIC = Path(__file__).resolve().parents[1] / "policies" / "clinic"
VISIT = ("Home visit log\n\nAddress visited: 340 Ochoa Pine, Lakeview, MS 38611\n\n"
         "The dressing was changed and the wound is healing. Notes sent to the referring physician after the visit.")
REGISTRATION = ("Registration update\nPatient name: Dorothy Quinn\nMRN: 7712345\n"
                "Insurance card scanned; member ID AET551203948 confirmed with the insurer. Occupation listed as welder.")


@pytest.fixture(scope="module")
def protected() -> tuple[str, str]:
    engine = Engine.for_policy(load_policy(CLINIC), audit=False)
    try:
        result = engine.protect_passages([("visit.md", VISIT), ("registration.txt", REGISTRATION)])
    finally:
        engine.close()
    chunks = {c.chunk_id: c.text for c in result.chunks}
    return chunks["visit.md"], chunks["registration.txt"]


def test_an_erased_address_takes_its_locality_and_reads_once(protected: tuple[str, str]) -> None:
    visit, _ = protected
    assert "Address visited: an address\n" in visit and "Lakeview" not in visit and "38611" not in visit


def test_a_patients_name_reads_as_a_patients_name_without_a_role_cue(protected: tuple[str, str]) -> None:
    _, registration = protected
    assert "Patient name: [PATIENT_NAME_1]" in registration and "[NAME_" not in registration


def test_an_identifier_is_labelled_by_the_field_the_text_names(protected: tuple[str, str]) -> None:
    _, registration = protected
    assert "MRN: [MRN_1]" in registration and "member ID [MEMBER_ID_1]" in registration and "[MRN_2]" not in registration


def test_a_staff_role_is_not_generalized_as_the_patients_occupation(protected: tuple[str, str]) -> None:
    visit, registration = protected
    assert "Notes sent to the referring physician" in visit and "welder" not in registration


@pytest.mark.parametrize(("sentence", "kept"), [
    ("She moved to 18 Marsh Row, Eastbury, OH 44012, and can be reached by phone.", ", and can be reached by phone."),
    ("Cllr Reyes, who lives at 18 Marsh Row, said the vote was close.", "said the vote was close."),
])
def test_an_address_description_ends_where_the_address_ends(sentence: str, kept: str) -> None:
    (text,) = Eraser(PrivateKnowledge(entities=["18 Marsh Row"])).erase([("note", sentence)]).texts
    assert "Marsh" not in text and "Eastbury" not in text and text.endswith(kept)
