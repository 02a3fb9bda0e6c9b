"""Fit the case-blind person-name word classifier (:mod:`policy_engine.nlp.name_tagger`), deterministically.

Examples are words (:func:`~policy_engine.nlp.name_tagger.words`) labelled person name or not, from

* WNUT-17's training file (``wnut17train.conll``) and development file (``emerging.dev.conll``): noisy user text
  (Twitter, Reddit, YouTube, Stack Overflow) with ``B-/I-person`` tags; the test file is never read;
* CAPID's development part (:func:`bench.query_rewrite.corpora.capid_split`): the disclosures holding a span of type
  ``name``; a word inside a name span is a name, every other word of those disclosures is not (CAPID labels every
  PII span).

The threshold rule, fixed before fitting: fit on WNUT train + CAPID development, score WNUT dev's words, and take the
lowest candidate threshold whose word precision on WNUT dev reaches ``PRECISION`` (a word wrongly taken for a name
becomes a placeholder and may cost the answer).  The shipped regression is refitted on all three sources.

Usage: ``python training/query_rewrite/fit_names.py`` writes ``policy_engine/nlp/name_model.npz`` and prints
AUC, Brier score, and precision / recall per threshold on WNUT dev (also for names typed in lower case or all caps).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss, roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.detect.corpora import conll_docs  # noqa: E402
from bench.query_rewrite.corpora import CORPORA, capid, capid_split  # noqa: E402
from policy_engine.nlp.embedding import Embedder, load_embedder  # noqa: E402
from policy_engine.nlp.name_tagger import EMBEDDING, MODEL, word_features  # noqa: E402

OUT = MODEL
WNUT_TRAIN = CORPORA / "wnut17" / "wnut17train.conll"
WNUT_DEV = CORPORA / "wnut17" / "emerging.dev.conll"
THRESHOLDS = np.round(np.arange(0.3, 0.951, 0.05), 2)
#: Word precision on WNUT dev the threshold must reach.
PRECISION = 0.8
C = 1.0


def conll(path: Path) -> list[tuple[str, list[tuple[int, int]]]]:
    """(text, person-name character ranges) per sentence of a WNUT-17 CoNLL file (:func:`bench.detect.corpora.conll_docs`)."""
    return [(d.text, [(s, e) for s, e, category in d.spans if category == "PERSON"]) for d in conll_docs(path, "wnut17", path.stem)]


def capid_names() -> list[tuple[str, list[tuple[int, int]]]]:
    """(disclosure, name ranges) of each development disclosure holding a CAPID ``name`` span (every occurrence)."""
    development, _ = capid_split(capid())
    spans: dict[str, set[str]] = {}
    for q in development:
        names = {s.value for s in q.spans if s.type == "name" and s.value.strip()}
        if names:
            spans.setdefault(q.context, set()).update(names)
    out = []
    for context, names in spans.items():
        ranges = []
        for name in names:
            at = context.find(name)
            while at >= 0:
                ranges.append((at, at + len(name)))
                at = context.find(name, at + 1)
        out.append((context, ranges))
    return out


def design(embedder: Embedder, rows: list[tuple[str, list[tuple[int, int]]]]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(features, labels, word text) of every word of ``rows``."""
    xs, ys, texts = [], [], []
    for (text, names), (ranges, x) in zip(rows, word_features(embedder, [t for t, _ in rows])):
        xs.append(x)
        ys += [int(any(n0 <= s < n1 for n0, n1 in names)) for s, _ in ranges]
        texts += [text[s:e] for s, e in ranges]
    return np.vstack(xs), np.array(ys), texts


def main() -> None:
    embedder = load_embedder(EMBEDDING)
    train, dev, capid_rows = conll(WNUT_TRAIN), conll(WNUT_DEV), capid_names()
    x_train, y_train, _ = design(embedder, train + capid_rows)
    x_dev, y_dev, dev_words = design(embedder, dev)
    print(f"words: fit {len(y_train)} ({int(y_train.sum())} names; WNUT train {len(train)} sentences, CAPID {len(capid_rows)} disclosures), "
          f"WNUT dev {len(y_dev)} ({int(y_dev.sum())} names)")
    model = LogisticRegression(C=C, max_iter=3000, class_weight=None).fit(x_train, y_train)
    p = model.predict_proba(x_dev)[:, 1]
    print(f"WNUT dev: AUC {roc_auc_score(y_dev, p):.3f}, Brier {brier_score_loss(y_dev, p):.4f} (base rate {y_dev.mean():.4f})")
    uncased = np.array([w.islower() or (w.isupper() and len(w) > 1) for w in dev_words])
    threshold = None
    print("  threshold precision recall recall(lower/all-caps names)")
    for t in THRESHOLDS:
        found = p >= t
        precision = float(y_dev[found].mean()) if found.any() else 1.0
        recall = float(found[y_dev == 1].mean())
        low = found[(y_dev == 1) & uncased]
        print(f"  {t:.2f}      {precision:.3f}     {recall:.3f}  {low.mean() if low.size else float('nan'):.3f} (n={low.size})")
        if threshold is None and precision >= PRECISION:
            threshold = float(t)
    threshold = threshold if threshold is not None else float(THRESHOLDS[-1])
    print(f"rule: lowest threshold with WNUT dev word precision >= {PRECISION}: {threshold:.2f}")
    final = LogisticRegression(C=C, max_iter=3000).fit(np.vstack([x_train, x_dev]), np.concatenate([y_train, y_dev]))
    np.savez_compressed(OUT, coef=final.coef_[0].astype(np.float32), intercept=np.float32(final.intercept_[0]), threshold=np.float32(threshold))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
