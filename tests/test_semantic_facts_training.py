"""The facts model's training data (:mod:`training.semantic_facts`): labels, SPIA rows, and the model's own scoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from policy_engine.detect.fact_candidates import FORMS, candidate_spans
from policy_engine.detect.fact_kinds import coordinated_parts
from policy_engine.nlp.pipeline import parse
from training.semantic_facts import Example, FeatureSet, Fit, at_threshold, features_of, gold_spans, predict, score, spia_split, to_model

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


def test_every_whole_word_occurrence_of_a_value_is_labelled() -> None:
    """An annotator types a value once; each place the text writes it discloses it (before, only the first was a
    positive, and a candidate on the second counted as a false positive)."""
    row = {"context": "I am bisexual. Being bisexual at work is hard; my bisexuality is private.", "piis": {"bisexual": {"type": "sexual orientation"}}}
    assert [row["context"][s:e] for s, e, _ in gold_spans(row)] == ["bisexual", "bisexual"]
    inside = {"context": "I make about $48,500 annually.", "piis": {"$48,500 annual": {"type": "finance"}, "Paris": {"type": "location"}}}
    assert [inside["context"][s:e] for s, e, _ in gold_spans(inside)] == ["$48,500 annual"]


@pytest.mark.skipif(not (CORPORA / "spia").is_dir(), reason="SPIA is not present")
def test_spia_is_split_by_text_with_the_tags_values_as_written() -> None:
    dev, val = spia_split(CORPORA, 33)
    assert len(dev) + len(val) == 151 and not {r["context"] for r in dev} & {r["context"] for r in val}
    assert spia_split(CORPORA, 33)[1] == val
    values = [(row["context"][s:e], t) for row in dev for s, e, t in gold_spans(row)]
    assert values and all(t in ("relationship", "occupation", "education", "demographic") for _, t in values)
    assert all(v.lower() in row["context"].lower() for row in dev for v in row["piis"])


def test_a_fit_scores_rows_with_the_runtime_models_own_method() -> None:
    rng = np.random.default_rng(0)
    n, dim = 5, 4
    ex = Example("health", 0, [(0, 1)] * n, np.zeros(n, dtype=int), rng.normal(size=(n, 3)).astype(np.float32), rng.normal(size=(n, dim)).astype(np.float32),
                 rng.normal(size=(n, dim)).astype(np.float32), np.zeros(n, dtype=bool), [])
    result = Fit(FeatureSet(None, product=True, phrase=True), 1.0, rng.normal(size=3 + 2 * dim + 1).astype(np.float32), 0.5, {}, 3, dim, np.zeros(0))
    x = np.concatenate([ex.scalars, ex.phrase * ex.kind, ex.phrase], axis=1)
    expected = 1 / (1 + np.exp(-(x @ result.weights[:-1] + result.weights[-1])))
    assert np.allclose(predict([ex], result), expected, atol=1e-5)
    assert np.allclose(to_model(result).probabilities(features_of([ex])), expected, atol=1e-5)


def test_coordinated_parts_split_at_conjunctions_and_commas() -> None:
    """The one coordination split of statement kinds and conjunct candidates (:func:`coordinated_parts`)."""
    [doc] = parse(["She mentioned anxiety, chronic stress and a recent divorce."])
    anxiety = next(t for t in doc if t.text == "anxiety")
    assert [p.text for p in coordinated_parts(doc[anxiety.left_edge.i : anxiety.right_edge.i + 1])] == ["anxiety", "chronic stress", "a recent divorce"]
    assert [p.text for p in coordinated_parts(doc[0:1])] == ["She"]
    chunks = {(c.start, c.end) for c in doc.noun_chunks}
    assert all((span.start, span.end) not in chunks for span, form in candidate_spans(doc, (0, FORMS.index("conjunct"))) if FORMS[form] == "conjunct")


def test_another_threshold_rule_rescores_the_fits_out_of_fold_probabilities() -> None:
    """:func:`at_threshold` scores the rows' out-of-fold probabilities at the new threshold, with no refit."""
    n = 4
    ex = Example("health", 0, [(0, 5), (6, 10), (11, 15), (16, 20)], np.zeros(n, dtype=int), np.zeros((n, 3), dtype=np.float32), np.zeros((n, 2), dtype=np.float32),
                 np.zeros((n, 2), dtype=np.float32), np.asarray([True, False, True, False]), [(0, 5), (11, 15)])
    oof = np.asarray([0.9, 0.6, 0.3, 0.1])
    result = Fit(FeatureSet(None, product=True, phrase=True), 1.0, np.zeros(8, dtype=np.float32), 0.5, score([ex], oof >= 0.5), 3, 2, oof)
    lower = at_threshold([ex], result, 0.2)
    assert lower.threshold == 0.2 and lower.weights is result.weights
    assert lower.cross_validated == score([ex], oof >= 0.2) and lower.cross_validated["span_recall"] == 1.0 and result.cross_validated["span_recall"] == 0.5
