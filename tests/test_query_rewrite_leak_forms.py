"""The leak diagnosis's form classes of never-proposed values (``bench/query_rewrite/diagnose.py``), on CVs of our own."""

from __future__ import annotations

import pytest

from bench.query_rewrite.diagnose import Parsed, named_runs, never_proposed_class

pytestmark = pytest.mark.slow

SHOUTED = "WORKED AS PACKER AT GRENFELL TILE WORKS FOR 3 YEARS. STUDIED AT MOSSGIEL COLLEGE.\nPlease polish this CV summary so it sounds confident."
MIXED = "Skills: Forklift Licence, Stock Control. Current employer: Brannock Tiles. Studied at harrowgate college.\nCan you make this summary shorter?"


@pytest.fixture(scope="module")
def parses() -> dict[str, Parsed]:
    return {text: Parsed.of(text) for text in (SHOUTED, MIXED)}


def test_an_all_caps_employer_outside_the_request_with_no_entity_label_is_a_proper_name_run(parses: dict[str, Parsed]) -> None:
    assert never_proposed_class(parses[SHOUTED], SHOUTED, "grenfell tile works") == ("a proper-name run outside the request", "all caps")


def test_a_lower_case_school_is_lower_case(parses: dict[str, Parsed]) -> None:
    assert never_proposed_class(parses[MIXED], MIXED, "harrowgate college") == ("b lower-case", "outside the request")


def test_an_employer_the_parse_labels_is_another_form(parses: dict[str, Parsed]) -> None:
    kind, detail = never_proposed_class(parses[MIXED], MIXED, "brannock tiles")
    assert kind == "c other" and detail.startswith("spaCy ") and detail.endswith("outside the request")


def test_the_rule_proposes_capitalised_runs_outside_the_request_only(parses: dict[str, Parsed]) -> None:
    for text, parsed in parses.items():
        runs = named_runs(parsed)
        assert runs, text
        for start, end in runs:
            assert text[start].isupper() and not parsed.in_request(start)
            assert parsed.entity(start, end) is None
