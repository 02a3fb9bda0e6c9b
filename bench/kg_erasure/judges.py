"""Judges of "this comment still reveals the author's attribute" for bench/kg_erasure/external.py, trained on development comments.

Two per-attribute logistic regressions (revealing vs. not, the dataset's own
per-comment tag) over different features:

* ``classifier`` reads the shared sentence embedder's vector of the comment:
  the eraser's judges' feature space, so not independent of them (optimistic
  when the eraser removed what this judge sees);
* ``lexical`` reads TF-IDF word 1-2-grams and character 2-5-grams
  (scikit-learn), no embedder: an independent second opinion.

Each judge has two operating points, both from 5-fold cross-validated scores
on its training comments: *recall 0.90* (flags 90% of the revealing ones:
sensitive, but it also flags much of what authors say about themselves) and
*FPR 0.05* (flags 5% of the non-revealing ones: a revealing comment it still
flags after erasure is distinguishable from the author's ordinary comments).
:func:`judges` trains them on all development comments (to judge validation)
or cross-fitted by development thread (to judge development comments out of
fold when an operating point is chosen there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

RECALL = 0.90
FPR = 0.05
MIN_POSITIVES = 5
#: texts, attribute, the original comment texts they came from -> reveals?
Judge = Callable[[Sequence[str], str, Sequence[str]], list[bool]]


def embedding_features(embed: Callable[[list[str]], np.ndarray]) -> Callable[[Sequence[dict[str, Any]]], Callable[[list[str]], Any]]:
    return lambda comments: embed


def lexical_features(comments: Sequence[dict[str, Any]]) -> Callable[[list[str]], Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import FeatureUnion

    union = FeatureUnion([("words", TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)),
                          ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True))])
    union.fit([c["text"] for c in comments])
    return union.transform


class PerAttribute:
    """One logistic regression per attribute over ``featurize``'d comments, with its recall-0.90 and FPR-0.05 thresholds."""

    def __init__(self, comments: Sequence[dict[str, Any]], attributes: Sequence[str], featurize: Callable[[list[str]], Any]) -> None:
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import cross_val_predict

        self.featurize = featurize
        x = featurize([c["text"] for c in comments])
        self.models: dict[str, tuple[Any, dict[str, float]]] = {}
        for attribute in attributes:
            y = np.array([attribute in c["reveals"] for c in comments])
            if y.sum() < MIN_POSITIVES:
                continue
            model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
            p = cross_val_predict(model, x, y, cv=5, method="predict_proba")[:, 1]
            self.models[attribute] = (model.fit(x, y), {"recall": float(np.quantile(p[y], 1.0 - RECALL)),
                                                        "fpr": float(np.quantile(p[~y], 1.0 - FPR))})

    def reveals(self, texts: Sequence[str], attribute: str, point: str) -> list[bool]:
        """Whether each text is judged to reveal ``attribute`` at operating point ``point`` (an empty text never does)."""
        if attribute not in self.models or not texts:
            return [False] * len(texts)
        model, thresholds = self.models[attribute]
        p = model.predict_proba(self.featurize([t if t.strip() else "." for t in texts]))[:, 1]
        return [bool(t.strip()) and bool(q >= thresholds[point]) for t, q in zip(texts, p)]


def judges(comments: Sequence[dict[str, Any]], attributes: Sequence[str], embed: Callable[[list[str]], np.ndarray],
           folds: int = 0, seed: int = 0) -> dict[str, Judge]:
    """The four judges (classifier/lexical x recall 0.90/FPR 0.05); ``folds`` > 1: cross-fitted by thread, each comment judged by
    the models trained without its thread (a rewritten text is routed by the original comment it came from)."""
    import random

    threads = sorted({c["thread"] for c in comments})
    random.Random(seed).shuffle(threads)
    fold_of = {t: (i % folds if folds > 1 else 0) for i, t in enumerate(threads)}
    groups = range(folds) if folds > 1 else [None]
    route = {c["text"]: fold_of[c["thread"]] for c in comments}
    out: dict[str, Judge] = {}
    for name, features in (("classifier", embedding_features(embed)), ("lexical", lexical_features)):
        models = {}
        for g in groups:
            train = [c for c in comments if g is None or fold_of[c["thread"]] != g]
            models[g] = PerAttribute(train, attributes, features(train))
        for point, label in (("recall", name), ("fpr", f"{name} FPR 0.05")):
            out[label] = _routed(models, route if folds > 1 else None, point)
    return out


def _routed(models: dict[Any, PerAttribute], route: dict[str, int] | None, point: str) -> Judge:
    def judge(texts: Sequence[str], attribute: str, origins: Sequence[str]) -> list[bool]:
        if route is None:
            return models[None].reveals(texts, attribute, point)
        out = [False] * len(texts)
        for g, model in models.items():
            members = [k for k, o in enumerate(origins) if route[o] == g]
            for k, flag in zip(members, model.reveals([texts[k] for k in members], attribute, point)):
                out[k] = flag
        return out

    return judge
