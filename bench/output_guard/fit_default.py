"""Fit the output guard's shipped default scorer on the development part of SPIA (never the validation part).

Extracts per-person QI features (:mod:`enforcers.output_guard.persons`) from
the development units of :mod:`spia_units` (same split and seed as
``external.py``), labels them at each limit 1-4 (a subject's annotated QIs
of the shared classes reaching the limit), chooses the regularization by
cross-validated AUROC over development texts (5 folds, grouped by text), fits
one standardized logistic regression over all limits, and stores per limit the
development scores the operating points are derived from
(:mod:`enforcers.output_guard.scoring`).  Then, per domain, it runs the
domain's example policy's guard (its Layer 1 and extraction, its classes and
limit) over that policy's development units and stores their scores, and the
out-of-fold scores of the unsafe units Layer 1 alone leaves identifying: the
domain's operating point.

Usage (from the checkout root)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/fit_default.py

writes enforcers/output_guard/default_scorer.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external import POLICIES, build_guard, leaks  # noqa: E402
from qi_span_train import fold_weights, masses  # noqa: E402
from spia_units import Unit, load_spia, split_by_text  # noqa: E402

from enforcers.output_guard.domains import SHARED_CLASSES  # noqa: E402
from enforcers.output_guard.persons import extract  # noqa: E402
from enforcers.output_guard.scoring import DEFAULT_SCORER, FEATURES, Scorer, Thresholds, features  # noqa: E402
from enforcers.output_guard.service import OutputGuard  # noqa: E402

SEED = 32  # external.py's split
LIMITS = (1, 2, 3, 4)
C_GRID = (1.0, 0.1, 0.01)
FOLDS = 5


def _fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, LogisticRegression]:
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    return mean, scale, LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)


def _folds(texts: list[str]) -> dict[str, int]:
    """Each development text's cross-validation fold (seeded)."""
    order = sorted(set(texts))
    np.random.RandomState(SEED).shuffle(order)
    return {t: i % FOLDS for i, t in enumerate(order)}


def _fold_scorers(x: np.ndarray, y: np.ndarray, fold: np.ndarray, c: float) -> list[Scorer]:
    """One scorer per fold, fitted on the other folds' rows."""
    fitted = [_fit(x[fold != k], y[fold != k], c) for k in range(FOLDS)]
    return [Scorer(mean, scale, model.coef_[0], float(model.intercept_[0]), {}, "") for mean, scale, model in fitted]


def _out_of_fold(scorers: list[Scorer], rows: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Each row scored by the scorer that never saw its text."""
    return np.asarray([scorers[k].score(r) for r, k in zip(rows, fold)])


def _calibration(scores: np.ndarray, unsafe: np.ndarray, counted: np.ndarray, held_out: np.ndarray, exposed: np.ndarray) -> dict[str, list[float] | int]:
    """What :meth:`Scorer.thresholds` reads: unit counts, the scores of the units no subject's count flags and the
    out-of-fold scores of the ``exposed`` unsafe ones among them (those only the score can catch)."""
    below = ~counted
    return {"n_all": len(scores), "n_safe": int((~unsafe).sum()), "safe_counted": int((~unsafe & counted).sum()),
            "safe_below": sorted(float(s) for s in scores[below & ~unsafe]), "all_below": sorted(float(s) for s in scores[below]),  # unrounded: a threshold is a unit's own score
            "unsafe_below_cv": sorted(float(s) for s in held_out[below & unsafe & exposed])}


def _held_out_masses(texts: list[str], ids: list[str], span_weights: dict[int, tuple[np.ndarray, float]], folds: dict[str, int]) -> dict[str, float]:
    """Each text's QI-phrase mass under the phrase classifier fitted without its SPIA text's fold."""
    unique = dict(zip(texts, ids))
    return dict(zip(unique, masses(list(unique), [span_weights[folds[i]] for i in unique.values()])))


def fit_shared(span_weights: dict[int, tuple[np.ndarray, float]]) -> tuple[Scorer, list[Scorer], dict[str, int]]:
    """The logistic regression over the shared classes at limits 1-4, with its per-limit calibration; its fold scorers and each text's fold.
    The ``qi_mass`` feature of a development unit comes from the phrase classifier of the folds without its text (stacked out of fold)."""
    classes = frozenset(SHARED_CLASSES)
    per_limit = {limit: split_by_text(load_spia(limit, classes)[0], SEED)[0] for limit in LIMITS}
    extracted = {text: extract(text, "general", SHARED_CLASSES) for text in sorted({u.text for units in per_limit.values() for u in units})}
    every = [u for units in per_limit.values() for u in units]
    folds = _folds([u.unit_id.split("#")[0] for u in every])
    mass = _held_out_masses([u.text for u in every], [u.unit_id.split("#")[0] for u in every], span_weights, folds)
    rows, labels, limits, counted, texts = [], [], [], [], []
    for limit, units in per_limit.items():
        for unit in units:
            rows.append(features(extracted[unit.text], limit, mass[unit.text]))
            labels.append(unit.label == "unsafe")
            limits.append(limit)
            counted.append(extracted[unit.text].max_classes() >= limit)
            texts.append(unit.unit_id.split("#")[0])
    x, y, limit_of, counted_of = np.asarray(rows), np.asarray(labels), np.asarray(limits), np.asarray(counted)
    fold = np.asarray([folds[t] for t in texts])
    cv = {c: float(roc_auc_score(y, _out_of_fold(_fold_scorers(x, y, fold, c), x, fold))) for c in C_GRID}
    best = max(C_GRID, key=lambda c: (round(cv[c], 3), -c))
    print("cross-validated AUROC on development texts by C:", {c: round(a, 3) for c, a in cv.items()}, "-> C =", best)
    without = float(roc_auc_score(y, _out_of_fold(_fold_scorers(x[:, :-1], y, fold, best), x[:, :-1], fold)))
    print(f"cross-validated AUROC without qi_mass (the learned QI-phrase feature): {without:.3f}")
    mean, scale, model = _fit(x, y, best)
    scorer = Scorer(mean, scale, model.coef_[0], float(model.intercept_[0]), {}, "")
    scores = np.asarray([scorer.score(r) for r in rows])
    held_out = _out_of_fold(_fold_scorers(x, y, fold, best), x, fold)
    none = np.zeros(len(y), dtype=bool)  # without a policy's Layer 1 no unit is known to be exposed: the shared calibration keeps the abstain-rate point
    calibration = {limit: _calibration(*(a[limit_of == limit] for a in (scores, y, counted_of, held_out, none))) for limit in LIMITS}
    digest = hashlib.sha256(json.dumps([scorer.weights.tolist(), scorer.bias, mean.tolist()]).encode()).hexdigest()[:12]
    print(f"fitted on {len(extracted)} development texts/sentences, {len(rows)} rows")
    return Scorer(mean, scale, scorer.weights, scorer.bias, calibration, f"spia-dev-{digest}"), _fold_scorers(x, y, fold, best), folds


def domain_calibration(scorer: Scorer, fold_scorers: list[Scorer], folds: dict[str, int], span_weights: dict[int, tuple[np.ndarray, float]],
                       domain: str) -> dict[str, list[float] | int | float]:
    """The domain's example policy's guard over that policy's development units: its scores (in-sample and
    out-of-fold, by the fold scorer that never saw the unit's text), limit, counts and refit margin.

    The margin is the largest drop, over the exposed unsafe units only the score can catch, from the shipped
    scorer's score of the unit to the score of the fold scorer that never saw its text: how much lower a new
    unit scores than the fit's own, which :meth:`Scorer.thresholds` keeps below the lowest out-of-fold unsafe score."""
    guard, limit, classes = build_guard(domain)
    units = split_by_text(load_spia(limit, classes)[0], SEED)[0]
    redacted = [guard.redacted(u.text) for u in units]
    mass = _held_out_masses(redacted, [u.unit_id.split("#")[0] for u in units], span_weights, folds)
    rows = np.asarray([features(guard.extraction_of_redacted(text), limit, mass[text]) for text in redacted])
    scores = np.asarray([scorer.score(r) for r in rows])
    fold = np.asarray([folds[u.unit_id.split("#")[0]] for u in units])
    unsafe = np.asarray([u.label == "unsafe" for u in units])
    counted = rows[:, FEATURES.index("margin")] >= 0
    exposed = np.asarray([bool(leaks(u, text, limit, True)) for u, text in zip(units, redacted)])  # Layer 1 alone leaves it identifying
    held_out = _out_of_fold(fold_scorers, rows, fold)
    gap = scores[unsafe & ~counted & exposed] - held_out[unsafe & ~counted & exposed]
    return ({"limit": limit, "margin": max(float(gap.max(initial=0.0)), 0.0)} | _calibration(scores, unsafe, counted, held_out, exposed)
            | _abstentions(guard, units, held_out))


def _abstentions(guard: OutputGuard, units: list[Unit], held_out: np.ndarray) -> dict[str, list[float]]:
    """Which development units the domain's guard would abstain on, whatever its thresholds: checked with a band
    covering every score, a unit the parse leaves to the score abstains (``review_eligible``); one that also has no
    person's QI to generalize (or no sentence about a person) abstains at a real ``tau_flag`` too, when it scores
    at or above it (``unreviewable``).  Each with the guard's score and the unit's out-of-fold score."""
    guard.thresholds = Thresholds(0.0, 1.0 + 1e-9)
    eligible, unreviewable, own = [], [], {}
    for i, unit in enumerate(units):
        section = guard.check(unit.text).section
        own[i] = section.risk
        if section.action == "abstained":
            eligible.append(i)
        if not section.qi_per_person and (section.action == "abstained" or "no sentence speaks of a person" in section.reason):
            unreviewable.append(i)
    return {"review_eligible": sorted(own[i] for i in eligible), "review_eligible_cv": sorted(float(held_out[i]) for i in eligible),
            "unreviewable": sorted(own[i] for i in unreviewable), "unreviewable_cv": sorted(float(held_out[i]) for i in unreviewable)}


def main() -> None:
    print("OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/fit_default.py | load average", os.getloadavg())
    span_weights, _, _ = fold_weights()
    shared, fold_scorers, folds = fit_shared(span_weights)
    DEFAULT_SCORER.write_text(json.dumps(shared.to_json(), indent=1) + "\n", encoding="utf-8")  # the domains' guards score with it
    domains = {domain: domain_calibration(shared, fold_scorers, folds, span_weights, domain) for domain in POLICIES}
    fitted = Scorer(shared.mean, shared.scale, shared.weights, shared.bias, shared.calibration, shared.version, domains)
    DEFAULT_SCORER.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"{fitted.version} -> {DEFAULT_SCORER}")
    for name, weight in zip(FEATURES, fitted.weights):
        print(f"  {name:18} {weight:+.3f}")
    for limit in LIMITS:
        print("limit", limit, {p: fitted.thresholds(limit, p, 0.05) for p in ("conservative", "balanced", "strict")})
    for domain, cal in domains.items():
        print(domain, "limit", cal["limit"], {p: fitted.thresholds(int(cal["limit"]), p, 0.05, domain) for p in ("conservative", "balanced", "strict")})  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
