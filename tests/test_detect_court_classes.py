"""Court-text classes of issue 33, each through the real pipeline on hand-written judgment sentences.

Plain statements only (no ``detect`` hints): the resolver, spaCy and the
recognizers decide.  Class 1: every number of a list after one cue is an
identifier, not only the first.  Class 2: an amount with its ISO 4217
currency code written first (or after it) is money.
"""

from __future__ import annotations

import pytest

from policy_engine.detect import Analyzer
from policy_engine.policy.model import Constraint, Metadata, Policy

NUMBERS = Constraint(id="numbers", statement="Hide case and reference numbers and other identifying codes.")
AMOUNTS = Constraint(id="amounts", statement="Do not reveal the amounts awarded or paid.")


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="court"), constraints=[NUMBERS, AMOUNTS]))


def _hidden(analyzer: Analyzer, text: str, constraint: Constraint) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, [constraint])]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("The Chamber decided to join applications nos. 30417/04 and 30418/04 and to examine them together.", ["30417/04", "30418/04"]),
        ("The family farmed plots nos. 274, 276 and 281 until the expropriation.", ["274", "276", "281"]),
        ("Complaints nos. 5521/2011, 5522/2011 or 5530/2011 were never answered.", ["5521/2011", "5522/2011", "5530/2011"]),
    ],
)
def test_class1_every_number_listed_after_one_cue_is_hidden(analyzer: Analyzer, text: str, values: list[str]) -> None:
    hidden = " ".join(_hidden(analyzer, text, NUMBERS))
    assert [v for v in values if v not in hidden] == []


def test_class1_a_different_number_after_and_is_not_taken(analyzer: Analyzer) -> None:
    text = "Application no. 30417/04 and 12 others were struck out."
    assert "12" not in " ".join(_hidden(analyzer, text, NUMBERS))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Court awards the applicant NOK 310,000 in respect of non-pecuniary damage.", "NOK 310,000"),
        ("Costs of CHF 12,480.50 were claimed before the domestic courts.", "CHF 12,480.50"),
        ("She received 85,000 DKK as compensation.", "85,000 DKK"),
    ],
)
def test_class2_money_with_its_currency_code_is_hidden_whole(analyzer: Analyzer, text: str, value: str) -> None:
    covered = {i for f in analyzer.analyze(text, [AMOUNTS]) for i in range(f.start, f.end)}
    start = text.index(value)
    assert all(i in covered for i in range(start, start + len(value)) if not text[i].isspace())
