"""Training a policy's guard model and saving it where engines look for it (``policy-engine guard train``).

The model is trained deterministically from the training generator families
(fixed seed, so every machine gets the same model) and saved under
:func:`enforcers.output_guard.store.model_dir`, from where an engine loads it
(:func:`enforcers.output_guard.store.load_saved`).
"""

from __future__ import annotations

from pathlib import Path

from enforcers.output_guard.model import GuardModel
from enforcers.output_guard.store import guard_domain, guard_embedder, load_saved, model_dir
from enforcers.output_guard.validate import DirectIdentifierValidator
from policy_engine.nlp.embedding import Embedder
from policy_engine.policy.model import Policy
from training.output_guard.trainer import train_model


def train_and_save(policy: Policy, embedder: Embedder | None = None) -> tuple[GuardModel, Path]:
    """Train the policy's domain model from the generator (validated records) and save it."""
    domain = guard_domain(policy)
    model = train_model(domain, embedder or guard_embedder(), validator=DirectIdentifierValidator())
    target = model_dir(policy, domain)
    model.save(target)
    return model, target


def load_or_train(policy: Policy, embedder: Embedder | None = None) -> tuple[GuardModel, bool]:
    """The policy's model, trained and saved first when there is none; ``True`` when it had to be trained now."""
    model = load_saved(policy, embedder)
    if model is not None:
        return model, False
    train_and_save(policy, embedder)
    saved = load_saved(policy, embedder)
    assert saved is not None, "a model was just saved"
    return saved, True
