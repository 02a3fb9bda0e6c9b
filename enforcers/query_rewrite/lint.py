"""Lint rules for contextual-integrity necessity rules (Need-to-Know Sections 1, 3; Appendix C)."""

from __future__ import annotations

from collections.abc import Iterator

from policy_engine.diagnostics import Diagnostic
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.vocabulary import Vocabulary


def check(lp: LoadedPolicy, vocab: Vocabulary) -> Iterator[Diagnostic]:
    seen: dict[tuple[str, ...], int] = {}
    default_task = lp.policy.necessity.default_task
    if default_task is not None and vocab.task_id(default_task) is None:
        yield Diagnostic("PE130", f"unknown task type '{default_task}' (necessity.default_task)", lp.span(("necessity", "default_task")))
    for i, rule in enumerate(lp.policy.necessity.rules):
        base = ("necessity", "rules", i)
        task = vocab.task_id(rule.task)
        if task is None:
            yield Diagnostic("PE130", f"unknown task type '{rule.task}'", lp.span(base + ("task",)))
        elif (key := (task, *sorted(rule.purposes))) in seen:
            yield Diagnostic("PE133", f"task '{rule.task}' already has a rule (rule {seen[key] + 1})", lp.span(base + ("task",)))
        else:
            seen[key] = i
        for side in ("essential", "non_essential"):
            for j, name in enumerate(getattr(rule, side)):
                if not vocab.is_attribute_or_family(name):
                    yield Diagnostic("PE131", f"unknown attribute or family '{name}'", lp.span(base + (side, j)))
        both = vocab.expand_attributes(rule.essential) & vocab.expand_attributes(rule.non_essential)
        if both:
            names = ", ".join(sorted(both))
            yield Diagnostic("PE132", f"{names} listed as both essential and non-essential for '{rule.task}'", lp.span(base + ("non_essential",)))


#: The rules :mod:`policy_engine.lint.registry` discovers in this module.
RULES = (check,)
