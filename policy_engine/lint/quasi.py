"""Lint rules for the quasi-identifier cluster guard (PPE Sections III, IV-B; Table II)."""

from __future__ import annotations

from collections.abc import Iterator

from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    qi = lp.policy.quasi_identifiers
    if qi is None:
        return
    base = ("quasi_identifiers",)
    valid = set(vocab.qi_classes(qi.domain))
    for j, cls in enumerate(qi.classes):
        if cls not in valid:
            yield Diagnostic("PE152", f"QI class '{cls}' is not in the {qi.domain} taxonomy", lp.span(base + ("classes", j)))
    distinct = len(set(qi.classes))
    if distinct == 0 or qi.max_per_subject >= distinct:
        yield Diagnostic(
            "PE150",
            f"max_per_subject {qi.max_per_subject} can never be exceeded with {distinct} QI classes",
            lp.span(base + ("max_per_subject",)),
        )
    op = qi.operating_point
    if not (0.0 <= op.abstain_low <= op.threshold <= op.abstain_high <= 1.0):
        yield Diagnostic(
            "PE151",
            f"operating point needs 0 <= abstain_low ({op.abstain_low}) <= threshold ({op.threshold}) <= abstain_high ({op.abstain_high}) <= 1",
            lp.key_span(base + ("operating_point",)),
        )
    elif op.threshold >= 1.0 or op.abstain_low >= 1.0:
        yield Diagnostic("PE150", "a threshold of 1 never flags a record", lp.span(base + ("operating_point", "threshold")))
