"""Direct-identifier validator for synthetic records (PPE Section IV-B, "direct-identifier prohibitions").

A record passes only if the project's own detector (:class:`policy_engine.detect.Analyzer`:
recognizers with checksums, lexicons and spaCy NER) finds no direct identifier in
it: person names, contact details, government ids, medical record numbers,
account numbers, case/docket numbers or dates of birth.  A person name must be
one by the guard's Layer-1 rule (:func:`enforcers.output_guard.names.not_a_name`: plain lower-case words,
"the biryani was flavorful", a field label or a verb opening a sentence name no one).  Quasi-identifiers
(ages, towns, jobs) are what the corpus is about and are allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from enforcers.output_guard.names import not_a_name
from policy_engine.policy.model import Constraint, DetectorHints, Metadata, Policy

#: The categories whose presence disqualifies a record.
DIRECT_IDENTIFIER_CATEGORIES = (
    "person_name", "contact", "government_id", "medical_record_number", "financial_account", "case_number", "date_of_birth",
)


def direct_identifier_constraints() -> list[Constraint]:
    """One constraint per direct-identifier category (the validator's and Layer 1's default set)."""
    return [
        Constraint(id=f"no-{c.replace('_', '-')}", statement=f"Never reveal {c.replace('_', ' ')}s.", detect=DetectorHints(categories=[c]))
        for c in DIRECT_IDENTIFIER_CATEGORIES
    ]


class DirectIdentifierValidator:
    """Callable: one verdict per text, ``True`` when the text holds no direct identifier."""

    def __init__(self) -> None:
        self.constraints = direct_identifier_constraints()

    @cached_property
    def _analyzer(self):  # type: ignore[no-untyped-def]
        from policy_engine.detect.analyzer import Analyzer

        return Analyzer(Policy(metadata=Metadata(name="guard-validator"), constraints=self.constraints))

    def __call__(self, texts: Sequence[str]) -> list[bool]:
        findings = self._analyzer.analyze_many(list(texts), self.constraints)
        return [not [f for f in found if f.category != "person_name" or not not_a_name(text, f.start, f.end)] for text, found in zip(texts, findings)]
