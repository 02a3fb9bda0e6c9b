"""Keyword + embedding category resolution on the real all-MiniLM-L6-v2 model."""

from __future__ import annotations

import pytest

from policy_engine.detect.category_resolver import LOW_CONFIDENCE, CategoryResolver
from policy_engine.policy.model import Constraint, DetectorHints, Metadata, Policy


@pytest.fixture(scope="module")
def resolver() -> CategoryResolver:
    return CategoryResolver.for_policy(Policy(metadata=Metadata(name="resolver-test")))


def resolve(resolver: CategoryResolver, statement: str, **hints: list[str]):
    return resolver.resolve(Constraint(id="c", statement=statement, detect=DetectorHints(**hints)))


def test_names_of_patients_resolve_to_person_name_with_role(resolver: CategoryResolver) -> None:
    res = resolve(resolver, "Hide the names of patients")
    assert res.category_ids == ("person_name",)
    assert res.roles == ("patient",)
    assert res.method == "keywords+embedding"
    assert res.confidence >= LOW_CONFIDENCE
    assert any(e.startswith("similarity=") for e in res.categories[0].evidence)


def test_explicit_categories_win(resolver: CategoryResolver) -> None:
    res = resolve(resolver, "Hide the names of patients", categories=["date_of_birth"])
    assert res.category_ids == ("date_of_birth",) and res.method == "explicit" and res.confidence == 1.0


def test_statement_without_keywords_resolves_by_similarity(resolver: CategoryResolver) -> None:
    res = resolve(resolver, "Never reveal what ailments someone suffers from")
    assert res.method == "embedding"
    assert res.category_ids[0] == "medical_condition"


def test_keyword_far_from_the_description_is_low_confidence(resolver: CategoryResolver) -> None:
    weak = resolve(resolver, "Hide the project name")
    strong = resolve(resolver, "Hide the names of patients")
    assert weak.category_ids == ("person_name",)  # kept: uncertainty errs on the side of hiding
    assert weak.confidence < LOW_CONFIDENCE <= strong.confidence


def test_unrelated_statement_resolves_to_nothing(resolver: CategoryResolver) -> None:
    res = resolve(resolver, "Protect the secret recipe")
    assert res.categories == () and res.confidence == 0.0


def test_scores_rank_every_category(resolver: CategoryResolver) -> None:
    scores = resolver.scores(Constraint(id="c", statement="Do not reveal exact account balances or salaries"))
    assert len(scores) == len(resolver.vocabulary.categories)
    assert scores[0].category == "financial_amount" and scores[0].keyword > 0
