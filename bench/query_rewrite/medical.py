"""Medical challenge split (Need-to-Know Section 3.2): clinical vignettes whose sensitive details are answer-bearing.

Each vignette's clinical findings (age, sex, symptoms, history, medication,
smoking, family history) are essential items; clinically inert disclosures
about the patient (name, contact, hobbies, pets, films, faith, food,
travel dreams) are non-essential.  Three families with disjoint templates
(C: a clinician's forum post with abbreviations, written before any tuning
of the learned components).
"""

from __future__ import annotations

import random

from faker import Faker

from bench.query_rewrite.render import Item, Sample

CASES_A = [
    (["chest pain radiating to the left arm", "sweating"], "myocardial infarction"),
    (["fever", "productive cough"], "pneumonia"),
    (["polyuria", "polydipsia"], "diabetes mellitus"),
    (["right lower quadrant pain", "vomiting"], "appendicitis"),
    (["joint swelling in both hands", "morning stiffness"], "rheumatoid arthritis"),
    (["sudden severe headache", "neck stiffness"], "subarachnoid hemorrhage"),
]
CASES_B = [
    (["painless jaundice", "weight loss"], "pancreatic cancer"),
    (["wheezing", "nighttime cough"], "asthma"),
    (["burning epigastric pain", "black stools"], "peptic ulcer"),
    (["tremor at rest", "slow movements"], "Parkinson disease"),
    (["palpitations", "heat intolerance"], "hyperthyroidism"),
    (["calf swelling", "shortness of breath"], "pulmonary embolism"),
]
CASES_C = [
    (["crushing substernal pressure", "nausea"], "acute coronary syndrome"),
    (["flank pain", "blood in the urine"], "kidney stone"),
    (["high fevers", "a stiff neck"], "bacterial meningitis"),
    (["fatigue", "pale skin"], "iron deficiency anemia"),
    (["pleuritic chest pain", "a friction rub"], "pericarditis"),
    (["itchy rash on the elbows", "silvery scales"], "psoriasis"),
]
HISTORY_A = {"physical_health": ["hypertension", "asthma", "hypothyroidism"], "medications": ["lisinopril", "metformin", "atorvastatin"], "smoker": ["a pack a day"], "family_history": ["coronary artery disease", "colon cancer"]}
HISTORY_B = {"physical_health": ["chronic kidney disease", "gout", "atrial fibrillation"], "medications": ["warfarin", "prednisone", "omeprazole"], "smoker": ["two packs a day"], "family_history": ["breast cancer", "stroke"]}
HISTORY_C = {"physical_health": ["type 2 diabetes", "COPD", "migraines"], "medications": ["apixaban", "sertraline", "amlodipine"], "smoker": ["half a pack a day"], "family_history": ["lung cancer", "heart attacks"]}
INERT_A = {
    "favorite_hobbies": ("{P} enjoys birdwatching on weekends", "birdwatching"),
    "pet_ownership": ("{P} recently adopted a beagle named Max", "beagle named Max"),
    "movie_prefs": ("{P} loves watching Star Wars movies", "Star Wars"),
    "religious_beliefs": ("{P} is a devout Catholic", "Catholic"),
    "vacation_prefs": ("{P} dreams of a vacation in Iceland", "Iceland"),
    "favorite_food": ("{Poss} favorite food is lasagna", "lasagna"),
}
INERT_B = {
    "favorite_hobbies": ("{p} is really into quilting", "quilting"),
    "pet_ownership": ("{p} owns two cats called Miso and Tofu", "two cats called Miso and Tofu"),
    "movie_prefs": ("{p} binges k-dramas every night", "k-dramas"),
    "religious_beliefs": ("{p} is a practicing Sikh", "Sikh"),
    "vacation_prefs": ("{p} is planning a trip to Lisbon", "Lisbon"),
    "favorite_food": ("{p} could eat dim sum every day", "dim sum"),
}

INERT_C = {
    "favorite_hobbies": ("{p} coaches little league", "little league"),
    "pet_ownership": ("{p} keeps a parrot named Kiwi", "parrot named Kiwi"),
    "movie_prefs": ("{p} is a big fan of Hitchcock films", "Hitchcock films"),
    "religious_beliefs": ("{p} is an active member of the Lutheran church", "Lutheran"),
    "vacation_prefs": ("{p} just got back from a cruise to Alaska", "cruise to Alaska"),
    "favorite_food": ("{p} bakes sourdough every weekend", "sourdough"),
}


def _options(rng: random.Random, answer: str, pool: list[str], lower: bool) -> str:
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    labels = "abcd" if lower else "ABCD"
    return " ".join(f"({labels[i]}) {c}" if lower else f"{labels[i]}) {c}" for i, c in enumerate(choices))


def medical_sample(family: str, sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """One vignette of family ``A``, ``B`` or ``C``."""
    cases, history, inert = {"A": (CASES_A, HISTORY_A, INERT_A), "B": (CASES_B, HISTORY_B, INERT_B), "C": (CASES_C, HISTORY_C, INERT_C)}[family]
    symptoms, answer = rng.choice(cases)
    age, male = str(rng.randint(24, 79)), rng.random() < 0.5
    sex = {"A": ("man", "woman"), "B": ("male", "female"), "C": ("gentleman", "lady")}[family][0 if male else 1]
    he, his = ("He", "His") if male else ("She", "Her")
    items = [Item(f"{age}-year-old", "age", "third_party", True), Item(sex, "gender", "third_party", True)]
    items += [Item(s, "physical_health", "third_party", True) for s in symptoms]
    kinds = rng.sample(list(history), k=2)
    facts = {k: rng.choice(history[k]) for k in kinds}
    items += [Item(v, k, "third_party", True) for k, v in facts.items()]
    chosen = rng.sample(list(inert), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", "third_party", False))
    items += [Item(inert[k][1], k, "third_party", False) for k in chosen]
    if rng.random() < 0.3:
        email = faker.email()
        items.append(Item(email, "email", "third_party", False))
    else:
        email = None
    pool = [c[1] for c in CASES_A + CASES_B + CASES_C]
    if family == "A":
        hist = {
            "physical_health": f"{he} has a history of {facts.get('physical_health', '')}.",
            "medications": f"{he} takes {facts.get('medications', '')} daily.",
            "smoker": f"{he} smokes {facts.get('smoker', '')}.",
            "family_history": f"{his} father had {facts.get('family_history', '')}.",
        }
        parts = [f"A {age}-year-old {sex} named {name} presents with {symptoms[0]} and {symptoms[1]} for two days."]
        parts += [hist[k] for k in kinds]
        parts += [inert[k][0].replace("{P}", he).replace("{Poss}", his) + "." for k in chosen]
        if email:
            parts.append(f"{his} email is {email}.")
        parts.append("Which of the following is the most likely diagnosis? " + _options(rng, answer, pool, lower=False))
    elif family == "C":
        p = "she" if not male else "he"
        hist = {
            "physical_health": f"PMH notable for {facts.get('physical_health', '')}",
            "medications": f"meds incl. {facts.get('medications', '')}",
            "smoker": f"smokes {facts.get('smoker', '')}",
            "family_history": f"FHx of {facts.get('family_history', '')}",
        }
        social = [inert[k][0].replace("{p}", p) for k in chosen]
        parts = [f"Saw an interesting case today: {name}, a {age}-year-old {sex}, w/ {symptoms[0]} plus {symptoms[1]} x3 days."]
        history_line = "; ".join(hist[k] for k in kinds)
        parts.append(history_line[:1].upper() + history_line[1:] + ".")
        parts.append("Other notes: " + "; ".join(social) + (f"; reachable at {email}" if email else "") + ".")
        parts.append("Which condition best fits this picture? " + _options(rng, answer, pool, lower=False))
    else:
        p = "she" if not male else "he"
        hist = {
            "physical_health": f"known {facts.get('physical_health', '')}",
            "medications": f"on {facts.get('medications', '')}",
            "smoker": f"smokes {facts.get('smoker', '')}",
            "family_history": f"{facts.get('family_history', '')} in the family",
        }
        social = [inert[k][0].replace("{p}", p) for k in chosen]
        parts = [f"Pt is {name}, {age}-year-old {sex}, came in complaining of {symptoms[0]} and {symptoms[1]}."]
        parts.append("Background: " + ", ".join(hist[k] for k in kinds) + ".")
        parts.append("Social: " + ", and ".join(social) + (f", email {email}" if email else "") + ".")
        parts.append("what's the most likely dx here? " + _options(rng, answer, pool, lower=True))
    return Sample(sample_id, family, "medical", "multiple_choice_qa", " ".join(parts), items, parts[-1])
