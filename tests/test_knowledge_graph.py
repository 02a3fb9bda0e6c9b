"""Knowledge graph (Eraser4RAG 2, 3.1.1, 4.3): spaCy triples, token-subset linking, policy triples, cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from policy_engine.bundle.knowledge_graph import ExtractionCache, KnowledgeGraph, build_knowledge_graph, extract_chunks, extract_doc, link_forms, load_spacy
from policy_engine.policy.model import PrivateKnowledge


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def test_dependency_triples_and_entities(nlp) -> None:
    ex = extract_doc(nlp("George James Rankin works at TechVille in Boston. Dr. Alan Chen prescribed an inhaler to Maria Lopez."))
    assert ("George James Rankin", "work_at", "TechVille") in ex.triples
    assert ("Alan Chen", "prescribe", "inhaler") in ex.triples
    assert ("Alan Chen", "prescribe_to", "Maria Lopez") in ex.triples
    labels = dict(ex.entities)
    assert labels["George James Rankin"] == "PERSON" and labels["Maria Lopez"] == "PERSON" and labels["Boston"] == "GPE"


def test_conjuncts_are_expanded_and_pronouns_skipped(nlp) -> None:
    ex = extract_doc(nlp("Anna Berg and Tom Becker visited the clinic. She called him."))
    assert {("Anna Berg", "visit", "clinic"), ("Tom Becker", "visit", "clinic")} <= set(ex.triples)
    assert not any(h.lower() in ("she", "he") or t.lower() in ("him", "her") for h, _, t in ex.triples)


def test_token_subset_linking() -> None:
    canon = link_forms(["george james rankin", "george rankin", "rankin", "techville", "george smith", "george", "smith"])
    assert canon["george james rankin"] == ["george james rankin"]
    assert canon["george rankin"] == ["george james rankin"] and canon["rankin"] == ["george james rankin"]
    assert canon["george"] == ["george james rankin", "george smith"]  # ambiguous short form: linked to both
    assert canon["techville"] == ["techville"]


def test_highly_ambiguous_short_form_stays_its_own_entity() -> None:
    canon = link_forms(["patient", "patient a", "patient b", "patient c", "patient d"])
    assert canon["patient"] == ["patient"]


def test_graph_links_forms_across_chunks_and_marks_policy_triples(nlp) -> None:
    texts = [
        "George James Rankin works at TechVille.",
        "George Rankin lives in Springfield.",
        "The cafeteria serves lunch at noon.",
    ]
    ids = ["a#0", "b#0", "c#0"]
    extractions = [extract_doc(d) for d in nlp.pipe(texts)]
    knowledge = PrivateKnowledge(private=[("George Rankin", "lives_in", "Springfield")], entities=["TechVille"], public=[("cafeteria", "serves", "lunch")])
    kg = build_knowledge_graph(ids, texts, extractions, knowledge)
    rankin = kg.entities["george james rankin"]
    assert {"george rankin", "george james rankin"} <= set(rankin.forms) and set(rankin.chunk_ids) == {"a#0", "b#0"}
    assert any(t.head == "george james rankin" and t.tail == "springfield" and t.chunk_ids == ("b#0",) for t in kg.triples if t.origin == "extracted")
    by_origin = {(t.origin, t.head): t.chunk_ids for t in kg.triples if t.origin != "extracted"}
    assert by_origin[("private", "George Rankin")] == ("b#0",)  # head and tail both mentioned only in b
    assert by_origin[("private", "TechVille")] == ("a#0",)  # standalone entity as a self-loop
    assert by_origin[("public", "cafeteria")] == ("c#0",)
    assert kg.mentions["a#0"] == sorted(kg.mentions["a#0"]) and "george james rankin" in kg.mentions["a#0"]
    assert "PERSON" in kg.entity_labels["b#0"]
    assert KnowledgeGraph.from_dict(kg.to_dict()) == kg


def test_cross_document_private_fact_is_found_in_both_halves(nlp) -> None:
    """Eraser4RAG Section 2: a private fact may only emerge across documents; every expressing chunk is marked."""
    texts = ["The home visit at 12 Elm Street confirmed the HIV regimen.", "Maria Lopez lives at 12 Elm Street."]
    extractions = [extract_doc(d) for d in nlp.pipe(texts)]
    kg = build_knowledge_graph(["log#0", "reg#0"], texts, extractions, PrivateKnowledge(private=[("Maria Lopez", "lives_at", "12 Elm Street")], entities=["HIV"]))
    private = {t.head: t.chunk_ids for t in kg.triples if t.origin == "private"}
    assert private["Maria Lopez"] == ("reg#0",) and private["HIV"] == ("log#0",)
    address = [e for e in kg.entities.values() if "elm street" in e.name]
    assert address and {"log#0", "reg#0"} <= {c for e in address for c in e.chunk_ids}  # the link across documents


def test_extraction_cache_skips_unchanged_texts(tmp_path: Path) -> None:
    cache = ExtractionCache(tmp_path / "x.sqlite")
    texts = ["Maria Lopez works at Harbor Logistics.", "Tom Becker lives in Springfield."]
    first, parsed = extract_chunks(texts, cache)
    assert parsed == 2
    again, parsed_again = extract_chunks(texts + ["Anna Berg visited the clinic."], cache)
    assert parsed_again == 1 and again[:2] == first


def test_parallel_extraction_matches_serial_in_order(tmp_path: Path) -> None:
    texts = [f"Patient {name} was referred to Dr. Okafor at {place} on {day} March." for name, place, day in
             zip(["Maria Lopez", "Tom Becker", "Anna Berg", "Li Wei", "Sara Nolan", "Omar Haddad"] * 5,
                 ["Mercy Hospital", "Elm Clinic", "Harbor Health"] * 10, range(1, 31))]
    serial, _ = extract_chunks(texts, workers=1)
    cache = ExtractionCache(tmp_path / "x.sqlite")
    parallel, parsed = extract_chunks(texts, cache, batch_size=4, workers=2)
    assert parsed == len(texts) and parallel == serial
    assert any(("Maria Lopez", "PERSON") in ex.entities for ex in serial[:1])
    cached, parsed_again = extract_chunks(texts, cache)  # every result reached the cache, in batches
    assert parsed_again == 0 and cached == serial
