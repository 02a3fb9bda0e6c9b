"""Metrics of the PPE evaluation (Section VI-A) and a held-out check of a trained model.

All binary metrics (AUROC, FPR at 95%/90% TPR, TPR/FPR at an operating
point) are computed on the *kept* population: records the abstain gate
routes to review are excluded from numerator and denominator; the abstain
rate is reported separately, over all records.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve

from enforcers.output_guard.model import GuardModel
from training.output_guard.axes import Label
from training.output_guard.synth import HELD_OUT_FAMILY, CorpusSize, Validator, generate


def fpr_at_tpr(y: np.ndarray, score: np.ndarray, tpr: float) -> float:
    """False-positive rate at the first threshold reaching ``tpr``."""
    fpr, tprs, _ = roc_curve(y, score)
    return float(fpr[np.searchsorted(tprs, tpr, side="left")])


def binary_metrics(y: np.ndarray, score: np.ndarray, abstain: np.ndarray, taus: dict[str, float]) -> dict[str, object]:
    """AUROC, FPR95/90 and TPR/FPR at each ``taus`` entry on the kept population; abstain rate on all."""
    kept = ~abstain
    out: dict[str, object] = {"n": len(y), "abstain_rate": round(float(abstain.mean()), 4), "n_kept": int(kept.sum())}
    yk, sk = y[kept], score[kept]
    if len(set(yk.tolist())) < 2:
        return {**out, "auroc": None}
    out.update(auroc=round(float(roc_auc_score(yk, sk)), 4), fpr95=round(fpr_at_tpr(yk, sk, 0.95), 4), fpr90=round(fpr_at_tpr(yk, sk, 0.90), 4))
    for op, tau in taus.items():
        out[f"tpr_{op}"] = round(float((sk[yk == 1] > tau).mean()), 4)
        out[f"fpr_{op}"] = round(float((sk[yk == 0] > tau).mean()), 4)
    return out


def held_out_check(model: GuardModel, size: CorpusSize, seed: int, validator: Validator | None = None) -> dict[str, object]:
    """``model`` on the held-out generator family: unsafe vs borderline-safe, and unsafe vs safe."""
    records = generate(model.domain, HELD_OUT_FAMILY, size, seed, validator)
    features = model.featurizer.transform([r.text for r in records])
    scores = model.detector.scores(features)
    labels = np.array([r.label.value for r in records])
    out: dict[str, object] = {"family": HELD_OUT_FAMILY, "records": len(records)}
    for negative in (Label.BORDERLINE, Label.SAFE):
        mask = (labels == Label.UNSAFE.value) | (labels == negative.value)
        out[f"unsafe_vs_{negative.value}"] = binary_metrics(
            (labels[mask] == Label.UNSAFE.value).astype(int), scores.risk[mask], scores.abstain[mask], model.detector.calibration.tau
        )
    return out
