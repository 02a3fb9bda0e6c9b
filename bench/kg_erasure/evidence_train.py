"""Train kg_erasure's default fact-evidence judge on SynthPAI development threads; writes enforcers/kg_erasure/fact_evidence_model.npz.

    PYTHONPATH=$PWD python bench/kg_erasure/evidence_train.py [--seed 31] [--target 0.05]

A sentence about a private fact's subject is *evidence* of the fact when it
states or directly implies it.  The default judge (:class:`FactJudge` in
``enforcers/kg_erasure/evidence.py``) combines two scores of a sentence:

* the *relatedness* of the sentence to the fact's verbalization (cosine in
  the shared embedder's space), relation-agnostic: it applies to any
  relation, including ones SynthPAI has no attribute for (``diagnosed_with``);
* the per-attribute sentence model of ``attribute_train.py`` (its calibrated
  log-odds), where the fact's relation names one of its attributes.

Subject linkage is the eraser's: only sentences about the subject (naming
them, a pronoun resolved to them, the speaker's first person, or naming no
other person) are judged at all.

Two logistic regressions on those features ("attribute" branch: log-odds and
cosine; "relatedness" branch: cosine alone, for relations without an
attribute), fitted as a multiple-instance problem like the attribute model
(witness sentences of revealing comments against every sentence of the
author's non-revealing comments), Platt-calibrated on a comment's highest
out-of-fold sentence score (folds by development thread).  Operating point:
one probability threshold per attribute (attribute branch) and one for the
relatedness branch, each the most words kept with the one-sided 95% upper
bound of the development revealing comments still revealing (both judges of
``judges.py`` at 5% false positives) at most ``--target``.

The relatedness branch is validated for relations it was not fitted on by
leave-one-attribute-out on development: fitted and thresholded without an
attribute's tasks, then scored on that attribute's tasks (reported in
``bench/results/kg_erasure_fact_evidence.json``).  The hand-written
multi-document set is never read here.  The validation threads are never read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import external
from attribute_train import FOLDS, GRID, _counts, allowed_misses, choose_thresholds, development_sentences, out_of_fold
from judges import MIN_POSITIVES, judges

MODEL = Path(__file__).resolve().parents[2] / "enforcers" / "kg_erasure" / "fact_evidence_model.npz"
RESULTS = Path(__file__).resolve().parents[1] / "results"
ROUNDS = 3


def fit_witness(features: np.ndarray, comment: np.ndarray, revealing: np.ndarray, start: np.ndarray) -> Any:
    """Multiple-instance logistic regression over (task, sentence) rows: the highest-scoring sentence of each revealing comment
    (``comment`` ids are per task) against every sentence of the non-revealing ones; ``start`` ranks the first round."""
    from sklearn.linear_model import LogisticRegression

    z = start
    model = None
    for _ in range(ROUNDS):
        witness = np.zeros(len(z), dtype=bool)
        for c in np.unique(comment[revealing]):
            members = np.flatnonzero(comment == c)
            witness[members[np.argmax(z[members])]] = True
        use = witness | ~revealing
        model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit(features[use], witness[use])
        z = model.decision_function(features)
    return model


def main() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--target", type=float, default=0.05)
    args = parser.parse_args()
    dev, units, comment_of, sentence_fold = development_sentences(args.seed)
    embed = external.Embeddings()
    x = embed([s for _, s in units])
    profiles = json.loads((external.CORPUS / "user_bot_profiles_300.json").read_text())
    dev_tasks = external.tasks(dev, profiles)
    statements = {name: embed([getattr(t["fact"], name)() for t in dev_tasks]) for name in ("verbalized", "statement")}
    embed.save()

    # Out-of-fold calibrated log-odds of the attribute model per attribute and sentence.
    attribute_logit: dict[str, np.ndarray] = {}
    for attribute in external.RELATIONS:
        revealing = np.array([attribute in c["reveals"] for c in dev])
        if revealing.sum() < MIN_POSITIVES:
            continue
        z, top = out_of_fold(x, comment_of, revealing, sentence_fold, None)
        platt = LogisticRegression(C=1e6, max_iter=2000).fit(top[:, None], revealing)
        attribute_logit[attribute] = platt.coef_[0][0] * z + platt.intercept_[0]

    sentences_of: dict[int, list[int]] = {}
    for u, ci in enumerate(comment_of):
        sentences_of.setdefault(int(ci), []).append(u)
    rows = [(k, u) for k, t in enumerate(dev_tasks) for i in t["comments"] for u in sentences_of[i]]
    task_of = np.array([k for k, _ in rows])
    unit_of = np.array([u for _, u in rows])
    comment_key = task_of * len(dev) + comment_of[unit_of]
    revealing = np.array([dev_tasks[k]["attribute"] in dev[comment_of[u]]["reveals"] for k, u in rows])
    fold = sentence_fold[unit_of]
    has_attribute = np.array([dev_tasks[k]["attribute"] in attribute_logit for k in task_of])
    logit = np.array([attribute_logit[dev_tasks[k]["attribute"]][u] if h else 0.0 for (k, u), h in zip(rows, has_attribute)])

    def comment_auc(score: np.ndarray, mask: np.ndarray) -> float:
        keys, inverse = np.unique(comment_key[mask], return_inverse=True)
        top = np.full(len(keys), -np.inf)
        np.maximum.at(top, inverse, score[mask])
        label = np.zeros(len(keys), dtype=bool)
        label[inverse] = revealing[mask]
        return float(roc_auc_score(label, top))

    cosines = {name: np.einsum("ij,ij->i", x[unit_of], vecs[task_of]) for name, vecs in statements.items()}
    auc_of_verbalization = {name: round(comment_auc(c, np.ones(len(c), dtype=bool)), 4) for name, c in cosines.items()}
    verbalization = max(auc_of_verbalization, key=auc_of_verbalization.__getitem__)
    cos = cosines[verbalization]
    branches = {"attribute": (np.column_stack([logit, cos]), has_attribute), "relatedness": (cos[:, None], np.ones(len(cos), dtype=bool))}

    def fit_branch(features: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """Out-of-fold sentence log-odds (Platt-calibrated on comment maxima) and the all-development weights with the calibration folded in."""
        z = np.full(len(features), -np.inf)
        for k in np.unique(fold):
            train, test = mask & (fold != k), mask & (fold == k)
            model = fit_witness(features[train], comment_key[train], revealing[train], features[train][:, 0])
            z[test] = model.decision_function(features[test])
        keys, inverse = np.unique(comment_key[mask], return_inverse=True)
        top = np.full(len(keys), -np.inf)
        np.maximum.at(top, inverse, z[mask])
        label = np.zeros(len(keys), dtype=bool)
        label[inverse] = revealing[mask]
        platt = LogisticRegression(C=1e6, max_iter=2000).fit(top[:, None], label)
        a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
        final = fit_witness(features[mask], comment_key[mask], revealing[mask], features[mask][:, 0])
        return a * final.coef_[0], a * float(final.intercept_[0]) + b, np.where(mask, a * z + b, -np.inf)

    panel = judges(dev, list(external.RELATIONS), embed, folds=FOLDS, seed=args.seed)
    total_revealing = sum(t["attribute"] in dev[i]["reveals"] for t in dev_tasks for i in t["comments"])

    def emulated(task_ids: list[int], drop: np.ndarray) -> list[list[str]]:
        """The authors' comments with the dropped (task, sentence) rows and any sentence naming the value left out."""
        dropped = set(zip(task_of[drop].tolist(), unit_of[drop].tolist()))
        return [[" ".join(units[u][1] for u in sentences_of[i] if (k, u) not in dropped and not external.literal_reveals(units[u][1], dev_tasks[k]["value"]))
                 for i in dev_tasks[k]["comments"]] for k in task_ids]

    def operating_point(probability: np.ndarray, task_ids: list[int], per_attribute: bool, fixed: dict[str, float] | None = None) -> dict[str, float]:
        """Thresholds (per attribute, or one for ``all``) keeping the most words within the development bound; ``fixed`` groups are not swept."""
        groups: dict[str, list[int]] = {}
        for k in task_ids:
            groups.setdefault(dev_tasks[k]["attribute"] if per_attribute else "all", []).append(k)
        counts = {g: {th: _counts([dev_tasks[k] for k in ks], dev, emulated(ks, probability >= th), panel)
                      for th in ([fixed[g]] if fixed and g in fixed else GRID)} for g, ks in groups.items()}
        n = sum(t["attribute"] in dev[i]["reveals"] for k in task_ids for t in [dev_tasks[k]] for i in t["comments"])
        return choose_thresholds(counts, allowed_misses(n, args.target))

    report: dict[str, Any] = {"command": "PYTHONPATH=$PWD python bench/kg_erasure/evidence_train.py " + " ".join(sys.argv[1:]),
                              "verbalization_comment_auc": auc_of_verbalization, "verbalization": verbalization,
                              "dev_revealing_comments": total_revealing, "allowed_still_revealing_on_dev": allowed_misses(total_revealing, args.target)}
    weights, probability = {}, {}
    for name, (features, mask) in branches.items():
        w, b, oof = fit_branch(features, mask)
        weights[name] = (w, b)
        probability[name] = 1.0 / (1.0 + np.exp(-oof))
        report[f"{name}_weights"] = {"coef": [round(float(v), 4) for v in w], "intercept": round(b, 4)}
        report[f"{name}_comment_auc_out_of_fold"] = round(comment_auc(oof, mask), 4)
    report["attribute_model_alone_comment_auc_out_of_fold"] = round(comment_auc(logit, has_attribute), 4)
    all_tasks = list(range(len(dev_tasks)))
    combined = np.where(has_attribute, probability["attribute"], probability["relatedness"])
    relatedness_threshold = operating_point(probability["relatedness"], all_tasks, per_attribute=False)["all"]
    thresholds = operating_point(combined, all_tasks, per_attribute=True,
                                 fixed={t["attribute"]: relatedness_threshold for t in dev_tasks if t["attribute"] not in attribute_logit})
    report["thresholds"] = thresholds
    report["relatedness_threshold"] = relatedness_threshold
    chosen = np.array([thresholds[dev_tasks[k]["attribute"]] for k in task_of])
    report["dev_out_of_fold_emulated"] = {
        "default judge": external.score(dev_tasks, dev, emulated(all_tasks, combined >= chosen), panel),
        f"relatedness alone at {relatedness_threshold}": external.score(dev_tasks, dev, emulated(all_tasks, probability["relatedness"] >= relatedness_threshold), panel)}
    held_out = {}
    for attribute in sorted({t["attribute"] for t in dev_tasks}):
        inside = np.array([dev_tasks[k]["attribute"] != attribute for k in task_of])
        w, b, oof = fit_branch(cos[:, None], inside)
        th = operating_point(1.0 / (1.0 + np.exp(-oof)), [k for k in all_tasks if dev_tasks[k]["attribute"] != attribute], False)["all"]
        ks = [k for k in all_tasks if dev_tasks[k]["attribute"] == attribute]
        s = external.score([dev_tasks[k] for k in ks], dev, emulated(ks, 1.0 / (1.0 + np.exp(-(w[0] * cos + b))) >= th), panel)
        held_out[attribute] = {"threshold": th, "revealing_comments": s["revealing_comments"],
                               **{key: s[key] for key in ("still_revealing_lexical FPR 0.05", "still_revealing_classifier FPR 0.05", "non_private_words_kept")}}
    report["relatedness_leave_one_attribute_out"] = held_out
    classes = sorted(attribute_logit)
    np.savez(MODEL, verbalization=np.array(verbalization), attribute_coef=weights["attribute"][0].astype(np.float32),
             attribute_intercept=np.float32(weights["attribute"][1]), relatedness_coef=weights["relatedness"][0].astype(np.float32),
             relatedness_intercept=np.float32(weights["relatedness"][1]), classes=np.array(classes),
             thresholds=np.array([thresholds.get(c, relatedness_threshold) for c in classes], dtype=np.float32),
             relatedness_threshold=np.float32(relatedness_threshold))
    (RESULTS / "kg_erasure_fact_evidence.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
