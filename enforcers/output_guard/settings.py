"""The ``quasi_identifiers`` policy section: the QI cluster guard (PPE Sections III, IV-B, V-C, V-D).

Defined in one file of a policy; a policy without it holds ``None`` (the output guard has no work).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from policy_engine.policy.sections import Section, StrictModel


class OperatingPoint(StrictModel):
    """Decision threshold and abstain gate of the QI guard (PPE Sections V-C, V-D).

    ``preset`` picks the shipped scorer's flag threshold by its false-flag
    rate on QI-safe development units (:data:`enforcers.output_guard.scoring.FALSE_FLAG_RATE`).
    ``abstain_rate`` is the share of development units whose score falls in
    the review band just below that threshold (withheld for review).
    """

    preset: Literal["conservative", "balanced", "strict"] = "balanced"
    abstain_rate: float = 0.05


class QuasiIdentifierSettings(StrictModel):
    """Quasi-identifier cluster guard settings (PPE Sections III, IV-B)."""

    domain: Literal["medical", "finance", "law", "general"] = "general"
    classes: list[str] = Field(default_factory=lambda: ["AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY"])
    max_per_subject: int = Field(default=2, ge=1)
    operating_point: OperatingPoint = Field(default_factory=OperatingPoint)


SECTIONS = (Section("quasi_identifiers", QuasiIdentifierSettings),)
