"""Build the reverse-synthesised benchmark: general and medical splits of generator family A to K.

Deterministic per (family, split, n, seed).  Families A and B train the
learned components; A, B and C tune the rest (C was held out for two
reports, then became a development family); D was held out for one report,
then became a development family, and so were E, F, G, H, I and J; family K is
held out: committed before any tuning against it, evaluated once for the report.
"""

from __future__ import annotations

import random

from faker import Faker

from bench.query_rewrite import family_a, family_b, family_c, family_d, family_e, family_f, family_g, family_h, family_i, family_j, family_k
from bench.query_rewrite.medical import medical_sample
from bench.query_rewrite.render import Renderer, Sample
from bench.query_rewrite.skeleton import sample as sample_skeleton

FAMILY_MODULES = {"A": family_a, "B": family_b, "C": family_c, "D": family_d, "E": family_e, "F": family_f, "G": family_g, "H": family_h, "I": family_i, "J": family_j, "K": family_k}


def build(family: str, split: str, n: int, seed: int) -> list[Sample]:
    """``n`` samples of ``split`` ("general" or "medical") from generator ``family``."""
    rng = random.Random(f"{family}-{split}-{seed}")
    faker = Faker("en_US")
    faker.seed_instance(f"{family}-{split}-{seed}")
    if split == "medical":
        return [medical_sample(family, f"{family}-med-{i}", rng, faker) for i in range(n)]
    renderer = Renderer(FAMILY_MODULES[family], family, faker, rng)
    return [renderer.render(sample_skeleton(rng), f"{family}-gen-{i}") for i in range(n)]
