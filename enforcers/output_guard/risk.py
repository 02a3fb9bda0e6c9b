"""The discriminative risk score of the guard (v5): P(unsafe | answer) from a small MLP.

PPE Section VII reports that a supervised classifier over the same fused
features separates unsafe from borderline-safe text better than the one-class
discriminator delta, but has no notion of "unlike anything seen".  v5 uses
both for what each is good at: this classifier decides *flag or not*, the
dual one-class model (:mod:`enforcers.output_guard.density`) only decides
*abstain* (out of distribution).

The score is the mean probability of several networks (one ReLU
hidden layer, logistic output) fitted with different seeds, which steadies
it on writing styles none of them saw.  The networks are kept as stacked
plain arrays, each scored with two matrix products, equal to
scikit-learn's ``predict_proba``; a saved model holds arrays only.  The
networks are fitted by the training package (``training/output_guard/estimators.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RiskScorer:
    """Mean over members ``m`` of ``sigmoid(relu(x @ w1[m] + b1[m]) @ w2[m] + b2[m])``: probability that an answer is unsafe."""

    w1: np.ndarray  # (members, features, hidden)
    b1: np.ndarray  # (members, hidden)
    w2: np.ndarray  # (members, hidden, 1)
    b2: np.ndarray  # (members, 1)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        probabilities = []
        for w1, b1, w2, b2 in zip(self.w1, self.b1, self.w2, self.b2):
            logit = (np.maximum(x @ w1 + b1, 0.0) @ w2 + b2).ravel()
            probabilities.append(1.0 / (1.0 + np.exp(-np.clip(logit, -50.0, 50.0))))
        return np.mean(probabilities, axis=0)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"risk_w1": self.w1, "risk_b1": self.b1, "risk_w2": self.w2, "risk_b2": self.b2}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> RiskScorer:
        return cls(*(np.asarray(arrays[f"risk_{k}"], dtype=np.float32) for k in ("w1", "b1", "w2", "b2")))
