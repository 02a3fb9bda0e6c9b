"""Units of disclosure inside a context clause are decided on their own (issue 30, failure classes 3 and 4).

A clause the disclosure tagger reads as a disclosure used to be one span: judged needed, it forwarded every value in it
(a university inside a clause about a degree, a nationality inside "As a Portuguese marine biologist").  The learned unit
proposer (:mod:`enforcers.query_rewrite.units`) splits such a clause into the phrases CAPID labels as units.  The queries
below were written for these tests before the proposer was measured on any corpus.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.rewriter import QueryRewriter
from enforcers.query_rewrite.sentence_starts import parse
from enforcers.query_rewrite.spans import AttributeSpan
from enforcers.query_rewrite.units import candidates, shared_proposer, word_f1
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.model import Metadata, Policy


def _texts(text: str, ranges: list[tuple[int, int]]) -> list[str]:
    return [text[a:b] for a, b in ranges]


def test_candidates_are_phrases_without_their_determiner_inside_the_range() -> None:
    text = "I picked up my MBA from Harvard last spring. My younger brother lives in Ghent."
    doc = parse(text)
    found = _texts(text, candidates(doc, 0, text.index(".")))
    assert "MBA from Harvard" in found and "MBA" in found and "Harvard" in found
    assert "my MBA" not in found  # the possessive only leads into the phrase
    assert not any("brother" in f or "Ghent" in f for f in found)  # nothing past the range
    assert "younger brother" in _texts(text, candidates(doc, text.index("My younger"), len(text)))


def test_word_f1_matches_phrases_by_their_words() -> None:
    assert word_f1("MBA from Harvard", "MBA from Harvard") == 1.0
    assert word_f1("Harvard", "MBA from Harvard") == pytest.approx(0.5)
    assert word_f1("the tenant", "Harvard") == 0.0


@pytest.mark.parametrize(
    ("clause", "value"),
    [
        ("my blood type is AB+ and my height is 160cm", "160cm"),
        ("I picked up my MBA from Harvard, which rewired how I decide things", "Harvard"),
        ("I grew up in Antwerp with three older sisters", "Antwerp"),
    ],
)
def test_the_proposer_finds_a_value_as_a_unit_smaller_than_its_clause(clause: str, value: str) -> None:
    doc = parse(clause)
    units = shared_proposer().units(doc, 0, len(clause))
    assert units, "a clause that states values has units"
    assert all(0 <= u.start < u.end <= len(clause) and u.end - u.start < len(clause) for u in units)
    assert all(a.end <= b.start for a, b in zip(units, units[1:])), "units never overlap"
    assert any(clause[u.start : u.end].find(value) >= 0 and u.end - u.start < len(clause) for u in units)


def _rewriter() -> QueryRewriter:
    policy = Policy(metadata=Metadata(name="units"))
    return QueryRewriter(policy, Analyzer(policy))


def test_a_tagged_clause_is_replaced_by_its_units_and_stays_whole_without_any() -> None:
    rewriter = _rewriter()
    query = "Honestly I scraped together my GED certificate at 30. How should I prepare for a first job interview?"
    doc = parse(query)
    clause = (0, query.index("."))
    tagged = AttributeSpan("employment", rewriter.attributes.family_of["employment"], *clause, source="tagger")
    proposed = dict(zip([clause], shared_proposer().units_many(doc, [clause])))
    split = rewriter.attributes.with_units(query, [tagged], proposed, lambda _: True)
    assert split and all(s.source == "unit" and s.kind and clause[0] <= s.start and s.end <= clause[1] for s in split)
    assert rewriter.attributes.with_units(query, [tagged], {clause: []}, lambda _: True) == [tagged]  # fail closed: the clause is still decided
    assert rewriter.attributes.with_units(query, [tagged], proposed, lambda _: False) == [tagged]  # every unit rejected: likewise


def test_units_of_many_ranges_are_those_of_each_range() -> None:
    query = "I picked up my MBA from Harvard last spring, and my younger brother lives in Ghent. Any tips for a GMAT retake?"
    doc = parse(query)
    ranges = [(0, query.index(", and")), (query.index("my younger"), query.index("."))]
    together, apart = shared_proposer().units_many(doc, ranges), [shared_proposer().units(doc, *r) for r in ranges]
    assert [[(u.start, u.end, u.kind) for u in units] for units in together] == [[(u.start, u.end, u.kind) for u in units] for units in apart]
    # the encoder batches sentences differently in one pass: probabilities agree to float precision
    assert [u.probability for units in together for u in units] == pytest.approx([u.probability for units in apart for u in units], abs=1e-5)


@pytest.mark.parametrize(
    ("query", "gone", "kept"),
    [
        pytest.param(
            "I earned my MBA from Harvard in 2009 and now I run a small bakery with my husband. "
            "What pricing strategy works for a small bakery?",
            ["Harvard", "2009"],
            ["What pricing strategy works for a small bakery?"],
            marks=pytest.mark.xfail(strict=True, reason="issue 30, still a leak: the necessity model scores the university (a detector's span, 0.86) and the year (0.63) needed for a pricing question"),
        ),
        (
            "As a Portuguese marine biologist I spend most dives counting parrotfish on the reef. "
            "What is a reliable way to log fish counts underwater?",
            ["Portuguese"],
            ["What is a reliable way to log fish counts underwater?"],
        ),
    ],
)
def test_a_value_the_question_does_not_need_leaves_its_kept_clause(query: str, gone: list[str], kept: list[str]) -> None:
    out = _rewriter().rewrite(query).text
    assert all(value not in out for value in gone), out
    assert all(phrase in out for phrase in kept), out


def test_a_clause_the_tagger_did_not_read_still_has_its_other_units_decided() -> None:
    rewriter = _rewriter()
    query = "I'm 34, recently divorced and I manage a warehouse team in Leeds. How do I ask for a raise?"
    doc = parse(query)
    clause = (0, query.index("."))
    age = AttributeSpan("age", rewriter.attributes.family_of["age"], query.index("34"), query.index("34") + 2, source="detect:age")
    proposed = {clause: shared_proposer().units(doc, *clause)}
    added = [s for s in rewriter.attributes.with_clause_units(query, [age], proposed, lambda _: True) if s is not age]
    assert added and all(s.source == "unit" and s.kind and clause[0] <= s.start and s.end <= clause[1] for s in added)
    assert not any(s.start < age.end and age.start < s.end for s in added), "a unit never overlaps a span already found"
    tagged = AttributeSpan("relationship_status", rewriter.attributes.family_of["relationship_status"], *clause, source="tagger")
    assert rewriter.attributes.with_clause_units(query, [tagged], proposed, lambda _: True) == [tagged]  # read already


@pytest.mark.xfail(strict=True, reason="issue 30, a unit missed: the proposer scores the bare participle 'divorced' below its threshold (it finds 'warehouse' and 'Leeds')")
def test_a_marital_status_said_as_a_participle_is_a_unit() -> None:
    query = "I'm 34, recently divorced and I manage a warehouse team in Leeds. How do I ask for a raise?"
    units = shared_proposer().units(parse(query), 0, query.index("."))
    assert any("divorced" in query[u.start : u.end] for u in units), [query[u.start : u.end] for u in units]
