"""Why unsafe SPIA units rank below safe ones: the QI extractor's recall and attribution, and the out-of-fold ranking, on DEVELOPMENT units only.

(a) **Recall per SPIA tag kind.**  For each development answer unit and each
annotated subject, every tag with certainty >= ``CERTAIN`` whose keyword
occurs in the text the guard reads (after Layer 1) is a gold mention; it is
*found* when a mention the domain guard extracts overlaps an occurrence, and
*found as its class* when that mention's class is the tag's policy class.
**Attribution**: of the found mentions of one annotated subject, the share
given to that subject's most frequent guard person (a mention given to nobody
counts as wrong), and the share of pairs of found mentions of *different*
annotated subjects that the guard gives to different persons.

(b) **Out-of-fold ranking.**  The domain guard's score of each development
unit, each scored by the fold scorer fitted without its SPIA text
(``fit_default.py``'s folds and stacking); the out-of-fold AUROC unsafe vs
safe per domain (the acceptance measure of a change), and the unsafe units
scoring at or below the highest-scoring safe units, each with what the
extractor found for the annotated subject that makes it unsafe.

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/rank_diagnosis.py [--run NAME]

writes bench/results/output_guard_rank_diagnosis_<run>.json (the
figures; the hand-read diagnosis is bench/results/output_guard_rank_diagnosis.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external import POLICIES, build_guard  # noqa: E402
from fit_default import SEED, _held_out_masses, _out_of_fold, fit_shared  # noqa: E402
from qi_span_train import fold_weights  # noqa: E402
from spia_units import CERTAIN, POLICY_CLASS, SPIA, _parts, load_spia, split_by_text  # noqa: E402

from enforcers.output_guard.persons import Extraction  # noqa: E402
from enforcers.output_guard.scoring import FEATURES, features  # noqa: E402

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
#: SPIA tags that are quasi-identifiers (direct identifiers and empty tags left out).
QI_TAGS = ("AGE", "SEX", "LOCATION", "NATIONALITY", "OCCUPATION", "POSITION", "AFFILIATION", "RELATIONSHIP", "EDUCATION")


def _occurrences(text: str, keyword: str) -> list[tuple[int, int]]:
    """Where a part of ``keyword`` occurs in ``text`` (as a word start, case-blind)."""
    return [m.span() for p in _parts(keyword) for m in re.finditer(rf"\b{re.escape(p)}", text, re.IGNORECASE)]


def _annotations() -> dict[str, list[list[tuple[str, str]]]]:
    """Per SPIA text, per subject: (tag, keyword) of the QI tags at certainty >= CERTAIN."""
    found = {}
    for line in (SPIA / "spia_panorama_151.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        found[record["metadata"]["data_id"]] = [[(p["tag"], p["keyword"]) for p in s["PIIs"] if p["tag"] in QI_TAGS and p["keyword"] and p["certainty"] >= CERTAIN]
                                                for s in record["subjects"]]
    return found


def recall(extractions: dict[str, tuple[str, Extraction]], gold: dict[str, list[list[tuple[str, str]]]]) -> dict[str, object]:
    """Part (a): per tag kind, located / found / found as its class; attribution within and across subjects."""
    per_tag: dict[str, Counter[str]] = defaultdict(Counter)
    same, apart = Counter(), Counter()  # type: ignore[var-annotated]
    missed: dict[str, list[str]] = defaultdict(list)
    for data_id, (text, extraction) in extractions.items():
        persons_of_subject = []
        for subject in gold[data_id]:
            persons = []
            for tag, keyword in subject:
                spans = _occurrences(text, keyword)
                per_tag[tag]["annotated"] += 1
                if not spans:
                    continue
                per_tag[tag]["located"] += 1
                hits = [m for m in extraction.mentions if any(m.start < e and s < m.end for s, e in spans)]
                if hits:
                    per_tag[tag]["found"] += 1
                    per_tag[tag]["found_as_class"] += any(m.qi_class == POLICY_CLASS.get(tag) for m in hits)
                    per_tag[tag]["to_nobody"] += all(m.person is None for m in hits)
                    persons.append(hits[0].person)
                elif len(missed[tag]) < 12:
                    missed[tag].append(keyword)
            if persons:
                top = Counter(p for p in persons if p is not None).most_common(1)
                same["mentions"] += len(persons)
                same["to_subject"] += top[0][1] if top else 0
            persons_of_subject.append({p for p in persons if p is not None})
        for i, a in enumerate(persons_of_subject):
            for b in persons_of_subject[i + 1 :]:
                if a and b:
                    apart["pairs"] += 1
                    apart["kept_apart"] += not (a & b)
    table = {tag: dict(c) | {"recall": round(c["found"] / max(c["located"], 1), 3), "class_recall": round(c["found_as_class"] / max(c["located"], 1), 3)}
             for tag, c in sorted(per_tag.items())}
    return {"per_tag": table, "missed_examples": dict(missed),
            "attribution_within_subject": round(same["to_subject"] / max(same["mentions"], 1), 3), "mentions": same["mentions"],
            "subject_pairs_kept_apart": round(apart["kept_apart"] / max(apart["pairs"], 1), 3), "subject_pairs": apart["pairs"]}


def ranking(domain: str, fold_scorers: list, folds: dict[str, int], span_weights: dict) -> tuple[dict[str, object], dict[str, tuple[str, Extraction]]]:
    """Part (b) for one domain's guard, and the extraction of each development answer unit (for part a)."""
    guard, limit, classes = build_guard(domain)
    units = split_by_text(load_spia(limit, classes)[0], SEED)[0]
    redacted = [guard.redacted(u.text) for u in units]
    extractions = [guard.extraction_of_redacted(text) for text in redacted]
    mass = _held_out_masses(redacted, [u.unit_id.split("#")[0] for u in units], span_weights, folds)
    rows = np.asarray([features(x, limit, mass[t]) for x, t in zip(extractions, redacted)])
    fold = np.asarray([folds[u.unit_id.split("#")[0]] for u in units])
    held = _out_of_fold(fold_scorers, rows, fold)
    unsafe = np.asarray([u.label == "unsafe" for u in units])
    safe_scores = np.sort(held[~unsafe])[::-1]
    bar = float(safe_scores[min(4, len(safe_scores) - 1)])  # the fifth-highest safe score
    low = []
    for i in np.argsort(held):
        if unsafe[i] and held[i] <= bar:
            unit, x = units[i], extractions[i]
            annotated = [dict(s) for s in unit.subject_keywords if len(s) >= limit]
            low.append({"unit": unit.unit_id, "kind": unit.kind, "score_oof": round(float(held[i]), 3), "safe_above": int(np.sum(held[~unsafe] >= held[i])),
                        "annotated_subject_classes": [sorted(s) for s in annotated], "guard_classes_per_person": {str(p): list(c) for p, c in x.classes_by_person().items()},
                        "unanchored": sum(1 for m in x.mentions if m.person is None and m.pattern is None), "patterns": sorted(x.patterns),
                        "features": {f: round(float(v), 3) for f, v in zip(FEATURES, rows[i])}})
    result = {"units": {"unsafe": int(unsafe.sum()), "safe": int((~unsafe).sum())}, "auroc_oof": round(float(roc_auc_score(unsafe, held)), 4),
              "auroc_oof_answer": _auroc_of(units, unsafe, held, "answer"), "auroc_oof_sentence": _auroc_of(units, unsafe, held, "sentence"),
              "fifth_highest_safe_oof": round(bar, 3), "unsafe_at_or_below": low,
              "top_safe": [{"unit": units[i].unit_id, "score_oof": round(float(held[i]), 3)} for i in np.argsort(-held) if not unsafe[i]][:5]}
    answers = {u.unit_id.split("#")[0]: (t, x) for u, t, x in zip(units, redacted, extractions) if u.kind == "answer"}
    return result, answers


def _auroc_of(units: list, unsafe: np.ndarray, held: np.ndarray, kind: str) -> float | None:
    chosen = np.asarray([u.kind == kind for u in units])
    return round(float(roc_auc_score(unsafe[chosen], held[chosen])), 4) if len(set(unsafe[chosen])) == 2 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="current")
    args = parser.parse_args()
    print(f"OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/rank_diagnosis.py --run {args.run} | load average", os.getloadavg(), flush=True)
    span_weights, _, _ = fold_weights()
    _, fold_scorers, folds = fit_shared(span_weights)
    gold = _annotations()
    out: dict[str, object] = {"command": f"python bench/output_guard/rank_diagnosis.py --run {args.run}", "load_average": [round(x, 2) for x in os.getloadavg()]}
    for domain in POLICIES:
        result, answers = ranking(domain, fold_scorers, folds, span_weights)
        out[domain] = result | {"recall": recall(answers, gold)}
        print(domain, "out-of-fold AUROC", result["auroc_oof"], "answer", result["auroc_oof_answer"], "sentence", result["auroc_oof_sentence"],
              "| unsafe at or below the fifth-highest safe:", len(result["unsafe_at_or_below"]), flush=True)  # type: ignore[arg-type]
    path = RESULTS / f"output_guard_rank_diagnosis_{args.run}.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print("->", path)


if __name__ == "__main__":
    main()
