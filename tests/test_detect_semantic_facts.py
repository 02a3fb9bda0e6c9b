"""Sensitive facts named by a statement's meaning (:mod:`policy_engine.detect.semantic_facts`), through the real pipeline.

``tests/fixtures/semantic_facts/housing_letters.json`` was written by hand
before the model was fitted: kinds of facts no lexicon of the project lists
(safeguarding, disability aids, immigration history).  Before the finder,
none of the nine protected phrases was hidden; with the first model, three
were; with the scalar refit, two ("wheelchair", "earlier visa application");
with the span classifier over embedding products and the phrase's embedding
(CAPID validation span recall 0.385 -> 0.732), five ("partially sighted",
"asylum seeker", "refugee status" too), and no ordinary word is.

``tests/fixtures/semantic_facts/new_kinds.json`` was written by hand for issue 33
before the model was changed again: five more kinds no lexicon lists (addiction
recovery, arrears and enforcement, gender transition, criminal convictions,
gambling harm); with the model above, six of its eleven phrases were hidden.
The refit on every occurrence of CAPID's values and on SPIA's tags hides the
same phrases of both sets (5 of 9, 6 of 11), and still no ordinary word; so does the refit on the candidates the
parse adds (a copula's adjectival attribute or a predicate's conjunct, an amount with its symbol), read once after it
was accepted on CAPID development.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policy_engine.detect import Analyzer
from policy_engine.detect.fact_kinds import statement_kinds
from policy_engine.policy.model import Constraint, Metadata, Policy

FIXTURES = Path(__file__).parent / "fixtures" / "semantic_facts"
HOUSING = json.loads((FIXTURES / "housing_letters.json").read_text(encoding="utf-8"))["cases"]
CASES = [*HOUSING, *json.loads((FIXTURES / "new_kinds.json").read_text(encoding="utf-8"))["cases"]]
STATEMENTS = {case["statement"]: Constraint(id=f"facts-{i}", statement=case["statement"]) for i, case in enumerate(CASES)}


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="housing"), constraints=[*STATEMENTS.values(), Constraint(id="phones", statement="Hide phone numbers.")]))


def test_the_kinds_are_the_coordinated_objects_without_the_possessor() -> None:
    assert statement_kinds("Do not reveal tenants' health conditions, disabilities or safeguarding concerns.") == (
        "health conditions", "disabilities", "safeguarding concerns",
    )
    assert statement_kinds("Do not reveal a client's immigration history.") == ("immigration history",)


def test_only_kinds_no_category_keyword_names_are_matched_by_meaning(analyzer: Analyzer) -> None:
    tenancy = STATEMENTS["Do not reveal tenants' health conditions, disabilities or safeguarding concerns."]
    assert analyzer.plan(tenancy).fact_kinds == ("disabilities", "safeguarding concerns")
    clinical = Constraint(id="clinical", statement="Hide health information: conditions, symptoms, procedures, medications, pregnancy.")
    assert analyzer.plan(clinical).fact_kinds == ()
    assert analyzer.plan(analyzer.policy.constraint("phones")).fact_kinds == ()
    assert analyzer.plan(STATEMENTS["Do not reveal a client's immigration history."]).active


#: Phrases the model fitted on CAPID does not reach yet (probability below the threshold): kept as strict expected
#: failures, so a better model shows up here as an unexpected pass.  The letters are not tuned on: they were read
#: once, after the span classifier was fitted and measured on CAPID validation; the new kinds were measured once
#: before the change of issue 33 and once after it.
NOT_YET = frozenset([
    "domestic abuse", "barring order", "guide dog", "child protection register",
    "heroin", "county court judgment", "deed poll", "online betting", "self-excluded",
])


def _covered(analyzer: Analyzer, case: dict) -> set[int]:
    return {i for f in analyzer.analyze(case["text"], [STATEMENTS[case["statement"]]]) for i in range(f.start, f.end)}


@pytest.mark.parametrize(
    ("case", "phrase"),
    [
        pytest.param(case, phrase, id=f"{case['id']}:{phrase}", marks=[pytest.mark.xfail(strict=True, reason="below the calibrated threshold")] if phrase in NOT_YET else [])
        for case in CASES
        for phrase in case["hidden"]
    ],
)
def test_a_named_fact_is_hidden(analyzer: Analyzer, case: dict, phrase: str) -> None:
    text, start = case["text"], case["text"].index(phrase)
    covered = _covered(analyzer, case)
    assert all(i in covered for i in range(start, start + len(phrase)) if not text[i].isspace())


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_no_ordinary_word_is_hidden(analyzer: Analyzer, case: dict) -> None:
    text, covered = case["text"], _covered(analyzer, case)
    assert [w for w in case["kept"] if any(i in covered for i in range(text.index(w), text.index(w) + len(w)))] == []


def test_examples_after_a_kind_are_instances_not_kinds() -> None:
    """'such as depression, anxiety or bipolar disorder' lists terms of the kind; matching 'anxiety' by meaning
    hid 'a prescribed medication' in a rewritten clinic note and forced it back to placeholders."""
    from policy_engine.detect.fact_kinds import statement_kinds

    assert statement_kinds("Withhold mental health diagnoses such as depression, anxiety or bipolar disorder") == ("mental health diagnoses",)
    assert statement_kinds("Hide diagnoses, including cancer and HIV") == ("diagnoses",)
    assert statement_kinds("Do not reveal tenants' health conditions, disabilities or safeguarding concerns") == ("health conditions", "disabilities", "safeguarding concerns")


def test_the_sentence_gate_and_the_cascade_change_no_finding() -> None:
    """Every feature is local to a sentence, so skipping the sentences whose cosine to every kind is below the gate
    leaves the findings of the others as they were; a candidate rejected even at the largest drop needs no cut
    sentence (the hot path of a protected passage embeds fewer texts)."""
    from policy_engine.detect.semantic_facts import SemanticFacts, candidate_features, fitted_model
    from policy_engine.nlp.embedding import load_embedder
    from policy_engine.nlp.pipeline import parse
    from policy_engine.policy.model import EmbeddingSettings

    embedder, model = load_embedder(EmbeddingSettings()), fitted_model()
    unrelated = "Kick-off is at three and the match will be shown on the big screen. Preheat the oven to 180 degrees and grease the tin."
    texts, kinds = [*(case["text"] for case in HOUSING), unrelated], ("disabilities", "safeguarding concerns", "immigration history")
    assert SemanticFacts(embedder).find_many(texts, kinds) == SemanticFacts(embedder, gate=False, cascade=False).find_many(texts, kinds)
    docs = parse(texts)
    scored = [sum(map(len, candidate_features(embedder, docs, kinds, model.forms, gate).candidates)) for gate in (model.gate, None)]
    assert 0 < scored[0] < scored[1], scored


def test_the_gate_keeps_the_sentences_near_a_kind_every_one_without_a_gate_and_none_without_a_kind() -> None:
    """:func:`~policy_engine.detect.semantic_facts.gated_sentences`, the gate the finder and the candidate-ceiling
    bench share: a sentence is kept when its cosine to some kind reaches the shipped gate."""
    from policy_engine.detect.semantic_facts import fitted_model, gated_sentences
    from policy_engine.nlp.embedding import load_embedder
    from policy_engine.nlp.pipeline import parse
    from policy_engine.policy.model import EmbeddingSettings

    embedder, gate = load_embedder(EmbeddingSettings()), fitted_model().gate
    docs = parse(["My son has used a wheelchair since the accident. Kick-off is at three and the match will be shown on the big screen."])
    sentences = list(docs[0].sents)
    vectors = dict(zip([s.text for s in sentences], embedder.embed([s.text for s in sentences])))
    kinds = embedder.embed(["disabilities", "safeguarding concerns"])
    assert gated_sentences(docs, vectors.__getitem__, kinds, gate) == {(0, sentences[0].start)}
    assert gated_sentences(docs, vectors.__getitem__, kinds, None) == {(0, s.start) for s in sentences}
    assert gated_sentences(docs, vectors.__getitem__, kinds[:0], gate) == set()


def test_the_cascade_bound_holds_because_the_drop_weight_is_positive() -> None:
    """The cascade sets a candidate's drop to :data:`DROP_BOUND` to decide whether its cut sentence is needed; that is
    an upper bound on the probability only while the model's weight on the drop is positive."""
    from policy_engine.detect.semantic_facts import DROP, fitted_model

    assert fitted_model().scalar_weights[DROP] > 0


def test_an_amount_or_a_group_the_parser_tags_is_a_candidate_of_its_own() -> None:
    """A fact need not head a noun chunk: an amount of money ("about $4,000", no chunk at all) or a nationality inside
    a chunk ("Nigerian" in "my Nigerian mother-in-law") is scored by itself (CAPID's finance and demographic spans
    were lost at candidate generation: ``bench/results/semantic_facts_diagnosis_before.md``)."""
    from policy_engine.detect.fact_candidates import FORMS, candidate_spans
    from policy_engine.detect.semantic_facts import fitted_model
    from policy_engine.nlp.pipeline import parse

    texts = ["We earn about $4,000 monthly between the two of us.", "My husband and my Nigerian mother-in-law share the flat."]
    found = [{(span.text, FORMS[form]) for span, form in candidate_spans(doc, fitted_model().forms)} for doc in parse(texts)]
    assert ("about $4,000", "entity") in found[0]
    assert ("Nigerian", "entity") in found[1]


def test_a_predicate_adjective_and_an_amount_with_its_symbol_are_candidates() -> None:
    """An adjective said of the subject is a predicate candidate whether it is the copula's complement, its attribute
    ("I'm a heterosexual who ...") or a conjunct of a predicate ("34 years old and heterosexual"); an amount keeps the
    symbol the parse attaches to it ("£34,500": the entity recognizer tags "34,500" alone, a span of numbers that is
    no candidate).  CAPID's gold spans of these shapes were never candidates (``bench/results/semantic_facts_candidates.md``)."""
    from policy_engine.detect.fact_candidates import FORMS, candidate_spans
    from policy_engine.detect.semantic_facts import fitted_model
    from policy_engine.nlp.pipeline import parse

    texts = ["I'm 34 years old and heterosexual, which I mention.", "At 67, I'm a heterosexual who values honesty.", "My salary is £34,500."]
    found = [{(span.text, FORMS[form]) for span, form in candidate_spans(doc, fitted_model().forms)} for doc in parse(texts)]
    assert ("heterosexual", "predicate") in found[0]
    assert ("heterosexual", "predicate") in found[1]
    assert ("£34,500", "entity") in found[2]


def test_only_a_number_entity_takes_the_symbol_the_parse_attaches_before_it() -> None:
    """The parse attaches the "#" of "#London" to the place as it attaches the "£" of "£34,500" to the amount; only
    the amount (a number entity) grows to take it, the hashtag's "#" is no part of the place."""
    from policy_engine.detect.fact_candidates import _with_attached_symbol
    from policy_engine.nlp.pipeline import parse

    docs = parse(["My salary is £34,500.", "I moved to #London last year."])
    assert docs[1][3].text == "#" and docs[1][3].head.text == "London"
    grown = {entity.text: _with_attached_symbol(entity).text for doc in docs for entity in doc.ents}
    assert grown["34,500"] == "£34,500"
    assert grown["London"] == "London"
