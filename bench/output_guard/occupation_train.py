"""Train the output guard's occupation classifiers on CAPID contexts: verb phrases (``--kind verb``) or job nouns (``--kind noun``).

An occupation is often said with a verb ("runs a restaurant", "pulling night shifts", "teach elementary school"), or
with a job noun no lexicon lists ("solar installer", "ranch hand"): CAPID's annotators typed such spans
``occupation`` in the self-disclosures they labelled (Ponomarenko et al. 2026).  Candidates are the verb phrases of
each context (:func:`enforcers.output_guard.learned_qi.verb_phrases`: a verb with the first complement it governs) or
its noun phrases (:func:`enforcers.output_guard.occupations.job_noun_phrases`: a noun with the modifiers before it); one
is an occupation when it shares at least half of the shorter of the two with a span typed ``occupation``, else none.
Only contexts with an occupation span are read (their other phrases are the negatives: what else people say they do,
or are).  Contexts are split 50/50 by a seeded shuffle; features are the shared embedder's vector of the phrase and of
its verb's (head noun's) lemma alone (the object dominates a verb phrase's vector: "takes the bus" lay by "drives a
bus"); a logistic regression (balanced classes, C by out-of-fold AUROC over folds grouped by context).  Its threshold is
the lowest at which at most the kind's false rate (:data:`KINDS`) of the development non-occupation phrases (out of
fold) pass; the validation part is reported at it.  A noun is read in every sentence, most nouns are no job, so the
noun model's rate is the stricter.

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/occupation_train.py --kind verb|noun

writes enforcers/output_guard/occupation_{verb,noun}_model.npz (the weights over the phrase's vector then the lemma's,
the intercept, C and the threshold) and bench/results/occupation_{verb,noun}.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from bench.output_guard.qi_span_train import phrase_vectors
from enforcers.output_guard.learned_qi import verb_phrases
from enforcers.output_guard.occupations import MODEL, NOUN_MODEL, head_lemma, job_noun_phrases, verb_lemma
from policy_engine.nlp.pipeline import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc

SEED = 32
FOLDS = 5
C_GRID = (10.0, 1.0, 0.1)
CAPID = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "capid" / "train.jsonl"
#: Per kind: the candidates of a parsed context, the lemma each is read with, where the model goes, the false rate.
KINDS: dict[str, tuple[Callable[[Doc], list[tuple[int, int]]], Callable[[Doc, int, int], str], Path, float]] = {
    "verb": (verb_phrases, verb_lemma, MODEL, 0.05),
    "noun": (job_noun_phrases, head_lemma, NOUN_MODEL, 0.01),
}
CACHE = Path("/tmp/output_guard_occupation_phrase_vectors.npz")
RESULTS = Path(__file__).resolve().parents[1] / "results"


def contexts() -> tuple[dict[str, tuple[str, list[str]]], dict[str, tuple[str, list[str]]]]:
    """Development and validation contexts with an occupation span: id -> (context, its occupation spans)."""
    found = {}
    for i, line in enumerate(CAPID.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        spans = [k for k, v in record["piis"].items() if v["type"] == "occupation" and k in record["context"]]
        if spans:
            found[str(i)] = (record["context"], spans)
    order = sorted(found)
    random.Random(SEED).shuffle(order)
    held = set(order[: len(order) // 2])
    return {k: v for k, v in found.items() if k not in held}, {k: v for k, v in found.items() if k in held}


def labelled(part: dict[str, tuple[str, list[str]]], kind: str) -> tuple[list[str], list[str], np.ndarray, list[str]]:
    """The ``kind``'s phrases, their lemmas, occupation labels and owning context ids (see the module contract)."""
    candidates, lemma, _, _ = KINDS[kind]
    phrases, verbs, labels, owners = [], [], [], []
    for key, (text, occupations) in part.items():
        marked = [(m, m + len(o)) for o in occupations for m in [text.find(o)]]
        doc = parse([text])[0]
        for s, e in candidates(doc):
            overlap = max((min(e, qe) - max(s, qs)) / min(e - s, qe - qs) for qs, qe in marked)
            phrases.append(text[s:e])
            verbs.append(lemma(doc, s, e))
            labels.append(overlap >= 0.5)
            owners.append(key)
    return phrases, verbs, np.asarray(labels), owners


def matrix(phrases: list[str], verbs: list[str]) -> np.ndarray:
    """The model's input rows for ``phrases`` and their verbs' (head nouns') lemmas (vectors cached in :data:`CACHE`)."""
    vectors = phrase_vectors(phrases + verbs, CACHE)
    return np.hstack([np.asarray([vectors[p] for p in phrases]), np.asarray([vectors[v] for v in verbs])])


def fit(x: np.ndarray, y: np.ndarray, c: float) -> LogisticRegression:
    return LogisticRegression(C=c, max_iter=3000, class_weight="balanced").fit(x, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=sorted(KINDS), required=True)
    kind = parser.parse_args().kind
    _, _, path, false_rate = KINDS[kind]
    command = f"OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/occupation_train.py --kind {kind}"
    print(command, "| load average", os.getloadavg())
    development, validation = contexts()
    phrases, verbs, y, owners = labelled(development, kind)
    x = matrix(phrases, verbs)
    order = sorted(set(owners))
    np.random.RandomState(SEED).shuffle(order)
    fold = np.asarray([order.index(o) % FOLDS for o in owners])

    def out_of_fold(c: float) -> np.ndarray:
        held = np.zeros(len(y))
        for k in range(FOLDS):
            held[fold == k] = fit(x[fold != k], y[fold != k], c).predict_proba(x[fold == k])[:, 1]
        return held

    auroc = {c: roc_auc_score(y, out_of_fold(c)) for c in C_GRID}
    c = max(C_GRID, key=lambda g: (round(auroc[g], 3), -g))
    held = out_of_fold(c)
    threshold = float(np.quantile(held[~y], 1 - false_rate))
    model = fit(x, y, c)
    np.savez(path, coef=model.coef_[0].astype(np.float32), intercept=np.float64(model.intercept_[0]), c=np.float64(c), threshold=np.float64(threshold))
    v_phrases, v_verbs, v_y, _ = labelled(validation, kind)
    v_scores = model.predict_proba(matrix(v_phrases, v_verbs))[:, 1]
    report = {
        "development": {"phrases": len(y), "occupations": int(y.sum()), "out_of_fold_auroc_by_c": {str(k): round(v, 3) for k, v in auroc.items()},
                        "c": c, "threshold": round(threshold, 3), "recall_out_of_fold": round(float((held[y] >= threshold).mean()), 3)},
        "validation": {"phrases": len(v_y), "occupations": int(v_y.sum()), "auroc": round(float(roc_auc_score(v_y, v_scores)), 3),
                       "recall": round(float((v_scores[v_y] >= threshold).mean()), 3),
                       "false_rate": round(float((v_scores[~v_y] >= threshold).mean()), 3)},
    }
    results = RESULTS / f"occupation_{kind}"
    results.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    d, v = report["development"], report["validation"]
    results.with_suffix(".md").write_text(
        f"# {kind.capitalize()}-phrase occupation classifier (CAPID occupation spans, split by context, seed 32)\n\n"
        f"Features: the embedder's vector of the {kind} phrase and of its {'verb' if kind == 'verb' else 'head noun'}'s lemma.\n\n"
        f"`{command}`\n\n"
        f"| part | {kind} phrases | occupations | AUROC | recall at threshold | non-occupations passing |\n|---|---|---|---|---|---|\n"
        f"| development (out of fold) | {d['phrases']} | {d['occupations']} | {auroc[c]:.3f} | {d['recall_out_of_fold']} | {false_rate} (set) |\n"
        f"| validation | {v['phrases']} | {v['occupations']} | {v['auroc']} | {v['recall']} | {v['false_rate']} |\n\n"
        f"C = {c}, threshold {threshold:.3f}.\n", encoding="utf-8")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
