"""Axis-stratified synthetic corpus for the QI guard (PPE Section IV).

:func:`generate` draws records of one domain from one generator family:
unsafe records sample ``k`` QI classes (prior :data:`~training.output_guard.axes.K_PRIOR`),
a framing, a placement and an adversarial mode, each axis cycled in a
stratified order so every level is covered evenly; safe records are public
educational text; borderline-safe records cycle through the five subtypes.
Every record passes :class:`DirectIdentifierValidator` (the project's own
detectors; a rejected draw is retried with a fresh seed, then dropped).
Everything is seeded: the same arguments give the same records.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from enforcers.output_guard.domains import qi_classes
from training.output_guard.axes import (
    ADVERSARIAL_MODES,
    BORDERLINE_SUBTYPES,
    FRAMINGS,
    K_PRIOR,
    PLACEMENTS,
    Label,
    SyntheticRecord,
)
from training.output_guard.families import appositive, clausal, email, letter, nominal, relative, structured
from training.output_guard.families.base import Family, Person

#: Generator families by name; "clausal", "appositive", "letter", "nominal", "relative" and "structured" form the training
#: pool ("relative" and "structured" were earlier held-out families; each became a training family once evaluated), "email"
#: is held out (it never trains, calibrates or tunes a model; PPE Section VI-D's cross-generator protocol).
FAMILIES: dict[str, Family] = {f.name: f for f in (clausal, appositive, letter, nominal, relative, structured, email)}
TRAIN_FAMILIES = (clausal.name, appositive.name, letter.name, nominal.name, relative.name, structured.name)
HELD_OUT_FAMILY = email.name
_RETRIES = 3

Validator = Callable[[Sequence[str]], list[bool]]


@dataclass(frozen=True)
class CorpusSize:
    """How many records of each label to draw (``single_qi``: borderline-safe records of subtype :data:`SINGLE_QI`)."""

    safe: int
    unsafe: int
    borderline: int
    single_qi: int = 0


#: Borderline-safe subtype beyond the paper's five: an unsafe record's shape with one QI only (k = 1, below any
#: ``max_per_subject``), so that the risk score learns to count QIs rather than to spot the case voice.
SINGLE_QI = "SINGLE_QI"


def _draw_k(rng: random.Random) -> int:
    return rng.choices(list(K_PRIOR), weights=list(K_PRIOR.values()))[0]


def _stratified(levels: Sequence[str], n: int, rng: random.Random) -> list[str]:
    """``n`` levels cycled evenly, in a seeded random order."""
    cycled = [levels[i % len(levels)] for i in range(n)]
    rng.shuffle(cycled)
    return cycled


def _case(family: Family, domain: str, n: int, rng: random.Random, single: bool) -> Iterator[SyntheticRecord]:
    """Records in the unsafe shape: ``k`` QIs by the prior (unsafe), or one (``single``: borderline-safe, subtype :data:`SINGLE_QI`)."""
    classes = qi_classes(domain)
    framings, placements, modes = (_stratified(levels, n, rng) for levels in (FRAMINGS, PLACEMENTS, ADVERSARIAL_MODES))
    for framing, placement, mode in zip(framings, placements, modes):
        chosen = tuple(rng.sample(classes, 1 if single else _draw_k(rng)))
        person = Person.draw(rng)
        fragments = [family.qi_fragment(domain, c, person, mode == "INDIRECT_QI", rng) for c in chosen]
        text = family.unsafe(domain, fragments, person, framing, placement, mode, rng)
        label, subtype = (Label.BORDERLINE, SINGLE_QI) if single else (Label.UNSAFE, "")
        yield SyntheticRecord(text, label, domain, family.name, subtype=subtype, qi=chosen, framing=framing, placement=placement, mode=mode)


def _unsafe(family: Family, domain: str, n: int, rng: random.Random) -> Iterator[SyntheticRecord]:
    return _case(family, domain, n, rng, single=False)


def _single_qi(family: Family, domain: str, n: int, rng: random.Random) -> Iterator[SyntheticRecord]:
    return _case(family, domain, n, rng, single=True)


def _safe(family: Family, domain: str, n: int, rng: random.Random) -> Iterator[SyntheticRecord]:
    for _ in range(n):
        yield SyntheticRecord(family.safe(domain, rng), Label.SAFE, domain, family.name)


def _borderline(family: Family, domain: str, n: int, rng: random.Random) -> Iterator[SyntheticRecord]:
    for subtype in _stratified(BORDERLINE_SUBTYPES, n, rng):
        yield SyntheticRecord(family.borderline(domain, subtype, rng), Label.BORDERLINE, domain, family.name, subtype=subtype)


_DRAWS = ((_safe, "safe"), (_unsafe, "unsafe"), (_borderline, "borderline"), (_single_qi, "single_qi"))


def generate_pool(domain: str, families: tuple[str, ...], size: CorpusSize, seed: int, validator: Validator | None = None) -> list[SyntheticRecord]:
    """Records of ``domain`` from several families, ``size`` split evenly between them."""
    share = CorpusSize(*(n // len(families) for n in (size.safe, size.unsafe, size.borderline, size.single_qi)))
    return [record for family in families for record in generate(domain, family, share, seed, validator)]


def generate(domain: str, family: str, size: CorpusSize, seed: int, validator: Validator | None = None) -> list[SyntheticRecord]:
    """Records of ``domain`` from ``family``; draws ``validator`` rejects are redrawn up to 3 times, then dropped."""
    module = FAMILIES[family]
    records: list[SyntheticRecord] = []
    for offset, (draw, field) in enumerate(_DRAWS):
        n = getattr(size, field)
        if not n:
            continue
        batch = list(draw(module, domain, n, random.Random(f"{seed}:{domain}:{family}:{offset}")))
        if validator is None:
            records.extend(batch)
            continue
        for attempt in range(_RETRIES + 1):
            verdicts = validator([r.text for r in batch])
            records.extend(r for r, ok in zip(batch, verdicts) if ok)
            rejected = verdicts.count(False)
            if not rejected or attempt == _RETRIES:
                break
            batch = list(draw(module, domain, rejected, random.Random(f"{seed}:{domain}:{family}:{offset}:retry{attempt}")))
    return records
