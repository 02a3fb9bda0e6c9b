"""The ``kg_erasure`` policy section: what the data owner adds to ``private_knowledge`` (docs/erasure.md).

``aliases`` names further forms of an entity (a nickname, a maiden name, a
ward or account label) that the parse cannot link on its own; ``evidence``
names terms that imply a private tail about its subject (a drug that treats
the condition, a clinic, a consequence such as "advised not to drive").
Both are optional; every file of a policy may contribute (``merge="concat"``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from policy_engine.policy.sections import Section, StrictModel


class KGErasureSettings(StrictModel):
    aliases: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Entity (as written in private_knowledge) -> further names of it, matched wherever they occur and linked to it.",
    )
    evidence: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Private tail or entity -> terms that imply it about its subject; sentences about the subject holding one are erased.",
    )
    evidence_judge: Literal["fact", "off", "similarity", "attributes"] = Field(
        default="fact",
        description="Also erase sentences about the subject that a learned judge finds to be evidence of the private fact: "
        "'fact' (the default: one calibrated model of a sentence's relatedness to the fact and, for personal attributes, "
        "the attribute model; trained on SynthPAI), 'similarity' (embedding cosine to the fact), 'attributes' (the attribute "
        "model alone) or 'off' (the tail and declared evidence terms only). See docs/erasure.md.",
    )


SECTIONS = (Section("kg_erasure", KGErasureSettings, merge="concat", default="empty"),)
