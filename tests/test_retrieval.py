"""Constraint ranking (SD-RAG IV-C2): the five strategies on a hand-checked case, the cut, and the bundle API."""

from __future__ import annotations

import numpy as np
import pytest
from compile_support import compiled_fixture

from policy_engine.bundle.reader import Bundle
from policy_engine.bundle.retrieval import STRATEGIES, rank, strategy_scores
from policy_engine.policy.model import Constraint

# constraints c1..c3, query q, retrieved chunks v1 (score 0.8) and v2 (score 0.6), all unit vectors in 2-D
C = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
Q = np.array([0.8, 0.6], dtype=np.float32)
V = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
S = np.array([0.8, 0.6], dtype=np.float32)
CONTEXT = np.array([1.0, 1.0], dtype=np.float32) / np.sqrt(2.0)

HAND_CHECKED = {
    "query": [0.8, 0.6, 0.96],  # c . q
    "concat": [0.70711, 0.70711, 0.98995],  # c . (v1 + v2)/|v1 + v2|
    "max": [1.0, 1.0, 0.8],  # max_i c . v_i
    "mean": [0.5, 0.5, 0.7],  # mean_i c . v_i
    "weighted_mean": [0.8 / 1.4, 0.6 / 1.4, 0.96 / 1.4],  # sum_i s_i c . v_i / sum_i s_i
}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_strategies_on_hand_checked_case(strategy: str) -> None:
    scores = strategy_scores(strategy, C, Q, V, S, CONTEXT)
    assert scores == pytest.approx(HAND_CHECKED[strategy], abs=1e-4)


def test_strategies_order_differently() -> None:
    best = {s: int(np.argmax(strategy_scores(s, C, Q, V, S, CONTEXT))) for s in STRATEGIES}
    assert best["max"] == 0 and best["weighted_mean"] == 2 and best["query"] == 2


def test_weighted_mean_ignores_negative_weights_and_falls_back_to_mean() -> None:
    assert strategy_scores("weighted_mean", C, Q, V, np.array([-0.5, 0.6], np.float32)) == pytest.approx([0.0, 1.0, 0.8])
    assert strategy_scores("weighted_mean", C, Q, V, np.zeros(2, np.float32)) == pytest.approx(strategy_scores("mean", C, Q, V, S))


def test_concat_requires_context_and_unknown_strategy_is_refused() -> None:
    with pytest.raises(ValueError, match="concat"):
        strategy_scores("concat", C, Q, V, S)
    with pytest.raises(ValueError, match="unknown ranking strategy 'best'"):
        strategy_scores("best", C, Q, V, S, CONTEXT)


def _constraints() -> list[Constraint]:
    return [
        Constraint(id="a", statement="Hide a", severity="low"),
        Constraint(id="b", statement="Hide b", severity="high"),
        Constraint(id="c", statement="Hide c", severity="medium"),
        Constraint(id="d", statement="Hide d", severity="medium"),
        Constraint(id="e", statement="Hide e", severity="critical"),
    ]


def test_rank_cut_keeps_protected_and_reports_every_drop() -> None:
    constraints = _constraints()
    scores = np.array([0.9, 0.1, 0.8, 0.7, 0.5], np.float32)
    candidates = {"a": ["x"], "b": ["x"], "c": ["y"], "d": ["y"], "e": ["x", "y"]}
    ranking = rank(constraints, scores, candidates, max_constraints=1, strategy="mean", literal={"d"})
    kept = {k.constraint.id: k for k in ranking.kept}
    dropped = {d.constraint.id: d for d in ranking.dropped}
    assert set(kept) == {"a", "b", "d", "e"}  # a by rank, b/e by severity, d by a literal match
    assert set(dropped) == {"c"} and "ranked 2 of 5 candidates, below the cut of 1 (mean), neither high-severity nor matched by its terms or patterns" == dropped["c"].reason
    assert "severity high" in kept["b"].kept_because and "match a retrieved chunk" in kept["d"].kept_because
    assert kept["e"].chunk_ids == ("x", "y") and kept["a"].score == pytest.approx(0.9)


def test_rank_reports_constraints_bound_to_no_retrieved_chunk() -> None:
    ranking = rank(_constraints(), np.zeros(5, np.float32), {"a": ["x"]}, max_constraints=3, strategy="query")
    assert [k.constraint.id for k in ranking.kept] == ["a"]
    assert {d.constraint.id: d.reason for d in ranking.dropped} == {i: "not bound to any retrieved chunk" for i in "bcde"}


# ------------------------------------------------------------- real bundle


@pytest.fixture(scope="module")
def bundle() -> Bundle:
    _, path, _ = compiled_fixture()
    return Bundle.open(path)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_bundle_ranking_accounts_for_every_constraint(bundle: Bundle, strategy: str) -> None:
    query = "What was Maria Lopez diagnosed with and how can I call her?"
    retrieved = bundle.retrieve(query, k=4)
    assert len(retrieved) == 4 and retrieved == sorted(retrieved, key=lambda r: -r.score)
    ranking = bundle.rank_constraints(query, retrieved, strategy, max_constraints=1)
    ids = [k.constraint.id for k in ranking.kept] + [d.constraint.id for d in ranking.dropped]
    assert sorted(ids) == sorted(c.id for c in bundle.policy.constraints)
    candidates = {c.id for r in retrieved for c in bundle.bound_constraints(r.chunk.chunk_id)}
    assert {k.constraint.id for k in ranking.kept} <= candidates
    assert "hide-patient-names" in {k.constraint.id for k in ranking.kept}  # severity high: never cut
    for d in ranking.dropped:
        assert d.reason == "not bound to any retrieved chunk" if d.constraint.id not in candidates else "below the cut" in d.reason


def test_bundle_scores_match_the_strategy_definitions(bundle: Bundle) -> None:
    query = "Which phone number does Tom Becker have?"
    retrieved = bundle.retrieve(query, k=3)
    embed = bundle.embedder.embed
    rows = {n.chunk_id: i for i, n in enumerate(bundle.nodes)}
    chunk_vectors = bundle.vectors[[rows[r.chunk.chunk_id] for r in retrieved]]  # scores use the compiled vectors
    constraint_vectors = bundle.constraint_vectors
    assert np.allclose(chunk_vectors, embed([r.chunk.text for r in retrieved]), atol=5e-3)  # ... which embed the chunks
    assert np.allclose(constraint_vectors, embed([c.statement for c in bundle.policy.constraints]), atol=5e-3)
    context = embed(["\n\n".join(r.chunk.text for r in retrieved)])[0]
    q = embed([query])[0]
    weights = np.array([r.score for r in retrieved])
    expected = {
        "query": constraint_vectors @ q,
        "concat": constraint_vectors @ context,
        "max": (constraint_vectors @ chunk_vectors.T).max(axis=1),
        "mean": (constraint_vectors @ chunk_vectors.T).mean(axis=1),
        "weighted_mean": (constraint_vectors @ chunk_vectors.T) @ weights / weights.sum(),
    }
    index = {c.id: i for i, c in enumerate(bundle.policy.constraints)}
    for strategy, values in expected.items():
        ranking = bundle.rank_constraints(query, retrieved, strategy, max_constraints=10)
        for item in list(ranking.kept) + list(ranking.dropped):
            assert item.score == pytest.approx(float(values[index[item.constraint.id]]), abs=1e-4), strategy


def test_retrieve_scores_are_cosine_similarities(bundle: Bundle) -> None:
    query = "clinic opening hours"
    q = bundle.embedder.embed([query])[0]
    rows = {n.chunk_id: i for i, n in enumerate(bundle.nodes)}
    for r in bundle.retrieve(query, k=3):
        assert r.score == pytest.approx(float(bundle.vectors[rows[r.chunk.chunk_id]] @ q), abs=1e-5)
        assert r.score == pytest.approx(float(bundle.embedder.embed([r.chunk.text])[0] @ q), abs=5e-3)
    assert "handbook" in bundle.retrieve(query, k=1)[0].chunk.chunk_id


def test_concurrent_reads_agree_with_sequential(bundle: Bundle) -> None:
    from concurrent.futures import ThreadPoolExecutor

    queries = ["Who has asthma?", "clinic opening hours", "phone number of Tom Becker", "insurance policy number", "diabetes check"] * 4

    def answer(q: str) -> tuple:
        retrieved = bundle.retrieve(q, k=3)
        ranking = bundle.rank_constraints(q, retrieved)
        return tuple(r.chunk.chunk_id for r in retrieved), tuple(k.constraint.id for k in ranking.kept)

    sequential = [answer(q) for q in queries]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(answer, queries)) == sequential
