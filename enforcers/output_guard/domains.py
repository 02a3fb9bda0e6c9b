"""The QI domains the output guard has models for, and the eight QI classes of each (PPE Table II)."""

from __future__ import annotations

DOMAINS = ("medical", "finance", "law")
SHARED_CLASSES = ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY")
DOMAIN_CLASSES = {
    "medical": ("CONDITION", "TREATMENT", "VISIT_PATTERN"),
    "finance": ("ASSET_CLASS", "INCOME_BAND", "TRANSACTIONS"),
    "law": ("MATTER_TYPE", "PROCEDURAL_ROLE", "CASE_DISPOSITION"),
}


def qi_classes(domain: str) -> tuple[str, ...]:
    """The eight QI classes of ``domain`` (PPE Table II)."""
    return SHARED_CLASSES + DOMAIN_CLASSES[domain]
