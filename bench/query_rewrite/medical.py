"""Medical challenge split (Need-to-Know Section 3.2): clinical vignettes whose sensitive details are answer-bearing.

Each vignette's clinical findings (age, sex, symptoms, history, medication,
smoking, family history) are essential items; clinically inert disclosures
about the patient (name, contact, hobbies, pets, films, faith, food,
travel dreams, an insurance or member number) are non-essential.  Eleven
families with disjoint templates (C: a clinician's forum post with
abbreviations; D: a SOAP note with vitals and labs, or the patient's own
first-person portal message; E: a discharge-letter excerpt or a nurse's
SBAR handover note; F: a patient's telehealth intake form, a caregiver's
message about a parent, or a pharmacist's query about a customer; G: an
EMT student's write-up of a paramedic radio report, a spouse's worried
forum post, or an occupational-health screening questionnaire with
numbered answers; H: a patient's dated symptom diary ("Mon:",
"Tue:"), a medical student's oral case presentation ("This is ...
presenting with ..."), or a grandchild's transcribed voice message about a
grandparent; I: a parent's message quoting a school nurse's note
home, a health-app export pasted with a question, or a sports club
first-aider's incident report; J: a community interpreter's
write-up of a consultation as dialogue, a friend's group-chat messages
pasted in, or the transcript of a symptom-checker chatbot that gave up;
K, held out: a trekking company's base-office log of a guide's satellite
messages about a client, a personal trainer's session notes, or a line
manager's return-to-work meeting notes).  Families G to K draw their
answer options from their own pools (``_bracketed``, ``_roman``,
``_spoken_options``, ``_piped``, ``_radio``), so the samples of earlier
families are unchanged.
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

#: Family D: (symptoms, the vital sign or lab value that points to the answer, answer); findings are essential items.
CASES_D = [
    (["sudden shortness of breath", "sharp pain on inhaling"], "SpO2 89% on room air", "spontaneous pneumothorax"),
    (["confusion", "extreme thirst"], "glucose 612 mg/dL", "hyperosmolar hyperglycemic state"),
    (["fever with rigors", "right upper quadrant pain"], "bilirubin 3.8 mg/dL", "acute cholangitis"),
    (["weight gain", "cold intolerance"], "TSH 14.2 mIU/L", "primary hypothyroidism"),
    (["pounding headache", "blurred vision"], "BP 212/124", "hypertensive emergency"),
    (["cola-colored urine", "muscle pain after a marathon"], "CK 48,000 U/L", "rhabdomyolysis"),
]
HISTORY_D = {"physical_health": ["heart failure", "cirrhosis", "hyperlipidemia"], "medications": ["furosemide", "spironolactone", "rosuvastatin"], "smoker": ["1.5 packs per day"], "family_history": ["sudden cardiac death", "polycystic kidney disease"]}
#: Family D inert details: (third-person wording, first-person wording, item).
INERT_D = {
    "favorite_hobbies": ("plays bass in a cover band", "I play bass in a cover band", "bass in a cover band"),
    "pet_ownership": ("has a greyhound named Biscuit", "I have a greyhound named Biscuit", "greyhound named Biscuit"),
    "movie_prefs": ("watches a lot of film noir", "I watch a lot of film noir", "film noir"),
    "religious_beliefs": ("attends Quaker meetings", "I attend Quaker meetings", "Quaker"),
    "vacation_prefs": ("is saving for a safari in Kenya", "I'm saving for a safari in Kenya", "safari in Kenya"),
    "favorite_food": ("is fond of Ethiopian food", "I'm fond of Ethiopian food", "Ethiopian food"),
}


def _options(rng: random.Random, answer: str, pool: list[str], lower: bool) -> str:
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    labels = "abcd" if lower else "ABCD"
    return " ".join(f"({labels[i]}) {c}" if lower else f"{labels[i]}) {c}" for i, c in enumerate(choices))


def medical_sample(family: str, sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """One vignette of family ``A`` to ``K``."""
    if family == "D":
        return _family_d(sample_id, rng, faker)
    if family == "E":
        return _family_e(sample_id, rng, faker)
    if family == "F":
        return _family_f(sample_id, rng, faker)
    if family == "G":
        return _family_g(sample_id, rng, faker)
    if family == "H":
        return _family_h(sample_id, rng, faker)
    if family == "I":
        return _family_i(sample_id, rng, faker)
    if family == "J":
        return _family_j(sample_id, rng, faker)
    if family == "K":
        return _family_k(sample_id, rng, faker)
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


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _numbered(rng: random.Random, answer: str) -> str:
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return " ".join(f"{i + 1}. {c}" for i, c in enumerate(choices))


def _family_d(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family D: a clinician's SOAP note with vitals / labs, or the patient's own portal message in the first person."""
    symptoms, finding, answer = rng.choice(CASES_D)
    age, male = str(rng.randint(24, 79)), rng.random() < 0.5
    own = rng.random() < 0.4  # the patient writes
    subject = "self" if own else "third_party"
    sex = "male" if male else "female"
    items = [Item(f"{age} yo", "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_D), k=2)
    facts = {k: rng.choice(HISTORY_D[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_D), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    phone = faker.numerify("###.###.####") if rng.random() < 0.4 else None
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_D[k][2], k, subject, False) for k in chosen]
    if phone:
        items.append(Item(phone, "phone_number", subject, False))
    question = rng.choice(["Most likely dx?", "Which of these fits best?", "What is the leading diagnosis?"]) + " " + _numbered(rng, answer)
    if own:
        history = {
            "physical_health": f"I have {facts.get('physical_health', '')}",
            "medications": f"I take {facts.get('medications', '')}",
            "smoker": f"I smoke {facts.get('smoker', '')}",
            "family_history": f"there is {facts.get('family_history', '')} in my family",
        }
        lines = [
            "Hello, a question before my appointment.",
            f"I'm a {age} yo {sex} and for two days I've had {symptoms[0]} and {symptoms[1]}; at the pharmacy kiosk it showed {finding}.",
            _sentence(" and ".join(history[k] for k in kinds)),
            "About me otherwise: " + ", ".join(INERT_D[k][1] for k in chosen) + ".",
            f"My name is {name}" + (f", cell {phone}" if phone else "") + ".",
            question,
        ]
    else:
        p = "He" if male else "She"
        history = {
            "physical_health": f"PMH: {facts.get('physical_health', '')}.",
            "medications": f"Meds: {facts.get('medications', '')}.",
            "smoker": f"Tob: {facts.get('smoker', '')}.",
            "family_history": f"FHx: {facts.get('family_history', '')}.",
        }
        lines = [
            f"S: {age} yo {sex} ({name}) c/o {symptoms[0]} and {symptoms[1]} since yesterday. " + " ".join(history[k] for k in kinds),
            f"O: {finding}.",
            "Misc: " + "; ".join(f"{p} {INERT_D[k][0]}" for k in chosen) + (f"; callback {phone}" if phone else "") + ".",
            "A/P: " + question,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "D", "medical", "multiple_choice_qa", text, items, question)


#: Family E: (symptoms, the examination or test finding that points to the answer, answer); findings are essential items.
CASES_E = [
    (["productive cough", "night sweats"], "cavitating lesion in the right upper lobe", "pulmonary tuberculosis"),
    (["tearing chest pain through to the back", "dizziness"], "widened mediastinum on chest X-ray", "aortic dissection"),
    (["sudden left-sided weakness", "slurred speech"], "blood glucose 5.4 mmol/L", "ischaemic stroke"),
    (["abdominal pain", "deep rapid breathing"], "serum ketones 5.1 mmol/L", "diabetic ketoacidosis"),
    (["fever", "a new heart murmur"], "vegetation on the mitral valve on echo", "infective endocarditis"),
    (["epigastric pain radiating to the back", "vomiting"], "lipase 1,900 U/L", "acute pancreatitis"),
]
HISTORY_E = {"physical_health": ["type 1 diabetes", "HIV on treatment", "prior DVT"], "medications": ["insulin glargine", "tenofovir", "clopidogrel"], "smoker": ["20 pack-years"], "family_history": ["early stroke", "thoracic aneurysm"]}
#: Family E inert details: (wording, item).
INERT_E = {
    "favorite_hobbies": ("enjoys ballroom dancing", "ballroom dancing"),
    "pet_ownership": ("worried about her/his tabby cat Pepper at home", "tabby cat Pepper"),
    "movie_prefs": ("watching old westerns on the ward TV", "old westerns"),
    "religious_beliefs": ("requested a visit from the hospital imam", "imam"),
    "vacation_prefs": ("has a cruise to Norway booked next month", "cruise to Norway"),
    "favorite_food": ("asking for curry from home", "curry from home"),
}


def _lettered(rng: random.Random, answer: str) -> str:
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return "; ".join(f"{('i', 'ii', 'iii', 'iv')[i]}) {c}" for i, c in enumerate(choices))


def _family_e(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family E: a discharge-letter excerpt (third person, formal) or a nurse's SBAR handover note (terse lines)."""
    symptoms, finding, answer = rng.choice(CASES_E)
    age, male = str(rng.randint(24, 79)), rng.random() < 0.5
    sex = ("man", "woman")[0 if male else 1] if rng.random() < 0.5 else ("M", "F")[0 if male else 1]
    items = [Item(f"{age}", "age", "third_party", True), Item(sex, "gender", "third_party", True)]
    items += [Item(s, "physical_health", "third_party", True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_E), k=2)
    facts = {k: rng.choice(HISTORY_E[k]) for k in kinds}
    items += [Item(v, k, "third_party", True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_E), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    mrn = faker.numerify("MRN ########") if rng.random() < 0.4 else None
    items.append(Item(name, "name", "third_party", False))
    items += [Item(INERT_E[k][1], k, "third_party", False) for k in chosen]
    if mrn:
        items.append(Item(mrn, "ssn", "third_party", False))
    pronoun, possessive = ("he", "his") if male else ("she", "her")
    social = [INERT_E[k][0].replace("her/his", possessive) for k in chosen]
    question = rng.choice(["Teaching question - what was the diagnosis?", "Quiz for the students: most likely diagnosis?", "Which diagnosis explains this?"]) + " " + _lettered(rng, answer)
    if rng.random() < 0.5:  # discharge letter
        history = {
            "physical_health": f"Past history includes {facts.get('physical_health', '')}.",
            "medications": f"Regular medication: {facts.get('medications', '')}.",
            "smoker": f"Ex-smoker, {facts.get('smoker', '')}.",
            "family_history": f"Family history of {facts.get('family_history', '')}.",
        }
        lines = [
            "Dear Dr " + faker.last_name() + ",",
            f"Re: {name}" + (f", {mrn}" if mrn else ""),
            f"Thank you for seeing this {age}-year-old {sex}, admitted with {symptoms[0]} and {symptoms[1]}. Investigations showed {finding}.",
            " ".join(history[k] for k in kinds),
            "On the ward " + pronoun + " was " + " and ".join(social) + ".",
            question,
        ]
    else:  # nurse SBAR handover
        history = {
            "physical_health": f"hx {facts.get('physical_health', '')}",
            "medications": f"regular {facts.get('medications', '')}",
            "smoker": f"smoker {facts.get('smoker', '')}",
            "family_history": f"FH {facts.get('family_history', '')}",
        }
        lines = [
            f"Handover bed 12 - {name}" + (f" ({mrn})" if mrn else ""),
            f"S - {age} {sex}, {symptoms[0]} + {symptoms[1]}",
            "B - " + ", ".join(history[k] for k in kinds),
            f"A - {finding}",
            "R - social: " + ", ".join(social),
            question,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "E", "medical", "multiple_choice_qa", text, items, question)


#: Family F: (symptoms, the home-measured or test finding that points to the answer, answer); findings are essential items.
CASES_F = [
    (["a drooping eyelid", "double vision late in the day"], "positive ice-pack test", "myasthenia gravis"),
    (["swollen painful big toe", "redness overnight"], "uric acid 9.8 mg/dL", "acute gout"),
    (["tingling in the feet", "a sore red tongue"], "vitamin B12 110 pg/mL", "pernicious anemia"),
    (["sudden painless vision loss in one eye", "a curtain over the vision"], "retinal detachment on the eye scan", "retinal detachment"),
    (["bone pain", "constipation and confusion"], "calcium 13.1 mg/dL", "hypercalcemia of malignancy"),
    (["itchy skin", "dark urine and pale stools"], "alkaline phosphatase 640 U/L", "primary biliary cholangitis"),
]
HISTORY_F = {"physical_health": ["sleep apnea", "rheumatoid arthritis", "a kidney transplant"], "medications": ["allopurinol", "tacrolimus", "methotrexate"], "smoker": ["a pipe every evening"], "family_history": ["thyroid cancer", "autoimmune disease"]}
#: Family F inert details: (third-person wording, first-person wording, item).
INERT_F = {
    "favorite_hobbies": ("does crossword puzzles every morning", "do crossword puzzles every morning", "crossword puzzles"),
    "pet_ownership": ("has a budgie named Sunny", "have a budgie named Sunny", "budgie named Sunny"),
    "movie_prefs": ("loves old James Bond movies", "love old James Bond movies", "James Bond movies"),
    "religious_beliefs": ("goes to the Greek Orthodox church", "go to the Greek Orthodox church", "Greek Orthodox"),
    "vacation_prefs": ("wants to visit Lake Como", "want to visit Lake Como", "Lake Como"),
    "favorite_food": ("is crazy about pecan pie", "am crazy about pecan pie", "pecan pie"),
}


def _slashed(rng: random.Random, answer: str) -> str:
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return "Options: " + " / ".join(choices)


def _family_f(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family F: a patient's telehealth intake form, a caregiver's message about a parent, or a pharmacist's query."""
    symptoms, finding, answer = rng.choice(CASES_F)
    age, male = str(rng.randint(24, 88)), rng.random() < 0.5
    layout = rng.choice(["intake", "caregiver", "pharmacist"])
    subject = {"intake": "self", "caregiver": "family", "pharmacist": "third_party"}[layout]
    sex = ("male", "female")[0 if male else 1] if layout == "intake" else ("dad", "mom")[0 if male else 1] if layout == "caregiver" else ("gentleman", "lady")[0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_F), k=2)
    facts = {k: rng.choice(HISTORY_F[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_F), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_F[k][2], k, subject, False) for k in chosen]
    insurance = faker.bothify("Member ID ??#######").upper() if rng.random() < 0.4 else None
    if insurance:
        items.append(Item(insurance, "ssn", subject, False))
    options = _slashed(rng, answer)
    if layout == "intake":
        history = {"physical_health": f"Medical history: {facts.get('physical_health', '')}", "medications": f"Current meds: {facts.get('medications', '')}",
                   "smoker": f"Tobacco: {facts.get('smoker', '')}", "family_history": f"Family history: {facts.get('family_history', '')}"}
        lines = [
            "TELEHEALTH INTAKE",
            f"Patient name: {name}" + (f"   Insurance: {insurance}" if insurance else ""),
            f"Age / sex: {age} / {sex}",
            f"Reason for visit: {symptoms[0]} and {symptoms[1]}",
            f"Home test / recent result: {finding}",
            *(history[k] for k in kinds),
            "Anything else we should know: I " + "; I ".join(INERT_F[k][1] for k in chosen),
            "Question for the doctor: which of these is it most likely to be? " + options,
        ]
    elif layout == "caregiver":
        pronoun = "he" if male else "she"
        history = {"physical_health": f"{pronoun} has {facts.get('physical_health', '')}", "medications": f"{pronoun} takes {facts.get('medications', '')}",
                   "smoker": f"{pronoun} smokes {facts.get('smoker', '')}", "family_history": f"there is {facts.get('family_history', '')} in {'his' if male else 'her'} family"}
        lines = [
            f"Hi, I look after my {sex} ({name}" + (f", {insurance}" if insurance else "") + f") who is {age}.",
            f"This week {pronoun} has had {symptoms[0]} and {symptoms[1]}, and the clinic called about {finding}.",
            "Also " + " and ".join(history[k] for k in kinds) + ".",
            f"Not medical but {pronoun} " + " and ".join(INERT_F[k][0] for k in chosen) + ".",
            "What do you think it could be? " + options,
        ]
    else:
        pronoun, possessive = ("he", "his") if male else ("she", "her")
        history = {"physical_health": f"has {facts.get('physical_health', '')}", "medications": f"fills {facts.get('medications', '')} with us",
                   "smoker": f"smokes {facts.get('smoker', '')}", "family_history": f"mentions {facts.get('family_history', '')} in the family"}
        lines = [
            f"Pharmacist here - a {age} y/o {sex} came to the counter today ({name}" + (f"; {insurance}" if insurance else "") + ").",
            f"Complaining of {symptoms[0]} plus {symptoms[1]}; {possessive} GP letter mentions {finding}.",
            f"Profile: {pronoun} " + ", ".join(history[k] for k in kinds) + ".",
            f"Chatty customer - {pronoun} " + ", ".join(INERT_F[k][0] for k in chosen) + ".",
            "Should I send them to urgent care, i.e. which is most likely? " + options,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "F", "medical", "multiple_choice_qa", text, items, lines[-1])


#: Family G: (symptoms, the test or examination finding that points to the answer, answer); findings are essential items.
CASES_G = [
    (["jaw pain when chewing", "a tender scalp over the temple"], "ESR 96 mm/hr", "giant cell arteritis"),
    (["weakness creeping up both legs", "tingling in the fingertips"], "absent ankle reflexes", "Guillain-Barre syndrome"),
    (["a throbbing headache", "nausea that eases outdoors"], "carboxyhemoglobin 22%", "carbon monoxide poisoning"),
    (["severe low back pain", "numbness in the saddle area"], "900 mL of retained urine on bladder scan", "cauda equina syndrome"),
    (["one side of the face drooping", "being unable to close one eye"], "normal strength in all four limbs", "Bell's palsy"),
    (["dizziness on standing", "salt craving and darkening skin"], "sodium 124 mmol/L with potassium 6.1", "Addisonian crisis"),
]
HISTORY_G = {"physical_health": ["polymyalgia rheumatica", "Paget's disease", "a mechanical heart valve"], "medications": ["hydrocortisone", "pregabalin", "tamsulosin"], "smoker": ["about ten roll-ups a day"], "family_history": ["motor neuron disease", "Wilson's disease"]}
#: Family G inert details: (third-person wording, first-person wording, item).
INERT_G = {
    "favorite_hobbies": ("restores vintage motorbikes", "restore vintage motorbikes", "vintage motorbikes"),
    "pet_ownership": ("has a Dalmatian called Rufus", "have a Dalmatian called Rufus", "Dalmatian called Rufus"),
    "movie_prefs": ("never misses a Tarantino film", "never miss a Tarantino film", "Tarantino film"),
    "religious_beliefs": ("sings in the Methodist choir", "sing in the Methodist choir", "Methodist"),
    "vacation_prefs": ("is booked on a trip to Machu Picchu", "am booked on a trip to Machu Picchu", "Machu Picchu"),
    "favorite_food": ("makes a mean risotto", "make a mean risotto", "risotto"),
}


def _bracketed(rng: random.Random, answer: str) -> str:
    """Family G's options, drawn from every family's diagnoses (its own pool: the pools of families A-F are unchanged)."""
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F + CASES_G]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return "  ".join(f"[{'abcd'[i]}] {c}" for i, c in enumerate(choices))


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _family_g(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family G: a paramedic's radio report of a transfer, a spouse's worried forum post, or an occupational-health questionnaire."""
    symptoms, finding, answer = rng.choice(CASES_G)
    age, male = str(rng.randint(26, 84)), rng.random() < 0.5
    layout = rng.choice(["radio", "spouse", "screening"])
    subject = {"radio": "third_party", "spouse": "family", "screening": "self"}[layout]
    sex = {"radio": ("adult male", "adult female"), "spouse": ("husband", "wife"), "screening": ("Male", "Female")}[layout][0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_G), k=2)
    facts = {k: rng.choice(HISTORY_G[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_G), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_G[k][2], k, subject, False) for k in chosen]
    policy = faker.numerify("policy no. ####-####-##") if rng.random() < 0.4 else None
    if policy:
        items.append(Item(policy, "ssn", subject, False))
    options = _bracketed(rng, answer)
    pronoun, possessive = ("he", "his") if male else ("she", "her")
    if layout == "radio":
        history = {"physical_health": f"known {facts.get('physical_health', '')}", "medications": f"on {facts.get('medications', '')}",
                   "smoker": f"smokes {facts.get('smoker', '')}", "family_history": f"{facts.get('family_history', '')} in the family"}
        lines = [
            "EMT student here, writing up today's radio report to quiz myself:",
            f'"Mercy General, Medic 12, inbound with a {age} y/o {sex}, ETA one-five minutes.',
            f"Patient complains of {symptoms[0]} and {symptoms[1]}; transfer paperwork from the clinic shows {finding}.",
            "History: " + ", ".join(history[k] for k in kinds) + ".",
            f"Patient is {name}" + (f", {policy} on file" if policy else "") + f"; family on scene says {pronoun} " + _and([INERT_G[k][0] for k in chosen]) + '. Medic 12 out."',
            "Before the receiving doc calls it - what is the most likely diagnosis? " + options,
        ]
    elif layout == "spouse":
        history = {"physical_health": f"{pronoun} has {facts.get('physical_health', '')}", "medications": f"{pronoun} is on {facts.get('medications', '')}",
                   "smoker": f"{pronoun} smokes {facts.get('smoker', '')}", "family_history": f"{possessive} side of the family has {facts.get('family_history', '')}"}
        lines = [
            f"Worried sick about my {sex} - can anyone make sense of this?",
            f"My {sex} is {age} and for about a week {pronoun} has had {symptoms[0]}, and now {symptoms[1]} too. The urgent care called back about {finding}.",
            "Background, since people always ask: " + "; ".join(history[k] for k in kinds) + ".",
            f"Otherwise {pronoun} is totally normal - {pronoun} " + _and([INERT_G[k][0] for k in chosen]) + ".",
            f"(Yes, {name} knows I am posting this" + (f"; {possessive} insurance is {policy}" if policy else "") + ".)",
            "Which of these should I be bracing for? " + options,
        ]
    else:
        history = {"physical_health": f"Q5 Ongoing conditions? Yes - {facts.get('physical_health', '')}", "medications": f"Q6 Regular medicines? Yes - {facts.get('medications', '')}",
                   "smoker": f"Q7 Tobacco use? Yes - {facts.get('smoker', '')}", "family_history": f"Q8 Illness in close family? Yes - {facts.get('family_history', '')}"}
        lines = [
            "OCCUPATIONAL HEALTH PRE-PLACEMENT SCREENING (my answers, copied below)",
            f"Q1 Full name: {name}" + (f"  |  Q1b Staff health {policy}" if policy else ""),
            f"Q2 Age: {age}  |  Q3 Sex: {sex}",
            f"Q4 Any symptoms in the last month? Yes - {symptoms[0]}; {symptoms[1]}. GP test: {finding}",
            *(history[k] for k in sorted(kinds, key=list(history).index)),
            "Q9 Interests outside work: I " + "; I ".join(INERT_G[k][1] for k in chosen),
            "Filling this in for my new job got me worried. Which one fits best? " + options,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "G", "medical", "multiple_choice_qa", text, items, lines[-1])


#: Family H: (symptoms, the test or examination finding that points to the answer, answer); findings are essential items.
CASES_H = [
    (["sudden pain in one eye with halos around lights", "vomiting"], "eye pressure 52 mmHg", "acute angle-closure glaucoma"),
    (["fever and a hot swollen knee", "being unable to put weight on the leg"], "cloudy joint fluid with 80,000 white cells", "septic arthritis"),
    (["breathlessness that is worse lying flat", "pink frothy sputum"], "crackles up to both lung apices", "acute pulmonary edema"),
    (["a painless lump in the neck", "soaking the sheets at night"], "Reed-Sternberg cells on the biopsy", "Hodgkin lymphoma"),
    (["crampy pain and a swollen belly", "passing no stool or wind for two days"], "air-fluid levels on the abdominal X-ray", "small bowel obstruction"),
    (["shaking and a racing heart after a skipped meal", "sweating and muddled speech"], "fingerstick glucose 2.1 mmol/L", "hypoglycemia"),
]
HISTORY_H = {"physical_health": ["a hiatus hernia", "diverticular disease", "osteoporosis"], "medications": ["digoxin", "alendronate", "donepezil"], "smoker": ["pipe tobacco daily since the army"], "family_history": ["Lynch syndrome", "familial hypercholesterolaemia"]}
#: Family H inert details: (third-person wording, first-person wording, item).
INERT_H = {
    "favorite_hobbies": ("grows prize-winning dahlias", "grow prize-winning dahlias", "prize-winning dahlias"),
    "pet_ownership": ("has a tortoiseshell cat called Pickle", "have a tortoiseshell cat called Pickle", "tortoiseshell cat called Pickle"),
    "movie_prefs": ("rewatches every Columbo episode", "rewatch every Columbo episode", "Columbo"),
    "religious_beliefs": ("volunteers at the Salvation Army citadel", "volunteer at the Salvation Army citadel", "Salvation Army"),
    "vacation_prefs": ("is saving for a cruise down the Danube", "am saving for a cruise down the Danube", "cruise down the Danube"),
    "favorite_food": ("bakes Welsh cakes every Sunday", "bake Welsh cakes every Sunday", "Welsh cakes"),
}


def _roman(rng: random.Random, answer: str) -> str:
    """Family H's options, drawn from every family's diagnoses (its own pool: the pools of families A-G are unchanged)."""
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F + CASES_G + CASES_H]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return " ".join(f"({n}) {c}" for n, c in zip(("i", "ii", "iii", "iv"), choices))


def _family_h(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family H: a patient's dated symptom diary, a medical student's oral case presentation, or a grandchild's voice message."""
    symptoms, finding, answer = rng.choice(CASES_H)
    age, male = str(rng.randint(25, 89)), rng.random() < 0.5
    layout = rng.choice(["diary", "presentation", "voicemail"])
    subject = {"diary": "self", "presentation": "third_party", "voicemail": "family"}[layout]
    sex = {"diary": ("man", "woman"), "presentation": ("male", "female"), "voicemail": ("grandad", "nan")}[layout][0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_H), k=2)
    facts = {k: rng.choice(HISTORY_H[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_H), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_H[k][2], k, subject, False) for k in chosen]
    number = "hospital no. " + faker.bothify("??######").upper() if rng.random() < 0.4 else None
    if number:
        items.append(Item(number, "ssn", subject, False))
    options = _roman(rng, answer)
    pronoun, possessive = ("he", "his") if male else ("she", "her")
    if layout == "diary":
        history = {"physical_health": f"I have {facts.get('physical_health', '')}", "medications": f"I take {facts.get('medications', '')}",
                   "smoker": f"I smoke {facts.get('smoker', '')}", "family_history": f"{facts.get('family_history', '')} runs in my family"}
        lines = [
            f"My symptom diary ({name}" + (f", {number}" if number else "") + ") - started it because the GP asked",
            f"Background: I am a {age}-year-old {sex}; " + "; ".join(history[k] for k in kinds) + ".",
            f"Mon: woke up with {symptoms[0]}. Put it down to a bad night.",
            f"Tue: still there, and now {symptoms[1]} too.",
            "Wed: kept busy to take my mind off it - I " + "; I ".join(INERT_H[k][1] for k in chosen) + ", so life goes on.",
            f"Thu: the walk-in centre did a quick check: {finding}.",
            "Fri: reading this back, which of these is it most likely to be? " + options,
        ]
    elif layout == "presentation":
        history = {"physical_health": f"{pronoun} has {facts.get('physical_health', '')}", "medications": f"{pronoun} takes {facts.get('medications', '')}",
                   "smoker": f"{pronoun} smokes {facts.get('smoker', '')}", "family_history": f"there is {facts.get('family_history', '')} in {possessive} family"}
        lines = [
            "Practising my case presentation for tomorrow's ward round:",
            f"This is {name}, a {age}-year-old {sex} presenting with {symptoms[0]} and {symptoms[1]}, which started three days ago.",
            "In terms of past history, " + " and ".join(history[k] for k in kinds) + ".",
            f"Socially, {pronoun} " + _and([INERT_H[k][0] for k in chosen]) + (f"; {possessive} {number} is on the notes" if number else "") + ".",
            f"On examination and initial tests, the key finding is {finding}.",
            "If the consultant asks for my leading diagnosis, which should I give? " + options,
        ]
    else:
        history = {"physical_health": f"{pronoun} has {facts.get('physical_health', '')}", "medications": f"{pronoun} is on {facts.get('medications', '')}",
                   "smoker": f"{pronoun} still smokes {facts.get('smoker', '')}", "family_history": f"{facts.get('family_history', '')} is in {possessive} side of the family"}
        lines = [
            "[Voice message, transcribed automatically]",
            f"Hiya, it's me again, calling about my {sex}.",
            f"So my {sex} is {age} now, right, and since the weekend {pronoun} has had {symptoms[0]} and then {symptoms[1]}.",
            f"The practice nurse rang about the results: {finding}.",
            "And you know " + " and ".join(history[k] for k in kinds) + ".",
            f"Otherwise {pronoun} is the same as ever, {pronoun} " + _and([INERT_H[k][0] for k in chosen]) + ".",
            f"On the forms {pronoun} is {name}" + (f", {number}" if number else "") + ".",
            "Anyway, which of these do you reckon it is? " + options,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "H", "medical", "multiple_choice_qa", text, items, lines[-1])


#: Family I: (symptoms, the test or examination finding that points to the answer, answer); findings are essential items.
CASES_I = [
    (["a purple rash that does not fade under a glass", "fever with cold hands and feet"], "platelets 45 x10^9/L", "meningococcal septicemia"),
    (["sudden bursts of a racing heart", "a faint during exercise"], "a delta wave on the ECG", "Wolff-Parkinson-White syndrome"),
    (["tiredness and pale skin", "bruises that appear from nowhere"], "blasts on the blood film", "acute leukemia"),
    (["puffy swelling in front of both ears", "pain when chewing"], "raised serum amylase", "mumps"),
    (["a spreading bullseye rash", "aching joints after a camping trip"], "positive Borrelia antibodies", "Lyme disease"),
    (["bloating and loose pale stools", "weight loss"], "positive tissue transglutaminase antibodies", "coeliac disease"),
]
HISTORY_I = {"physical_health": ["eczema", "juvenile arthritis", "a repaired hole in the heart"], "medications": ["montelukast", "mesalazine", "isotretinoin"], "smoker": ["a disposable vape most days"], "family_history": ["haemophilia", "thalassaemia"]}
#: Family I inert details: (third-person wording, first-person wording, item).
INERT_I = {
    "favorite_hobbies": ("plays the trombone in a brass band", "play the trombone in a brass band", "trombone"),
    "pet_ownership": ("has a ferret called Noodle", "have a ferret called Noodle", "ferret called Noodle"),
    "movie_prefs": ("has seen every Aardman film twice", "have seen every Aardman film twice", "Aardman"),
    "religious_beliefs": ("helps out at the Hare Krishna temple", "help out at the Hare Krishna temple", "Hare Krishna"),
    "vacation_prefs": ("is counting down to a trip to Disneyland Paris", "am counting down to a trip to Disneyland Paris", "Disneyland Paris"),
    "favorite_food": ("would eat mango sticky rice every day", "would eat mango sticky rice every day", "mango sticky rice"),
}


def _spoken_options(rng: random.Random, answer: str) -> str:
    """Family I's options as a spoken question ("Is it x, y, z or w?"), drawn from every family's diagnoses (its own pool:
    the pools of families A-H are unchanged)."""
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F + CASES_G + CASES_H + CASES_I]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return "Is it " + ", ".join(choices[:3]) + " or " + choices[3] + "?"


def _family_i(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family I: a parent's message around a school nurse's note, a health-app export pasted with a question, or a
    sports club first-aider's incident report."""
    symptoms, finding, answer = rng.choice(CASES_I)
    layout = rng.choice(["school", "app", "incident"])
    age = str({"school": rng.randint(11, 17), "app": rng.randint(19, 78), "incident": rng.randint(16, 64)}[layout])
    male = rng.random() < 0.5
    subject = {"school": "family", "app": "self", "incident": "third_party"}[layout]
    sex = {"school": ("son", "daughter"), "app": ("male", "female"), "incident": ("M", "F")}[layout][0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_I), k=2)
    facts = {k: rng.choice(HISTORY_I[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_I), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_I[k][2], k, subject, False) for k in chosen]
    label = {"school": "student no.", "app": "account ID", "incident": "membership no."}[layout]
    number = f"{label} {faker.numerify('#######')}" if rng.random() < 0.4 else None
    if number:
        items.append(Item(number, "ssn", subject, False))
    options = _spoken_options(rng, answer)
    pronoun, possessive = ("he", "his") if male else ("she", "her")
    order = sorted(kinds, key=list(HISTORY_I).index)
    if layout == "school":
        history = {"physical_health": f"{pronoun} has {facts.get('physical_health', '')}", "medications": f"{pronoun} takes {facts.get('medications', '')}",
                   "smoker": f"I found out {pronoun} uses {facts.get('smoker', '')}", "family_history": f"there is {facts.get('family_history', '')} on my side of the family"}
        lines = [
            f"The school nurse sent my {sex} home today with this note, copied word for word:",
            f'"Dear parent/carer, {name}' + (f" ({number})" if number else "") + f" came to the medical room this afternoon complaining of {symptoms[0]} and {symptoms[1]}.",
            f"We noted {finding} on the letter from last week's clinic visit that {pronoun} had in {possessive} bag. Please arrange for your child to be seen by a doctor today. School Nurse\"",
            f"For what it's worth, {pronoun} is {age}, and " + " and ".join(history[k] for k in order) + ".",
            f"Otherwise {pronoun} is a normal teenager - {pronoun} " + _and([INERT_I[k][0] for k in chosen]) + ".",
            "While we wait for the GP to call back: " + options,
        ]
    elif layout == "app":
        history = {"physical_health": f"Conditions: {facts.get('physical_health', '')}", "medications": f"Medications: {facts.get('medications', '')}",
                   "smoker": f"Smoking/vaping: {facts.get('smoker', '')}", "family_history": f"Family history: {facts.get('family_history', '')}"}
        lines = [
            "Pasting the export from my health app, since the doctor's is closed until Monday:",
            "=== Health summary export ===",
            f"Profile: {name}" + (f" | {number}" if number else "") + f" | age {age} | sex {sex}",
            *(history[k] for k in order),
            f"Symptom log (last 7 days): {symptoms[0]}; {symptoms[1]}",
            f"Attached lab result: {finding}",
            "Notes: I " + "; I ".join(INERT_I[k][1] for k in chosen),
            "=== end of export ===",
            "Reading all that together, what is most likely going on? " + options,
        ]
    else:
        history = {"physical_health": f"known {facts.get('physical_health', '')}", "medications": f"takes {facts.get('medications', '')}",
                   "smoker": f"uses {facts.get('smoker', '')}", "family_history": f"says {facts.get('family_history', '')} runs in the family"}
        lines = [
            "Club first-aider here. Copying my incident report from Saturday, because I keep wondering what it was:",
            "INCIDENT REPORT - Riverside Athletic Club",
            f"Injured/ill person: {name}" + (f", {number}" if number else "") + f"; age {age}; sex {sex}",
            f"What happened: reported {symptoms[0]} and {symptoms[1]} during training",
            "Relevant history given: " + ", ".join(history[k] for k in order),
            f"Follow-up: hospital later confirmed {finding}",
            f"Other: teammates say {pronoun} " + _and([INERT_I[k][0] for k in chosen]),
            "For my own learning - " + options[:1].lower() + options[1:],
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "I", "medical", "multiple_choice_qa", text, items, lines[-1])


#: Family J: (symptoms, the test or examination finding that points to the answer, answer); findings are essential items.
CASES_J = [
    (["a rounder face and weight gain around the middle", "purple stretch marks on the belly"], "high late-night salivary cortisol", "Cushing syndrome"),
    (["a dry cough that won't settle", "tender red lumps on both shins"], "swollen lymph nodes around both lungs on the CT", "sarcoidosis"),
    (["a burning stripe of pain around one side of the chest", "a blistering rash two days later"], "VZV PCR positive from a blister swab", "herpes zoster"),
    (["a bronze tint to the skin", "aching knuckles"], "ferritin 2,400 ug/L with transferrin saturation 78%", "hereditary hemochromatosis"),
    (["an unquenchable thirst", "huge amounts of pale urine"], "urine osmolality 90 mOsm/kg after water deprivation", "diabetes insipidus"),
    (["painful swollen joints", "a butterfly-shaped rash across the cheeks"], "positive anti-dsDNA antibodies", "systemic lupus erythematosus"),
]
HISTORY_J = {"physical_health": ["sickle cell trait", "no spleen after a car crash", "chronic sinusitis"], "medications": ["levetiracetam", "carbimazole", "bisoprolol"], "smoker": ["a shisha pipe most weekends"], "family_history": ["early-onset dementia", "myotonic dystrophy"]}
#: Family J inert details: (third-person wording, first-person wording, item).
INERT_J = {
    "favorite_hobbies": ("plays in a Sunday pickleball league", "play in a Sunday pickleball league", "pickleball"),
    "pet_ownership": ("keeps two rabbits called Salt and Pepper", "keep two rabbits called Salt and Pepper", "two rabbits called Salt and Pepper"),
    "movie_prefs": ("watches every Studio Ghibli film", "watch every Studio Ghibli film", "Studio Ghibli"),
    "religious_beliefs": ("sings in the gospel choir at a Pentecostal church", "sing in the gospel choir at a Pentecostal church", "Pentecostal"),
    "vacation_prefs": ("is saving up to see the northern lights in Tromso", "am saving up to see the northern lights in Tromso", "northern lights in Tromso"),
    "favorite_food": ("makes chicken katsu curry every Friday", "make chicken katsu curry every Friday", "chicken katsu curry"),
}


def _piped(rng: random.Random, answer: str) -> str:
    """Family J's options separated by pipes, drawn from every family's diagnoses (its own pool: the pools of families
    A-I are unchanged)."""
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F + CASES_G + CASES_H + CASES_I + CASES_J]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return " | ".join(choices)


def _family_j(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family J: a community interpreter's write-up of a consultation as dialogue, a friend's group-chat messages pasted
    in, or the transcript of a symptom-checker chatbot that gave up."""
    symptoms, finding, answer = rng.choice(CASES_J)
    layout = rng.choice(["interpreter", "groupchat", "chatbot"])
    age = str({"interpreter": rng.randint(55, 88), "groupchat": rng.randint(21, 45), "chatbot": rng.randint(18, 70)}[layout])
    male = rng.random() < 0.5
    subject = {"interpreter": "third_party", "groupchat": "friend", "chatbot": "self"}[layout]
    sex = {"interpreter": ("grandfather", "grandmother"), "groupchat": ("guy", "girl"), "chatbot": ("male", "female")}[layout][0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_J), k=2)
    facts = {k: rng.choice(HISTORY_J[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_J), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_J[k][2], k, subject, False) for k in chosen]
    number = None
    if layout != "groupchat" and rng.random() < 0.4:
        number = ("clinic ref " if layout == "interpreter" else "member ID ") + faker.bothify("??-######").upper()
        items.append(Item(number, "ssn", subject, False))
    options = _piped(rng, answer)
    order = sorted(kinds, key=list(HISTORY_J).index)
    article = "an" if age.startswith("8") or age in ("11", "18") else "a"
    history = {"physical_health": f"I have {facts.get('physical_health', '')}", "medications": f"I'm on {facts.get('medications', '')}",
               "smoker": f"I smoke {facts.get('smoker', '')}", "family_history": f"{facts.get('family_history', '')} runs in my family"}
    if layout == "interpreter":
        lines = [
            "I volunteer as an interpreter at a community clinic. Writing up this morning's consultation from my notes because it stuck with me:",
            f"Patient: {name}" + (f" ({number})" if number else "") + f", {article} {age}-year-old {sex}",
            "Doctor: What brings you in today?",
            f"Patient (through me): For about a week I've had {symptoms[0]}, and now {symptoms[1]}.",
            "Doctor: Any illnesses, regular medicines, smoking, anything in the family?",
            "Patient (through me): " + " and ".join(history[k] for k in order) + ".",
            "Patient (through me, while we waited): I " + _and([INERT_J[k][1] for k in chosen]) + ".",
            f"Doctor (reading the results): {finding}.",
            "The doctor didn't say what she suspected. Which of these would it most likely be? " + options,
        ]
    elif layout == "groupchat":
        lines = [
            f"Pasting some messages from our group chat. My friend is {article} {age}-year-old {sex} and I'm a bit worried:",
            f"{name}: ugh still feeling rubbish. {symptoms[0]} since Sunday and now {symptoms[1]}",
            "Me: omg have you seen anyone??",
            f"{name}: urgent care did some tests. they said {finding}",
            f"{name}: and before anyone asks, " + " and ".join(history[k] for k in order),
            "Me: what did they say it is?",
            f"{name}: waiting for a callback. distract me pls",
            f"{name}: this week I " + _and([INERT_J[k][1] for k in chosen]) + " so at least that's normal",
            "None of us are medical. Which of these sounds most like it? " + options,
        ]
    else:
        lines = [
            "I tried one of those symptom-checker bots and it gave up on me, so here's the transcript:",
            "Bot: Hi! What's your name?",
            f"Me: {name}",
            "Bot: How old are you?",
            f"Me: {age}",
            "Bot: What sex were you assigned at birth?",
            f"Me: {sex}",
            "Bot: What symptoms are you having?",
            f"Me: {symptoms[0]}, and {symptoms[1]}",
            "Bot: Do you have any test results?",
            f"Me: yes, {finding}",
            "Bot: Any medical conditions, medicines, smoking or family history?",
            "Me: " + "; ".join(history[k] for k in order),
            *(["Bot: Please enter your insurance member ID (optional).", f"Me: {number}"] if number else []),
            "Bot: Anything else you'd like to tell me?",
            "Me: not medical really, I " + "; I ".join(INERT_J[k][1] for k in chosen),
            "Bot: Sorry, I can't assess this. Please contact a healthcare professional.",
            "So you tell me: which of these is it most likely to be? " + options,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "J", "medical", "multiple_choice_qa", text, items, lines[-1])


#: Family K: (symptoms, the test or examination finding that points to the answer, answer); findings are essential items.
CASES_K = [
    (["a fever that comes back every other day", "drenching sweats with shaking chills"], "parasites seen on a thick blood film", "malaria"),
    (["cramping pain in the calves after a few hundred metres of walking", "cold pale feet"], "an ankle-brachial index of 0.6", "peripheral arterial disease"),
    (["a painful red eye", "blurred vision in bright light"], "inflammatory cells in the front of the eye on slit-lamp exam", "anterior uveitis"),
    (["a deep ache in one shin that gets worse with every run", "a tender spot on the bone"], "a fracture line through the tibia on the MRI", "tibial stress fracture"),
    (["crushing tiredness for three weeks", "a sore throat with swollen neck glands"], "a positive Monospot test", "infectious mononucleosis"),
    (["a racing heart on standing", "nearly fainting in queues"], "a heart rate rise of 45 bpm on a tilt-table test", "postural orthostatic tachycardia syndrome"),
]
HISTORY_K = {"physical_health": ["a bicuspid aortic valve", "Barrett's oesophagus", "hereditary spherocytosis"], "medications": ["ivabradine", "sumatriptan", "colchicine"], "smoker": ["a cigar after every round of golf"], "family_history": ["Brugada syndrome", "Fabry disease"]}
#: Family K inert details: (third-person wording, item); every family K vignette is about someone else.
INERT_K = {
    "favorite_hobbies": ("builds ship models in bottles", "ship models in bottles"),
    "pet_ownership": ("has a ginger cat called Marmalade", "ginger cat called Marmalade"),
    "movie_prefs": ("rewatches the Lord of the Rings films every winter", "Lord of the Rings"),
    "religious_beliefs": ("is an elder at the local Presbyterian church", "Presbyterian"),
    "vacation_prefs": ("is planning to walk the Camino de Santiago", "Camino de Santiago"),
    "favorite_food": ("swears by homemade sourdough", "homemade sourdough"),
}


def _radio(rng: random.Random, answer: str) -> str:
    """Family K's options as radio buttons, "( ) ...", drawn from every family's diagnoses (its own pool: the pools of
    families A-J are unchanged)."""
    pool = [c[-1] for c in CASES_A + CASES_B + CASES_C + CASES_D + CASES_E + CASES_F + CASES_G + CASES_H + CASES_I + CASES_J + CASES_K]
    choices = rng.sample([d for d in pool if d != answer], 3) + [answer]
    rng.shuffle(choices)
    return " ".join(f"( ) {c}" for c in choices)


def _family_k(sample_id: str, rng: random.Random, faker: Faker) -> Sample:
    """Family K: a trekking company's base-office log of a guide's satellite messages about a client, a personal
    trainer's session notes about a client, or a line manager's return-to-work meeting notes about a team member."""
    symptoms, finding, answer = rng.choice(CASES_K)
    layout = rng.choice(["satellite", "trainer", "return_to_work"])
    age = str({"satellite": rng.randint(28, 67), "trainer": rng.randint(19, 58), "return_to_work": rng.randint(22, 64)}[layout])
    male = rng.random() < 0.5
    subject = "coworker" if layout == "return_to_work" else "third_party"
    sex = {"satellite": ("chap", "lass"), "trainer": ("he/him", "she/her"), "return_to_work": ("Mr", "Ms")}[layout][0 if male else 1]
    items = [Item(age, "age", subject, True), Item(sex, "gender", subject, True)]
    items += [Item(s, "physical_health", subject, True) for s in (*symptoms, finding)]
    kinds = rng.sample(list(HISTORY_K), k=2)
    facts = {k: rng.choice(HISTORY_K[k]) for k in kinds}
    items += [Item(v, k, subject, True) for k, v in facts.items()]
    chosen = rng.sample(list(INERT_K), k=rng.choice([2, 3]))
    name = faker.name_male() if male else faker.name_female()
    items.append(Item(name, "name", subject, False))
    items += [Item(INERT_K[k][1], k, subject, False) for k in chosen]
    number = None
    if rng.random() < 0.4:
        number = {"satellite": "policy no. ", "trainer": "membership no. ", "return_to_work": "staff no. "}[layout] + faker.bothify("##??####").upper()
        items.append(Item(number, "ssn", subject, False))
    options = _radio(rng, answer)
    order = sorted(kinds, key=list(HISTORY_K).index)
    pronoun = "he" if male else "she"
    history = {"physical_health": f"has {facts.get('physical_health', '')}", "medications": f"takes {facts.get('medications', '')}",
               "smoker": f"smokes {facts.get('smoker', '')}", "family_history": f"has {facts.get('family_history', '')} in the family"}
    background = " and ".join(history[k] for k in order)
    social = _and([INERT_K[k][0] for k in chosen])
    if layout == "satellite":
        lines = [
            "I work in the base office of a small trekking company. Our guide can only send short satellite messages, so here they are in order:",
            f"06:12 GUIDE: client {name}" + (f" ({number})" if number else "") + f" unwell. {age} y/o {sex}. Complaining of {symptoms[0]}.",
            f"06:15 GUIDE: Since last night also {symptoms[1]}. Resting in tent.",
            f"07:40 GUIDE: Checked medical form. {pronoun.capitalize()} {background}.",
            f"09:05 GUIDE: Medic at the village clinic reports {finding}.",
            f"09:30 GUIDE: Spirits ok. Chatted about home, {pronoun} {social}.",
            "10:02 GUIDE: Awaiting evac decision.",
            "Before I call the insurer I want to know what we're dealing with. Which of these is most likely? " + options,
        ]
    elif layout == "trainer":
        lines = [
            "I'm a personal trainer. These are my notes on a client from today, copied out of my coaching app:",
            f"Client: {name}" + (f", {number}" if number else ""),
            f"Age: {age} | Pronouns: {sex}",
            f"Check-in: reports {symptoms[0]}, and lately {symptoms[1]}.",
            f"Health questionnaire: {background}.",
            f"Letter from the GP brought along: {finding}.",
            f"Rapport notes: {social}.",
            "Plan: session stopped early, referred back to GP.",
            "I know it's not my job to diagnose, but I'd like to understand it. Which of these fits best? " + options,
        ]
    else:
        lines = [
            "I manage a small team. These are my notes from a return-to-work meeting this morning, on the HR template:",
            f"Employee: {sex} {name}" + (f" ({number})" if number else ""),
            f"Age (HR file): {age}",
            f"Reason for absence, in their words: {symptoms[0]}, then {symptoms[1]}.",
            f"Results they chose to share: {finding}.",
            f"Health background they mentioned: {pronoun} {background}.",
            f"General chat: {pronoun} {social}.",
            "Adjustments agreed: phased return over two weeks.",
            "Just so I can be supportive, which of these is it most likely to be? " + options,
        ]
    text = "\n".join(lines)
    return Sample(sample_id, "K", "medical", "multiple_choice_qa", text, items, lines[-1])
