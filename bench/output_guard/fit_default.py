"""Fit the output guard's shipped default scorer on the development part of SPIA (never the validation part).

Extracts per-person QI features (:mod:`enforcers.output_guard.persons`) from
the development units of :mod:`spia_units` (same split and seed as
``external.py``), labels them at each limit 1-4 (a subject's annotated QIs
of the shared classes reaching the limit), fits one standardized logistic
regression over all limits, and stores per limit the development scores the
operating points are derived from (:mod:`enforcers.output_guard.scoring`).

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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spia_units import load_spia, split_by_text  # noqa: E402

from enforcers.output_guard.domains import SHARED_CLASSES  # noqa: E402
from enforcers.output_guard.persons import extract  # noqa: E402
from enforcers.output_guard.scoring import DEFAULT_SCORER, Scorer, features  # noqa: E402

SEED = 32  # external.py's split
LIMITS = (1, 2, 3, 4)


def main() -> None:
    print("OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/fit_default.py | load average", os.getloadavg())
    classes = frozenset(SHARED_CLASSES)
    per_limit = {limit: split_by_text(load_spia(limit, classes)[0], SEED)[0] for limit in LIMITS}
    texts = sorted({u.text for units in per_limit.values() for u in units})
    extracted = {text: extract(text, "general", SHARED_CLASSES) for text in texts}
    rows, labels, groups = [], [], []
    for limit, units in per_limit.items():
        for unit in units:
            rows.append(features(extracted[unit.text], limit))
            labels.append(int(unit.label == "unsafe"))
            groups.append((limit, extracted[unit.text].max_classes() >= limit))
    x, y = np.asarray(rows), np.asarray(labels)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit((x - mean) / scale, y)
    scorer = Scorer(mean, scale, model.coef_[0], float(model.intercept_[0]), {}, "")
    scores = np.asarray([scorer.score(r) for r in rows])
    calibration: dict[int, dict[str, list[float] | int]] = {}
    for limit in LIMITS:
        chosen = [i for i, (lim, _) in enumerate(groups) if lim == limit]
        below = [i for i in chosen if not groups[i][1]]
        calibration[limit] = {
            "n_all": len(chosen), "n_safe": int(sum(1 for i in chosen if not y[i])),
            "safe_counted": int(sum(1 for i in chosen if not y[i] and groups[i][1])),
            "safe_below": sorted(round(float(scores[i]), 6) for i in below if not y[i]),
            "all_below": sorted(round(float(scores[i]), 6) for i in below),
        }
    digest = hashlib.sha256(json.dumps([scorer.weights.tolist(), scorer.bias, mean.tolist()]).encode()).hexdigest()[:12]
    fitted = Scorer(mean, scale, scorer.weights, scorer.bias, calibration, f"spia-dev-{digest}")
    DEFAULT_SCORER.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"fitted {fitted.version} on {len(set(texts))} development texts/sentences, {len(rows)} rows -> {DEFAULT_SCORER}")
    for name, weight in zip(json.loads(DEFAULT_SCORER.read_text())["features"], fitted.weights):
        print(f"  {name:18} {weight:+.3f}")
    for limit in LIMITS:
        print(limit, {p: fitted.thresholds(limit, p, 0.05) for p in ("conservative", "balanced", "strict")})


if __name__ == "__main__":
    main()
