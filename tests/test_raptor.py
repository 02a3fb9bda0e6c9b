"""RAPTOR summary tree (SD-RAG III-C1): 3, 30 and 3,000 chunks, soft clustering, degenerate inputs, determinism."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from policy_engine.bundle.raptor import ExtractiveSummarizer, build_summary_tree, candidate_cluster_counts, cluster, soft_members
from policy_engine.nlp.embedding import load_embedder, normalize
from policy_engine.policy.model import EmbeddingSettings, SummaryTreeSettings

TOPICS = {
    "cardiology": "The cardiologist reviewed the echocardiogram of patient {i}. Blood pressure was {bp} over 80. A beta blocker was started for the arrhythmia.",
    "billing": "Invoice {i} for the outpatient visit was sent to the insurer. The copay of {bp} dollars is due in thirty days. Billing staff answer questions by phone.",
    "cafeteria": "The cafeteria menu for week {i} includes lentil soup. Lunch is served until {bp} minutes past one. Vegetarian options are labelled in green.",
}


def _texts(n: int) -> list[str]:
    names = sorted(TOPICS)
    return [TOPICS[names[i % 3]].format(i=i, bp=100 + i) for i in range(n)]


def _random_embed(texts: list[str], dim: int = 32) -> np.ndarray:
    """Deterministic pseudo-embeddings seeded by each text's hash (for the large synthetic case)."""
    rows = [np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=dim) for t in texts]
    return normalize(np.array(rows))


@pytest.fixture(scope="module")
def embed():
    return load_embedder(EmbeddingSettings()).embed


def _check_tree(tree, ids: list[str], texts: dict[str, str]) -> None:
    known = set(ids)
    for level in range(1, tree.depth + 1):
        nodes = [n for n in tree.nodes if n.level == level]
        below = [i for i in known if i.startswith(f"summary:L{level - 1}:")] if level > 1 else ids
        covered = {c for n in nodes for c in n.children}
        assert covered == set(below), f"level {level} must cover every node of the level below"
        for n in nodes:
            source = " ".join(texts[c] for c in n.children)
            for sentence in n.text.split(". "):
                assert sentence.rstrip(".") in source  # extractive: sentences come from the children
            texts[n.node_id] = n.text
        known |= {n.node_id for n in nodes}
    assert tree.vectors.shape[0] == len(tree.nodes)


def test_three_chunks_make_one_summary(embed) -> None:
    texts = _texts(3)
    ids = [f"doc#{i}" for i in range(3)]
    tree = build_summary_tree(ids, texts, embed(texts), SummaryTreeSettings(), embed)
    assert [(n.node_id, n.level, n.children) for n in tree.nodes] == [("summary:L1:00000", 1, tuple(ids))]
    assert tree.vectors.shape == (1, 384)
    assert np.allclose(tree.vectors[0], embed([tree.nodes[0].text])[0], atol=1e-5)
    _check_tree(tree, ids, dict(zip(ids, texts)))


@pytest.mark.slow  # first UMAP call in a process pays ~20 s of numba compilation
def test_thirty_chunks_cluster_by_topic_and_are_reproducible(embed) -> None:
    texts = _texts(30)
    ids = [f"doc#{i}" for i in range(30)]
    vectors = embed(texts)
    settings = SummaryTreeSettings(depth=3)
    tree = build_summary_tree(ids, texts, vectors, settings, embed)
    level1 = [n for n in tree.nodes if n.level == 1]
    assert 2 <= len(level1) <= 15
    # clusters follow the three topics: no level-1 summary mixes all three
    for n in level1:
        topics = {int(c.split("#")[1]) % 3 for c in n.children}
        assert len(topics) < 3, n
    assert tree.depth >= 2 and len([n for n in tree.nodes if n.level == tree.depth]) < len(level1)
    _check_tree(tree, ids, dict(zip(ids, texts)))
    again = build_summary_tree(ids, texts, vectors, settings, embed)
    assert again.nodes == tree.nodes and np.array_equal(again.vectors, tree.vectors)


@pytest.mark.slow
def test_three_thousand_chunks_with_synthetic_vectors() -> None:
    rng = np.random.default_rng(7)
    centers = normalize(rng.normal(size=(12, 32)))
    labels = rng.integers(0, 12, size=3000)
    vectors = normalize(centers[labels] + 0.15 * rng.normal(size=(3000, 32)))
    ids = [f"c{i}" for i in range(3000)]
    texts = [f"Record {i} belongs to group {labels[i]}. It has a few words of text." for i in range(3000)]
    tree = build_summary_tree(ids, texts, vectors, SummaryTreeSettings(depth=2, max_clusters=50), _random_embed)
    level1 = [n for n in tree.nodes if n.level == 1]
    assert 8 <= len(level1) <= 50
    purity = np.mean([np.bincount(labels[[int(c[1:]) for c in n.children]]).max() / len(n.children) for n in level1])
    assert purity > 0.8  # clusters recover the planted groups
    _check_tree(tree, ids, dict(zip(ids, texts)))


def test_soft_assignment_threshold() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=16), rng.normal(size=16)
    between = [(1 - w) * a + w * b for w in np.linspace(0.35, 0.65, 6)]
    vectors = normalize(np.vstack([a + 0.05 * rng.normal(size=(20, 16)), b + 0.05 * rng.normal(size=(20, 16)), between]))
    hard = cluster(vectors, SummaryTreeSettings(threshold=1.0))
    assert sorted(i for c in hard for i in c) == list(range(46))  # threshold 1: argmax only, a partition
    soft = cluster(vectors, SummaryTreeSettings(threshold=0.01))
    assert len(soft) == len(hard) >= 2
    assert all(set(h) <= set(s) for h, s in zip(hard, soft))  # same mixture, lower threshold: supersets


def test_soft_members_by_probability_threshold() -> None:
    probabilities = np.array([[0.9, 0.1, 0.0], [0.5, 0.45, 0.05], [0.2, 0.3, 0.5], [0.05, 0.9, 0.05]])
    assert soft_members(probabilities, 0.1) == [[0, 1, 2], [0, 1, 2, 3], [2]]  # cluster 2 keeps row 2 (its argmax)
    assert soft_members(probabilities, 0.4) == [[0, 1], [1, 3], [2]]
    assert soft_members(probabilities, 1.0) == [[0, 1], [3], [2]]  # argmax only


@pytest.mark.parametrize("n", [0, 1])
def test_too_few_nodes_make_no_tree(n: int) -> None:
    tree = build_summary_tree([f"c{i}" for i in range(n)], ["Some text here."] * n, np.ones((n, 8), np.float32) / np.sqrt(8), SummaryTreeSettings(), lambda t: _random_embed(t, dim=8))
    assert tree.nodes == [] and tree.depth == 0


def test_identical_and_degenerate_inputs_form_one_cluster() -> None:
    vectors = np.tile(normalize(np.ones((1, 8))), (25, 1))
    assert cluster(vectors, SummaryTreeSettings()) == [list(range(25))]
    texts = ["", "   ", "!!!", "ok", "?"] * 5
    tree = build_summary_tree([f"c{i}" for i in range(25)], texts, vectors, SummaryTreeSettings(), lambda t: _random_embed(t, dim=8))
    assert len(tree.nodes) == 1 and len(tree.nodes[0].children) == 25


def test_extractive_summary_picks_representative_sentences_in_order() -> None:
    texts = [
        "Patients with asthma use inhalers daily. The parking lot is closed.",
        "Asthma inhalers reduce attacks in patients. Coffee is served at nine.",
        "Inhalers help asthma patients breathe.",
    ]
    summary = ExtractiveSummarizer(sentences=2).summarize(texts)
    assert "parking" not in summary and "Coffee" not in summary
    assert summary.count(".") == 2 and summary == ExtractiveSummarizer(sentences=2).summarize(texts)


def test_candidate_cluster_counts() -> None:
    assert candidate_cluster_counts(3000, 50) == [1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 22, 31, 43, 50]
    assert candidate_cluster_counts(10, 50) == [1, 2, 3, 4, 5]
    assert candidate_cluster_counts(5, 1) == [1]
