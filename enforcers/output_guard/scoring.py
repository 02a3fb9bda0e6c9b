"""The guard's calibrated score and operating point over per-person QI features (PPE Sections V-C, V-D, VIII).

The score is a logistic regression over what :mod:`enforcers.output_guard.persons`
reads from the parse: how far the most-loaded subject is from the policy's
``max_per_subject``, the next subject's count, attributed mentions, mentions
with no anchor, mentions a borderline pattern keeps from anyone, the number of
subjects, and whether the text speaks in the first person.  The borderline
patterns act on the counts (their mentions go to nobody) and are not features
of their own: as flags, fitted on SPIA, where groups, office holders and
several people are rare, they raised the score of the aggregates and of the
answers about different people they describe, and added nothing to the
development part's cross-validated AUROC.  It is fitted on the development part of
SPIA (another team's per-person QI annotations, ``bench/output_guard/fit_default.py``)
and shipped as ``default_scorer.json`` (coefficients and calibration arrays
only), so a policy needs no training run.

Operating point, per limit: a subject reaching the limit always flags.  Of
the rest, a score at or above ``tau_flag`` flags too, where ``tau_flag`` is
the lowest threshold at which the share of development safe units flagged
(by either) stays within the preset's stated false-flag rate
(:data:`FALSE_FLAG_RATE`); scores in ``[tau_review, tau_flag)`` abstain into
the review queue.  ``tau_review`` is the lowest threshold at which the
development units the guard would abstain on stay within the policy's
``abstain_rate`` (per domain less one standard error of that share over its
development units), counted on the domain guard's own decisions
(units the parse leaves to the score abstain in the band, units flagged with
no person's QI to generalize abstain too), once with their in-sample and once
with their out-of-fold scores (5 folds grouped by text, each unit scored by a
model that never saw its text; new answers score like these); elsewhere on
the shared calibration's units.  Where development unsafe units that no count
flags and Layer 1 alone leaves identifying exist, ``tau_review`` is moreover
at most a stated margin below the lowest out-of-fold score of those units, the
margin being the largest drop from such a unit's in-sample score to its
out-of-fold score, whatever the abstain budget.  The development abstained
share at the shipped point is measured by ``bench/output_guard/external.py``.
Per domain, the development units are those of the domain's
example policy (its classes and limit, checked through the guard's own Layer 1
and extraction), so its thresholds are the ones that policy's guard meets; a
policy of another domain or limit uses the per-limit calibration of the shared classes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from enforcers.output_guard.persons import Extraction
from policy_engine.nlp.phrase_classifier import sigmoid

DEFAULT_SCORER = Path(__file__).with_name("default_scorer.json")
FEATURES = ("margin", "second", "attributed", "unanchored", "kept_by_pattern", "persons", "first_person", "qi_mass")
#: Stated share of development safe units each preset may flag or send to review.
FALSE_FLAG_RATE = {"conservative": 0.10, "balanced": 0.05, "strict": 0.02}


def features(extraction: Extraction, limit: int, qi_mass: float) -> np.ndarray:
    """The feature row of one extraction at ``limit`` QI classes per subject (order of :data:`FEATURES`); ``qi_mass``
    is the answer's expected number of QI phrases (:func:`enforcers.output_guard.learned_qi.qi_mass`)."""
    counts = sorted((len(c) for c in extraction.classes_by_person().values()), reverse=True) + [0, 0]
    attributed = sum(1 for m in extraction.mentions if m.person is not None)
    kept = sum(1 for m in extraction.mentions if m.person is None and m.pattern is not None)
    row = [counts[0] - limit, counts[1], attributed, len(extraction.mentions) - attributed - kept, kept, extraction.persons, float(extraction.first_person), qi_mass]
    return np.asarray(row, dtype=np.float64)


@dataclass(frozen=True)
class Thresholds:
    tau_review: float
    tau_flag: float


def _within_budget(cal: dict[str, list[float] | int], tau_flag: float, abstain_rate: float) -> float:
    """The lowest ``tau_review`` at which the domain guard's development units it would abstain on stay within
    ``abstain_rate`` less one standard error of a share of that size over the development units (the margin for new
    answers), counted with their in-sample scores and again with their out-of-fold scores (new answers score
    like these): units the parse leaves to the score (``review_eligible``) abstain in ``[tau_review, tau_flag)``;
    those with no person's QI to generalize (``unreviewable``) also abstain at or above ``tau_flag``."""
    n_all = int(cal["n_all"])  # type: ignore[arg-type]
    budget = (abstain_rate - float(np.sqrt(abstain_rate * (1.0 - abstain_rate) / n_all))) * n_all
    pairs = [(np.asarray(cal["review_eligible"]), np.asarray(cal["unreviewable"])),  # type: ignore[arg-type]
             (np.asarray(cal["review_eligible_cv"]), np.asarray(cal["unreviewable_cv"]))]  # type: ignore[arg-type]
    candidates = np.unique(np.concatenate([pairs[0][0], pairs[1][0], [tau_flag]]))

    def abstained(eligible: np.ndarray, unreviewable: np.ndarray, t: float) -> int:
        return int(np.sum((eligible >= t) & (eligible < tau_flag)) + np.sum(unreviewable >= tau_flag))

    return next((float(t) for t in candidates if t <= tau_flag and all(abstained(e, u, t) <= budget for e, u in pairs)), tau_flag)


@dataclass(frozen=True)
class Scorer:
    """Standardized logistic regression plus, per limit and per domain, the development scores its thresholds are derived from.

    ``domains`` maps a domain to its example policy's limit and calibration (the keys of one ``calibration`` entry plus ``limit``).
    """

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    calibration: dict[int, dict[str, list[float] | int]]
    version: str
    domains: dict[str, dict[str, list[float] | int]] = field(default_factory=dict)

    def score(self, row: np.ndarray) -> float:
        """The probability of one feature row (the logit clamped to [-50, 50], as the calibration arrays were made)."""
        z = float(((row - self.mean) / self.scale) @ self.weights + self.bias)
        return float(sigmoid(np.clip(z, -50.0, 50.0)))

    def thresholds(self, limit: int, preset: str, abstain_rate: float, domain: str = "general") -> Thresholds:
        """``tau_flag`` for the preset's false-flag rate and ``tau_review`` for ``abstain_rate`` (see the module contract):
        from ``domain``'s calibration when it was made at ``limit``, else from the shared classes' at ``limit``."""
        own = self.domains.get(domain)
        cal = own if own is not None and own["limit"] == limit else self.calibration[min(max(limit, min(self.calibration)), max(self.calibration))]
        safe = np.asarray(cal["safe_below"], dtype=np.float64)  # dev safe units below the limit
        every = np.asarray(cal["all_below"], dtype=np.float64)
        n_safe, n_all, counted = int(cal["n_safe"]), int(cal["n_all"]), int(cal["safe_counted"])  # type: ignore[arg-type]
        candidates = np.unique(np.concatenate([safe, every, [1.0 + 1e-9]]))
        allowed = FALSE_FLAG_RATE[preset] * n_safe - counted
        tau_flag = next((float(t) for t in candidates if np.sum(safe >= t) <= allowed), float(candidates[-1]))
        if "review_eligible" in cal:  # the domain's own guard: its development units' abstentions, in-sample and out of fold
            tau_review = _within_budget(cal, tau_flag, abstain_rate)
        else:
            tau_review = next((float(t) for t in candidates if t <= tau_flag and np.sum((every >= t) & (every < tau_flag)) <= abstain_rate * n_all), tau_flag)
        unsafe_cv = np.asarray(cal.get("unsafe_below_cv", []), dtype=np.float64)
        if unsafe_cv.size:  # at least as low as the unsafe units only the score catches need (out of fold, less the margin)
            tau_review = min(tau_review, float(unsafe_cv.min()) - float(cal.get("margin", 0.0)))  # type: ignore[arg-type]
        return Thresholds(tau_review, tau_flag)

    def to_json(self) -> dict[str, object]:
        return {"features": list(FEATURES), "mean": self.mean.tolist(), "scale": self.scale.tolist(), "weights": self.weights.tolist(),
                "bias": self.bias, "calibration": {str(k): v for k, v in self.calibration.items()}, "domains": self.domains, "version": self.version}

    @classmethod
    def load(cls, path: Path = DEFAULT_SCORER) -> Scorer:
        """The scorer saved at ``path``; ValueError when its features are not this module's."""
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["features"] != list(FEATURES):
            raise ValueError(f"{path} was fitted on features {data['features']}, not {list(FEATURES)}; refit it (bench/output_guard/fit_default.py)")
        return cls(np.asarray(data["mean"]), np.asarray(data["scale"]), np.asarray(data["weights"]), float(data["bias"]),
                   {int(k): v for k, v in data["calibration"].items()}, str(data["version"]), data.get("domains", {}))
