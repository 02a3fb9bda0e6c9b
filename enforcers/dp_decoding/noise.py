"""Where the noise of every DP mechanism comes from (PEARL Sections 2-4).

The exponential mechanism, private top-k, the sparse vector technique and
the keyword release are private only if their randomness is unpredictable
to the observer.  A seed written in a policy is public, so a sampler seeded
from it is a deterministic function of the documents and voids the
guarantee the ledger charges for.  Every request therefore gets a fresh
generator seeded from the operating system's CSPRNG (:mod:`secrets`).

Reproducible runs (tests, benchmarks) pass ``insecure_seed_for_testing``
through the library API; the name is meant to be noticed, each use warns
with :class:`InsecureNoiseWarning`, and no policy setting maps onto it (a
policy that sets ``decoding.seed`` is refused by the engine and by lint).
"""

from __future__ import annotations

import secrets
import warnings

import torch

__all__ = ["InsecureNoiseWarning", "noise_generator"]


class InsecureNoiseWarning(UserWarning):
    """DP noise was drawn from a fixed, known seed: the output carries no privacy guarantee."""


def noise_generator(insecure_seed_for_testing: int | None = None) -> torch.Generator:
    """A fresh generator for one request's mechanisms, seeded from :func:`secrets.randbits`.

    With ``insecure_seed_for_testing`` the generator is seeded from that value
    instead (reproducible, and *not private*); an :class:`InsecureNoiseWarning`
    says so every time.
    """
    generator = torch.Generator()
    if insecure_seed_for_testing is None:
        return generator.manual_seed(secrets.randbits(63))
    warnings.warn(
        "DP noise seeded from a fixed value (insecure_seed_for_testing): reproducible but not differentially private",
        InsecureNoiseWarning,
        stacklevel=2,
    )
    return generator.manual_seed(insecure_seed_for_testing)
