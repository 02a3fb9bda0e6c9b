"""Whether the installed detectors can find what a statement resolved to.

A category names its detectors (spaCy labels, recognizer names); a
recognizer another package provides may not be installed.  A constraint
whose categories all lack an installed detector, and that has no explicit
``terms``, ``patterns`` or ``entity_types``, would detect nothing: the engine
reports it as not applied (refuses in strict mode) and lint warns (PE115),
instead of reporting it applied while its values pass through.
"""

from __future__ import annotations

from policy_engine.detect.recognizers import registry
from policy_engine.policy.model import Constraint
from policy_engine.policy.vocabulary import Vocabulary


def undetectable(constraint: Constraint, category_ids: tuple[str, ...], vocab: Vocabulary) -> dict[str, tuple[str, ...]]:
    """The resolved categories no installed detector serves, each with the recognizers it names; {} when any is served."""
    hints = constraint.detect
    if hints.terms or hints.patterns or hints.entity_types:
        return {}
    available = registry()
    missing: dict[str, tuple[str, ...]] = {}
    for cat_id in category_ids:
        category = vocab.categories.get(cat_id)
        if category is None:
            continue
        if category.entity_labels or any(name in available for name in category.recognizers):
            return {}
        missing[cat_id] = tuple(category.recognizers)
    return missing


def describe(missing: dict[str, tuple[str, ...]]) -> str:
    """"trade_union_membership (recognizer union_membership not installed)" for messages."""
    return ", ".join(f"{cat} ({'recognizer ' + ', '.join(names) + ' not installed' if names else 'no detector declared'})" for cat, names in missing.items())
