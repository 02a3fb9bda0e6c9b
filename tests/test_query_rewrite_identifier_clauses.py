"""A clause that speaks of e-mail, a phone or an ID card discloses no address, number or ID (issue 30, class 7), and a
request that introduces material with a colon is no courtesy line closing the message.

Real spaCy, the real embedder, the shipped tagger and necessity model.  The queries were written for these tests
from the failure class (PUPA TNB's development part: "I hope this email finds you well" tagged as an e-mail address
and generalized to "an email address" mid-sentence); none is taken from a corpus.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.rewriter import QueryRewriter
from enforcers.query_rewrite.spans import IDENTIFIERS
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.model import Metadata, Policy

#: Queries whose clauses speak of e-mail, a phone or an ID document and hold no address, number or ID.
NO_IDENTIFIER = [
    "Thanks for your email yesterday, it cleared things up for my sister. Can you explain what a bridging loan is?",
    "I hope this email finds you well. My landlord hasn't fixed the boiler in three weeks. What are my rights as a tenant in Scotland?",
    "My phone keeps dying by lunchtime and I'm out on site all day as a surveyor. Which power bank should I buy?",
    "I lost my wallet with my driving licence in it last night. What should I do first?",
]
#: What a generalized identifier reads as (:data:`enforcers.query_rewrite.generic.GENERIC`).
IDENTIFIER_PHRASES = ("an email address", "a phone number", "an ID number")


@pytest.fixture(scope="module")
def rewriter() -> QueryRewriter:
    policy = Policy(metadata=Metadata(name="identifier-clauses"))
    return QueryRewriter(policy, Analyzer(policy))


@pytest.mark.parametrize("query", NO_IDENTIFIER)
def test_a_clause_with_no_identifier_value_is_not_labelled_an_identifier(rewriter: QueryRewriter, query: str) -> None:
    _, _, spans = rewriter.spans(query)
    assert not [(s.attribute, s.value(query)) for s in spans if s.attribute in IDENTIFIERS]


@pytest.mark.parametrize("query", NO_IDENTIFIER)
def test_no_identifier_phrase_is_written_into_the_rewrite(rewriter: QueryRewriter, query: str) -> None:
    text = rewriter.rewrite(query).text
    assert not [p for p in IDENTIFIER_PHRASES if p in text], text


def test_a_request_to_reply_that_introduces_its_material_is_kept() -> None:
    """"Please reply to this email: <the e-mail>" is the request, not a courtesy line closing the message: it stays, and
    the e-mail's names travel as placeholders."""
    policy = Policy(metadata=Metadata(name="identifier-clauses"))
    query = "Please reply to this email: Hi Tom, I hope this email finds you well. The meeting moved to Friday. Best, Ann"
    result = QueryRewriter(policy, Analyzer(policy)).rewrite(query)
    assert result.text.startswith("Please reply to this email:"), result.text
    assert "The meeting moved to Friday" in result.text and "Tom" not in result.text and "Ann" not in result.text
    assert "an email address" not in result.text


#: Version and model numbers, which the unit proposer may read as a code (CAPID's kind of identifiers).
VERSIONS = [
    "My laptop runs Windows 11 and the app is version 13.5.7. Why does it crash when I open a PDF?",
    "I pay for GPT-4 at work and my manager uses Claude 3. Which is better at summarising long reports?",
]


@pytest.mark.parametrize("query", VERSIONS)
def test_a_version_number_is_no_identifier(rewriter: QueryRewriter, query: str) -> None:
    """An identifier holds six or more digits or is an e-mail address (278 of CAPID development's 279 distinct codes);
    a version or model number is neither, and the rewrite never calls it an ID number."""
    _, _, spans = rewriter.spans(query)
    assert not [s.value(query) for s in spans if s.attribute in IDENTIFIERS]
    assert "an ID number" not in rewriter.rewrite(query).text


def test_a_long_number_is_still_an_identifier(rewriter: QueryRewriter) -> None:
    query = "My passport number is X48213976 and it expires next month. How early can I renew it?"
    assert "48213976" not in rewriter.rewrite(query).text
