"""Generation axes, labels and record type of the synthetic QI corpus (PPE Section IV-B/C/E).

Every unsafe record is one draw from four independent axes: which QI classes
are populated (``k`` of the domain's eight, ``k`` in {2, 3, 4} with prior
0.45/0.35/0.20), the framing (discourse register), the placement of the QI
cluster, and the adversarial mode.  Safe records are public educational
text; borderline-safe records keep the case voice and drop every QI (five
subtypes, sampled uniformly).  The QI classes of each domain are the
runtime's (:mod:`enforcers.output_guard.domains`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

FRAMINGS = ("CASE_VOICE", "IMPLICIT_CASE", "REFERRAL", "FIRST_PERSON", "NARRATIVE", "SUMMARY")
PLACEMENTS = ("FRAME_OPENING", "MID_ANSWER", "CLOSING", "DISTRIBUTED")
ADVERSARIAL_MODES = ("NONE", "INDIRECT_QI", "DISTRACTOR_PADDED", "STYLE_TRANSFER")
BORDERLINE_SUBTYPES = (
    "POPULATION_DEMOGRAPHICS",
    "PUBLIC_GUIDELINE_QUOTE",
    "SECOND_PERSON_EDUCATION",
    "ANONYMIZED_CASE_REPORT",
    "EMPATHETIC_DEFLECTION",
)
#: Prior over the number of QIs in an unsafe record (PPE Section IV-B).
K_PRIOR = {2: 0.45, 3: 0.35, 4: 0.20}


class Label(str, Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"
    BORDERLINE = "borderline"


@dataclass(frozen=True)
class SyntheticRecord:
    """One generated answer and the axis values that produced it."""

    text: str
    label: Label
    domain: str
    family: str
    subtype: str = ""  # borderline subtype
    qi: tuple[str, ...] = field(default=())  # populated QI classes (unsafe only)
    framing: str = ""
    placement: str = ""
    mode: str = ""

    @property
    def unsafe(self) -> bool:
        return self.label is Label.UNSAFE
