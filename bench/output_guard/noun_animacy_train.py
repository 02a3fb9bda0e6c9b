"""Train the common-noun animacy model of the output guard (does a noun denote a person?) on CAPID; writes
policy_engine/nlp/noun_animacy_model.npz.

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/noun_animacy_train.py

CAPID (../shared/corpora/capid/, another team's labels) types the personal
details of 2,107 self-disclosures.  The head noun of a span typed
``occupation`` or ``relationship`` ("youth program coordinator", "my
husband") denotes a person; the head noun of a ``health``, ``finance``,
``education``, ``location``, ``organization``, ``datetime``, ``code``,
``appearance`` or ``belief`` span ("chronic pain", "mortgage", "screening")
does not.  Rows are split by self-disclosure (seeded) into development and
validation halves; a logistic regression over the shared sentence embedder's
vector of the noun's lemma is fitted on the development half, its veto
threshold chosen there (out-of-fold) so that at most :data:`PERSON_LOSS` of
person nouns fall below it, and both are reported on the validation half.
Results go to bench/results/noun_animacy.{json,md}.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from policy_engine.nlp.animacy import NOUN_MODEL
from policy_engine.nlp.embedding import load_embedder
from policy_engine.nlp.pipeline import parse
from policy_engine.policy.model import EmbeddingSettings

CAPID = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "capid" / "train.jsonl"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "noun_animacy"
PERSON = {"occupation", "relationship"}
THING = {"health", "finance", "education", "location", "organization", "datetime", "code", "appearance", "belief"}
SEED = 32
PERSON_LOSS = 0.02  # share of development person nouns the veto may take


def head_nouns(rows: list[dict]) -> dict[str, int]:
    """Lemma of each typed span's head noun -> 1 (person) / 0 (thing), by majority over the rows' spans."""
    spans = [(text, 1 if info["type"] in PERSON else 0) for row in rows for text, info in row["piis"].items() if info["type"] in PERSON | THING]
    votes: dict[str, Counter[int]] = {}
    for (_, label), doc in zip(spans, parse([t for t, _ in spans])):
        root = doc[:].root
        if root.pos_ == "NOUN" and root.is_alpha:
            votes.setdefault(root.lemma_.casefold(), Counter())[label] += 1
    return {lemma: count.most_common(1)[0][0] for lemma, count in votes.items()}


def main() -> None:
    command = "OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/noun_animacy_train.py"
    print(command, "| load average", os.getloadavg())
    rows = [json.loads(line) for line in CAPID.read_text(encoding="utf-8").splitlines()]
    random.Random(SEED).shuffle(rows)
    development, validation = head_nouns(rows[: len(rows) // 2]), head_nouns(rows[len(rows) // 2 :])
    validation = {w: y for w, y in validation.items() if w not in development}  # nouns never seen in fitting
    embedder = load_embedder(EmbeddingSettings(precision="float32"))
    words = sorted(development)
    x, y = embedder.embed(words), np.asarray([development[w] for w in words])
    folds = np.arange(len(words)) % 5
    out_of_fold = np.zeros(len(words))
    for k in range(5):
        model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit(x[folds != k], y[folds != k])
        out_of_fold[folds == k] = model.predict_proba(x[folds == k])[:, 1]
    veto_below = float(np.quantile(out_of_fold[y == 1], PERSON_LOSS))
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit(x, y)
    np.savez(NOUN_MODEL, coef=model.coef_[0].astype(np.float32), intercept=np.float32(model.intercept_[0]), veto_below=np.float32(veto_below))
    held = sorted(validation)
    p = model.predict_proba(embedder.embed(held))[:, 1]
    yv = np.asarray([validation[w] for w in held])
    result = {"command": command, "development_nouns": {"person": int(y.sum()), "thing": int(len(y) - y.sum())},
              "validation_nouns": {"person": int(yv.sum()), "thing": int(len(yv) - yv.sum())}, "veto_below": round(veto_below, 4),
              "validation_auroc": round(float(roc_auc_score(yv, p)), 4),
              "validation_person_nouns_vetoed": round(float(np.mean(p[yv == 1] < veto_below)), 4),
              "validation_thing_nouns_vetoed": round(float(np.mean(p[yv == 0] < veto_below)), 4),
              "examples": {w: round(float(q), 3) for w, q in zip(("screening", "exercise", "patient", "nurse", "husband", "client", "diagnosis"),
                                                                 model.predict_proba(embedder.embed(["screening", "exercise", "patient", "nurse", "husband", "client", "diagnosis"]))[:, 1])}}
    RESULTS.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    RESULTS.with_suffix(".md").write_text(
        "# Common-noun animacy (person or not) on CAPID head nouns\n\n"
        f"`{command}` (load average {[round(v, 2) for v in os.getloadavg()]})\n\n"
        "| part | person nouns | thing nouns | AUROC | person nouns vetoed | thing nouns vetoed |\n|---|---|---|---|---|---|\n"
        f"| validation (nouns unseen in fitting) | {result['validation_nouns']['person']} | {result['validation_nouns']['thing']} | {result['validation_auroc']} "
        f"| {result['validation_person_nouns_vetoed']} | {result['validation_thing_nouns_vetoed']} |\n\n"
        f"Veto below P(person) = {result['veto_below']} (development out-of-fold, at most {PERSON_LOSS:.0%} of person nouns). Examples: {result['examples']}\n",
        encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.exit(main())
