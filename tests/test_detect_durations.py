"""A length of time written as a prepositional adverbial is no date (:mod:`policy_engine.detect.durations`).

``make demo``'s home-visit log hid "over the past two weeks" and "in four weeks" as visit dates under the clinic's
"Mask exact visit, admission and discharge dates"; a length that dates a fact ("It lasted three years and nine
months", "two days ago") stays a date.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policy_engine.detect import Analyzer
from policy_engine.detect.recognizers import registry
from policy_engine.policy.loader import load_policy

ROOT = Path(__file__).resolve().parents[1]


def _dates(text: str) -> list[str]:
    return [text[h.start : h.end] for h in registry()["date"].find(text)]


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("No doses were missed over the past two weeks.", "two weeks"),
        ("Plan: next home visit in four weeks, sooner if adherence drops.", "four weeks"),
        ("She has had morning stiffness for two days.", "two days"),
        ("The results arrive within 24 hours.", "24 hours"),
        ("He was detained for three years and nine months.", "three years and nine months"),
    ],
)
def test_a_length_after_a_preposition_is_no_date(text: str, length: str) -> None:
    assert not any(length in d or d in length for d in _dates(text)), _dates(text)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("It lasted three years and nine months in total.", "three years and nine months"),
        ("He was admitted two days ago. Within 24 hours he improved.", "two days ago"),
        ("She is six years old.", "six years old"),
        ("He received a sentence of two to four years.", "two to four years"),
        ("The patient has a history of 10 years of smoking.", "10 years"),
        ("They ended a marriage of 12 years in court.", "12 years"),
    ],
)
def test_a_length_that_dates_a_fact_is_a_date(text: str, date: str) -> None:
    assert date in _dates(text)


def test_the_home_visit_log_hides_its_visit_date_and_not_its_durations() -> None:
    policy = load_policy(ROOT / "policies" / "clinic")
    text = (ROOT / "examples" / "clinic" / "docs" / "clinic-049.md").read_text(encoding="utf-8")
    hidden = [text[f.start : f.end] for f in Analyzer(policy).analyze(text, [policy.constraint("generalize-visit-dates")])]
    assert "March 11, 2025" in hidden
    assert not [h for h in hidden if "weeks" in h], hidden
