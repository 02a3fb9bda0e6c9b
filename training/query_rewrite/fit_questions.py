"""Fit the asked-question model (:func:`enforcers.query_rewrite.learned.shared_question_detector`) on CAPID's
development part, deterministically.

Every development query is parsed as the rewriter parses it (the disclosure, then the question); each of its sentences
that ends in a question mark is one example, read as the request detector reads a sentence (without a line label or a
chat prefix): 1 when it is the question CAPID's user asked, 0 when it is a question the user asks of themselves inside
the disclosure ("My paycheck? Barely enough.", "And did I mention I'm Syrian?").  Features are the task classifier's
(:func:`~enforcers.query_rewrite.task.features`: MiniLM embedding and hashed word n-grams), the model a logistic
regression.  Cross-validation is grouped by context (5 folds); the out-of-fold probabilities give the reported AUC and
the threshold: the highest at which at least ``KEPT`` of the asked questions stay requests (a question taken for
context loses the request, which costs more than a rhetorical one taken for a request).  The regression is then refitted
on every development example.

Usage: ``python training/query_rewrite/fit_questions.py`` writes ``enforcers/query_rewrite/question_model.npz`` and prints
the figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.query_rewrite.corpora import capid, capid_split  # noqa: E402
from enforcers.query_rewrite.learned import QUESTION_FILE  # noqa: E402
from enforcers.query_rewrite.request_roles import detector_text, is_question  # noqa: E402
from enforcers.query_rewrite.sentence_starts import parse  # noqa: E402
from enforcers.query_rewrite.task import EMBEDDING, features  # noqa: E402
from policy_engine.nlp.embedding import load_embedder  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "enforcers" / "query_rewrite" / QUESTION_FILE
FOLDS = 5
C = 1.0
#: Share of the asked questions (out of fold) the shipped threshold keeps as requests.
KEPT = 0.995


def examples() -> tuple[list[str], np.ndarray, np.ndarray]:
    """(sentence texts, labels, context group) of every question-marked sentence of the development queries."""
    texts, labels, groups = [], [], []
    for group, query in enumerate(capid_split(capid())[0]):
        for sentence in parse(query.text).sents:
            if is_question(sentence.text):
                texts.append(detector_text(sentence.text))
                labels.append(int(sentence.start_char >= len(query.context)))
                groups.append(group)
    return texts, np.asarray(labels), np.asarray(groups)


def main() -> None:
    texts, labels, groups = examples()
    x = features(texts, load_embedder(EMBEDDING)).astype(np.float64)
    out_of_fold = np.zeros(len(texts))
    for train, test in GroupKFold(FOLDS).split(x, labels, groups):
        model = LogisticRegression(C=C, max_iter=2000).fit(x[train], labels[train])
        out_of_fold[test] = model.predict_proba(x[test])[:, 1]
    asked = np.sort(out_of_fold[labels == 1])
    threshold = float(asked[int(np.floor((1.0 - KEPT) * len(asked)))])
    rhetorical = out_of_fold[labels == 0]
    print(f"examples {len(texts)} (asked {int(labels.sum())}, of the disclosure {int((labels == 0).sum())})")
    print(f"out-of-fold AUC {roc_auc_score(labels, out_of_fold):.3f}; threshold {threshold:.3f}: asked kept "
          f"{float(np.mean(out_of_fold[labels == 1] >= threshold)):.3f}, questions of the disclosure caught {float(np.mean(rhetorical < threshold)):.3f}")
    final = LogisticRegression(C=C, max_iter=2000).fit(x, labels)
    np.savez(OUT, coef=final.coef_[0].astype(np.float32), intercept=np.float32(final.intercept_[0]), threshold=np.float32(threshold))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
