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
    if distinct == 0 or qi.max_per_subject > distinct:  # the guard flags a subject that reaches max_per_subject classes
        yield Diagnostic(
            "PE150",
            f"max_per_subject {qi.max_per_subject} can never be reached with {distinct} QI class(es): the guard flags a subject with at least that many",
            lp.span(base + ("max_per_subject",)),
        )
    rate = qi.operating_point.abstain_rate
    if not 0.0 < rate <= 0.5:
        yield Diagnostic(
            "PE151",
            f"operating_point.abstain_rate is {rate}; it must lie in (0, 0.5]",
            lp.span(base + ("operating_point", "abstain_rate")),
        )


#: The rules :mod:`policy_engine.lint.registry` discovers in this module.
RULES = (check,)
