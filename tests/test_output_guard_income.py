"""An income said with its amount further on in the clause is one INCOME_BAND mention of its person (issue 32).

The amount of a person's income is often said well after the noun that makes
it one ("his income as a freelance translator in Riga is below 20,000 euros",
"her salary, after last spring's promotion, rose to about 84,000 dollars").
Written from that class before the parse reading existed; the negatives are
amounts that are no one's income (a price, a fee, a loan, a median) and incomes
of nobody in particular.  Real spaCy parse, real recognizers.
"""

from __future__ import annotations

import pytest

from enforcers.output_guard.domains import qi_classes
from enforcers.output_guard.persons import extract

CLASSES = qi_classes("finance")

PERSON_INCOMES = [
    ("His income as a freelance translator in Riga is below 20,000 euros.", "20,000 euros"),
    ("Her salary, after the promotion last spring, rose to about 84,000 dollars.", "84,000 dollars"),
    ("He says his pension from the county is roughly £1,900 a month.", "£1,900"),
    ("My take-home pay after tax and the student loan comes to £2,150 a month.", "£2,150"),
    ("Her annual earnings from the two restaurants she runs were close to $310,000 last year.", "$310,000"),
    ("My wife brings home around 3,400 euros a month from the clinic.", "3,400 euros"),
    ("The client told us that his wages at the depot had fallen to $1,200 a fortnight.", "$1,200"),
]

NOT_INCOMES = [
    "The house he bought in March cost £412,000.",
    "She paid a fee of $350 to file the appeal.",
    "The median household income in the county is about $58,000.",
    "A salary of £40,000 puts you in the basic-rate band.",
    "They took out a loan of 20,000 euros for the roof.",
    "Incomes below 20,000 euros pay no tax there.",
]


def _income_mentions(text: str) -> list[tuple[str, int | None]]:
    extraction = extract(text, "finance", CLASSES)
    return [(text[m.start : m.end], m.person) for m in extraction.mentions if m.qi_class == "INCOME_BAND"]


@pytest.mark.parametrize(("text", "amount"), PERSON_INCOMES)
def test_an_income_amount_said_apart_from_its_noun_is_the_persons_income_band(text: str, amount: str) -> None:
    mentions = _income_mentions(text)
    assert any(amount in said and person is not None for said, person in mentions), mentions


@pytest.mark.parametrize("text", NOT_INCOMES)
def test_an_amount_that_is_no_ones_income_counts_for_no_person(text: str) -> None:
    assert not [m for m in _income_mentions(text) if m[1] is not None]
