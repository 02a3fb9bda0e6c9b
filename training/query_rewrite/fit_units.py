"""Fit the unit proposer (:mod:`enforcers.query_rewrite.units`) on CAPID's development part, deterministically.

Every development query is parsed as the rewriter parses it (context, then question); the candidates of its context
(:func:`~enforcers.query_rewrite.units.candidates`) are the examples: a unit when its words match a labelled span's
with F1 >= ``MATCH`` (its type that span's), else not.  Cross-validation is grouped by query (5 folds); the out-of-fold
probabilities give the reported AUC and the curve of the greedy choice per query (:func:`~enforcers.query_rewrite.units.greedy`): at each threshold,
the share of labelled spans some chosen unit matches (recall, F1 >= 0.5) and the share of chosen units that match one
(precision).  The shipped threshold is the highest whose recall is at least ``RECALL``: a labelled span a clause's
units miss is decided only with its clause's neighbours, so recall, not precision, is what leaks cost.  Both
regressions are then refitted on every development example.

Usage: ``python training/query_rewrite/fit_units.py [--cache /tmp/qr_units.npz]`` writes
``enforcers/query_rewrite/unit_model.npz`` and prints the figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import capid, capid_split  # noqa: E402
from enforcers.query_rewrite.need import KINDS, kind_of  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING  # noqa: E402
from enforcers.query_rewrite.units import MATCH, MODEL_FILE, candidates, greedy, unit_features, word_f1  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "enforcers" / "query_rewrite" / MODEL_FILE
FOLDS = 5
C = 0.5
#: Recall of labelled spans the shipped threshold must keep (out of fold).
RECALL = 0.85
THRESHOLDS = np.round(np.arange(0.1, 0.71, 0.05), 3)


def examples(cache: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[list[tuple[int, int]]], list[list[str]]]:
    """(features, unit labels, kind index per example (-1: no unit), query per example, candidate ranges per query,
    labelled span values per query), cached in ``cache``."""
    development, _ = capid_split(capid())
    docs, ranges_of, gold_of = [], [], []
    for q in development:
        doc = parse(q.text)
        docs.append(doc)
        ranges_of.append(candidates(doc, 0, len(q.context)))
        gold_of.append([s.value for s in q.spans if s.value.strip() and q.context.find(s.value) >= 0])
    if cache.is_file():
        data = np.load(cache)
        return data["x"], data["y"], data["kind"], data["group"], ranges_of, gold_of
    embedder = load_embedder(EMBEDDING)
    xs, ys, kinds, groups = [], [], [], []
    for g, (q, doc) in enumerate(zip(development, docs)):
        ranges = ranges_of[g]
        spans = [s for s in q.spans if s.value in gold_of[g]]
        xs.append(unit_features(embedder, doc, ranges))
        for r0, r1 in ranges:
            best = max(spans, key=lambda s: word_f1(q.text[r0:r1], s.value), default=None)
            unit = best is not None and word_f1(q.text[r0:r1], best.value) >= MATCH
            ys.append(int(unit))
            kinds.append(KINDS.index(kind_of(best.type)) if unit else -1)
            groups.append(g)
        if g % 100 == 0:
            print(f"  features: {g}/{len(development)} queries", file=sys.stderr)
    x, y, kind, group = np.vstack(xs), np.array(ys), np.array(kinds), np.array(groups)
    np.savez(cache, x=x, y=y, kind=kind, group=group)
    return x, y, kind, group, ranges_of, gold_of


def curve(probability: np.ndarray, group: np.ndarray, ranges_of: list, gold_of: list, texts: list[str]) -> list[tuple[float, float, float, float]]:
    """(threshold, recall of labelled spans, precision of chosen units, chosen units per query) at every threshold."""
    points = []
    for t in THRESHOLDS:
        found = total = matched = chosen_n = 0
        for g, (ranges, gold) in enumerate(zip(ranges_of, gold_of)):
            values = [texts[g][ranges[i][0] : ranges[i][1]] for i in greedy(probability[group == g], ranges, t)]
            total += len(gold)
            found += sum(any(word_f1(v, s) >= 0.5 for v in values) for s in gold)
            chosen_n += len(values)
            matched += sum(any(word_f1(v, s) >= 0.5 for s in gold) for v in values)
        points.append((float(t), found / max(1, total), matched / max(1, chosen_n), chosen_n / len(ranges_of)))
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/qr_units.npz"), help="feature cache (outside the repository)")
    args = parser.parse_args()
    x, y, kind, group, ranges_of, gold_of = examples(args.cache)
    texts = [q.text for q in capid_split(capid())[0]]
    print(f"development: {len(ranges_of)} queries, {len(y)} candidates, {int(y.sum())} units")
    scores = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=FOLDS).split(x, y, group):
        scores[test] = LogisticRegression(C=C, max_iter=3000).fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    print(f"out-of-fold ({FOLDS} folds by query) AUC {roc_auc_score(y, scores):.3f}")
    print("  threshold  recall  precision  units/query")
    points = curve(scores, group, ranges_of, gold_of, texts)
    for t, recall, precision, per in points:
        print(f"  {t:.2f}  {recall:.3f}  {precision:.3f}  {per:.2f}")
    threshold = max((t for t, recall, _, _ in points if recall >= RECALL), default=float(THRESHOLDS[0]))
    units = kind >= 0
    kind_scores = np.zeros(int(units.sum()), dtype=int)
    for train, test in GroupKFold(n_splits=FOLDS).split(x[units], kind[units], group[units]):
        kind_scores[test] = LogisticRegression(C=C, max_iter=3000).fit(x[units][train], kind[units][train]).predict(x[units][test])
    print(f"threshold {threshold:.2f} (highest with recall >= {RECALL}); kind accuracy out of fold {(kind_scores == kind[units]).mean():.3f}")
    unit_model = LogisticRegression(C=C, max_iter=3000).fit(x, y)
    kind_model = LogisticRegression(C=C, max_iter=3000).fit(x[units], kind[units])
    present = [KINDS[int(k)] for k in kind_model.classes_]
    np.savez_compressed(
        OUT, coef=unit_model.coef_[0].astype(np.float32), intercept=np.float32(unit_model.intercept_[0]), threshold=np.float32(threshold),
        kinds=np.array(present), kind_coef=kind_model.coef_.astype(np.float32), kind_intercept=kind_model.intercept_.astype(np.float32),
    )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
