"""Contextual-integrity skeletons for reverse synthesis (Need-to-Know Section 3.1, Appendix C).

A skeleton is sampled *before* any text exists: the task type, the need the
request is about, which attributes are disclosed, whose they are, and which
of them the task needs (essential) or not.  A generator family then renders
it as a query, so the essential / non-essential labels are correct by
construction.  The task policy follows Appendix C: ``none`` tasks need no
attribute, addressed-person tasks need the addressed person's name, domain
tasks draw essential attributes from the pool of the need they are about;
non-essential attributes come from outside that pool.  A "shared attribute"
confusion puts the same attribute type on both sides, the non-essential one
about a third party.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FAMILIES = {
    "identifiers": ["name", "email", "phone_number", "address", "ssn", "driver_license", "dates"],
    "demographics": ["age", "gender", "ethnicity"],
    "health": ["physical_health", "mental_health", "medications", "allergies", "disabilities", "family_history", "exercise_hours", "smoker", "diet_type"],
    "beliefs_identity": ["religious_beliefs", "sexual_orientation"],
    "lifestyle": ["favorite_food", "favorite_hobbies", "pet_ownership", "movie_prefs", "vacation_prefs"],
    "socio_economic": ["financial_situation", "employment", "legal", "relationship_status"],
}
ATTRIBUTES = [a for attrs in FAMILIES.values() for a in attrs]
NONE_TASKS = ["code_generation", "code_editing_debugging", "translation", "summarisation", "information_retrieval"]
ADDRESSED_TASKS = ["communication_generation", "story_script_generation", "song_poem_generation", "character_description", "role_playing"]
DOMAIN_TASKS = [
    "prompt_generation", "non_fictional_document", "text_editing", "comparison_ranking_recommendation", "brainstorming",
    "problem_solving", "explanation_advice", "personal_advice", "multiple_choice_qa", "general_chitchat",
]
TASKS = NONE_TASKS + ADDRESSED_TASKS + DOMAIN_TASKS

#: Need kinds: the attributes a request about the need depends on (its pool) and those that may be essential.
NEEDS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "food": (frozenset({"allergies", "diet_type", "favorite_food", "physical_health", "medications"}), ("allergies", "diet_type")),
    "fitness": (frozenset({"exercise_hours", "physical_health", "disabilities", "age", "smoker", "diet_type", "medications"}), ("exercise_hours", "physical_health", "disabilities")),
    "symptom": (frozenset({"physical_health", "medications", "allergies", "family_history", "smoker", "age", "gender", "mental_health", "exercise_hours", "diet_type"}), ("physical_health", "medications", "family_history", "smoker")),
    "coping": (frozenset({"mental_health", "medications", "relationship_status", "employment", "physical_health"}), ("mental_health",)),
    "money": (frozenset({"financial_situation", "employment", "age", "relationship_status", "legal"}), ("financial_situation", "employment")),
    "career": (frozenset({"employment", "financial_situation", "disabilities", "age", "legal", "mental_health"}), ("employment",)),
    "legal": (frozenset({"legal", "financial_situation", "relationship_status", "employment"}), ("legal",)),
    "relationship": (frozenset({"relationship_status", "sexual_orientation", "mental_health", "religious_beliefs"}), ("relationship_status", "sexual_orientation")),
    "travel": (frozenset({"vacation_prefs", "disabilities", "pet_ownership", "allergies", "medications", "dates", "financial_situation", "physical_health"}), ("vacation_prefs", "pet_ownership", "disabilities")),
    "faith": (frozenset({"religious_beliefs", "diet_type", "dates", "sexual_orientation"}), ("religious_beliefs",)),
    "gift": (frozenset({"favorite_hobbies", "favorite_food", "movie_prefs", "age", "allergies", "diet_type", "vacation_prefs"}), ("favorite_hobbies", "movie_prefs", "favorite_food")),
    "neutral": (frozenset(), ()),
}
SUBJECTS = ("self", "family", "friend", "coworker", "third_party")
STYLES = ("direct", "narrative", "implicit", "multi_sentence")
TONES = ("neutral", "frustrated", "casual", "urgent", "formal", "anxious")


@dataclass(frozen=True)
class Disclosure:
    """One attribute to embed: about ``subject``; ``essential`` when the task needs it."""

    attribute: str
    subject: str
    essential: bool


@dataclass
class Skeleton:
    task: str
    need: str
    disclosures: list[Disclosure]
    style: str
    tone: str
    addressed: str | None = None  # subject of the addressed person (addressed-person tasks)
    notes: list[str] = field(default_factory=list)


def sample(rng: random.Random) -> Skeleton:
    """One general-domain skeleton."""
    kind = rng.choices(["none", "addressed", "domain"], weights=[5, 4, 11])[0]
    task = rng.choice({"none": NONE_TASKS, "addressed": ADDRESSED_TASKS, "domain": DOMAIN_TASKS}[kind])
    style, tone = rng.choice(STYLES), rng.choice(TONES)
    disclosures: list[Disclosure] = []
    if kind == "none" or task == "multiple_choice_qa":
        need = "neutral"
    elif kind == "addressed":
        need = "gift"
    else:
        need = rng.choice([n for n in NEEDS if n not in ("gift",)] + ["gift"])
    pool, essentials = NEEDS[need]
    addressed = None
    if kind == "addressed":
        addressed = rng.choice(["family", "friend", "coworker"])
        disclosures.append(Disclosure("name", addressed, True))
        if rng.random() < 0.5:
            disclosures.append(Disclosure(rng.choice(essentials), addressed, True))
    elif essentials:
        subject = rng.choices(["self", "family", "friend"], weights=[6, 3, 1])[0]
        for attribute in rng.sample(essentials, k=min(len(essentials), rng.choice([1, 1, 2]))):
            disclosures.append(Disclosure(attribute, subject, True))
    outside = [a for a in ATTRIBUTES if a not in pool and not (kind == "addressed" and a == "name")]
    for attribute in rng.sample(outside, k=rng.choice([1, 2, 2, 3])):
        disclosures.append(Disclosure(attribute, rng.choices(SUBJECTS, weights=[6, 2, 1, 1, 1])[0], False))
    essential_attrs = [d.attribute for d in disclosures if d.essential and d.attribute != "name"]
    if essential_attrs and rng.random() < 0.25:  # shared-attribute confusion
        disclosures.append(Disclosure(rng.choice(essential_attrs), "third_party", False))
    rng.shuffle(disclosures)
    return Skeleton(task, need, disclosures, style, tone, addressed)
