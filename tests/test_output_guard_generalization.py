"""The output guard's generalization reads as English (issue 32): a QI inside a noun phrase is replaced with its noun phrase.

Answers written by hand for this test; each binds its QIs to one subject, so every span is generalized.
"""

from __future__ import annotations

import re

import pytest

from enforcers.output_guard.generalization import generalize_spans
from enforcers.output_guard.persons import extract
from enforcers.output_guard.qi_spans import QISpan

CLASSES = ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY", "CONDITION", "TREATMENT", "VISIT_PATTERN")
#: A determiner or possessive directly before an article, or one modifier between them: two determiners in one noun phrase.
DOUBLE_DETERMINER = re.compile(r"\b(?:a|an|the|her|his|my|their|our|your)\s+(?:(?:late|two|adult|\d[\w-]*)\s+)?(?:a|an)\s+", re.IGNORECASE)


@pytest.mark.parametrize(
    ("answer", "values", "reads"),
    [
        ("She is 52, lives in Omaha with her late husband and works as a welder.", ("52", "Omaha", "husband", "welder"), "with a family member and works as a professional"),
        ("He is 47 and shares a flat with his two daughters.", ("47", "daughters"), "with family members"),
        ("The client, 61, is self-employed as an architect in Bristol.", ("61", "architect", "Bristol"), "self-employed as a professional"),
        ("My neighbour is a 58-year-old electrician from Hull.", ("58", "electrician", "Hull"), "is a professional from"),
    ],
)
def test_generalized_noun_phrases_read_as_english(answer: str, values: tuple[str, ...], reads: str) -> None:
    found = extract(answer, "medical", CLASSES)
    spans = [QISpan(m.qi_class, m.start, m.end, m.person is not None) for m in found.mentions]
    rewritten = generalize_spans(answer, spans).text
    assert reads in rewritten and DOUBLE_DETERMINER.search(rewritten) is None, rewritten
    assert re.search(r"\ban\s+[^aeiouAEIOU\W]", rewritten) is None, rewritten  # "an professional"
    for value in values:
        assert value not in rewritten, rewritten
