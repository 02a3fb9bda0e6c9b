"""Seeded synthetic texts with labelled sensitive values, for detector recall.

Each text is a short record about one invented person, written from a pool
of sentence templates; values come from Faker (en_US, seeded) in the
surface forms Faker produces (``+1-415-555-0100x123``, ``GB38ESZY...``,
``Housing manager/officer``), so the set exercises formats the example
corpora do not.  Every value is recorded with its category (ids from
``policy_engine/vocab/categories.yaml``) and exact offsets.  The condition and
medication names are drawn from lists written here independently of the
recognizers' lexicons, partly outside them, so recall on them is not
circular.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from faker import Faker

CONDITIONS = [
    "type 2 diabetes", "hypertension", "asthma", "major depressive disorder", "chronic migraine", "atrial fibrillation",
    "rheumatoid arthritis", "hypothyroidism", "generalized anxiety disorder", "COPD", "celiac disease", "multiple sclerosis",
    "early-onset Alzheimer's disease", "chronic kidney disease stage 3", "sleep apnea", "gout", "psoriasis", "epilepsy",
    "plantar fasciitis", "Hashimoto's thyroiditis", "ankylosing spondylitis", "bipolar II disorder",
]
MEDICATIONS = [
    "metformin", "lisinopril", "atorvastatin", "levothyroxine", "sertraline", "albuterol", "amlodipine", "omeprazole",
    "gabapentin", "apixaban", "escitalopram", "losartan", "prednisone", "rosuvastatin", "montelukast", "duloxetine",
    "lamotrigine", "adalimumab", "tirzepatide", "ustekinumab", "topiramate",
]
DOSES = ["5 mg", "10 mg", "20 mg", "25 mcg", "50 mg", "100 mg", "500 mg", "1000 mg", "2.5 mg", "40 mg twice daily", "90 mcg"]
RELATIVES = ["wife", "husband", "daughter", "son", "mother", "father", "sister", "brother", "spouse", "partner"]
ROLES = [("patient", "Patient"), ("customer", "Customer"), ("client", "Client"), ("witness", "Witness")]


@dataclass
class LabelledText:
    """A text and its sensitive values: ``text[start:end] == value``."""

    text_id: str
    text: str = ""
    spans: list[dict] = field(default_factory=list)

    def add(self, *parts: str | tuple[str, str]) -> None:
        """Append plain strings and ``(value, category)`` pairs, recording the pairs' offsets."""
        for part in parts:
            if isinstance(part, tuple):
                value, category = part
                self.spans.append({"start": len(self.text), "end": len(self.text) + len(value), "value": value, "category": category})
                self.text += value
            else:
                self.text += part


def _date(fake: Faker, rng: random.Random, birth: bool = False) -> str:
    day = fake.date_of_birth(minimum_age=18, maximum_age=90) if birth else fake.date_between("-3y", "today")
    style = rng.randrange(5)
    return [f"{day:%B} {day.day}, {day.year}", f"{day:%m/%d/%Y}", day.isoformat(), f"{day.day} {day:%B} {day.year}", f"{day:%b} {day.day}, {day.year}"][style]


def _case_number(rng: random.Random) -> str:
    year = rng.randrange(18, 26)
    return rng.choice(
        [
            f"{rng.randrange(1, 9)}:{year}-cv-{rng.randrange(100, 99999):05d}",
            f"CV-20{year}-{rng.randrange(1000, 999999):06d}",
            f"{year}-L-{rng.randrange(10000, 99999)}",
        ]
    )


def generate(seed: int = 1234, count: int = 200) -> list[LabelledText]:
    """``count`` labelled texts, identical for the same seed."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    texts = []
    for n in range(count):
        t = LabelledText(f"synthetic-{n:04d}")
        role, role_title = rng.choice(ROLES)
        first, last = fake.first_name(), fake.last_name()
        doctor_first, doctor_last = fake.first_name(), fake.last_name()
        t.add(f"{role_title} ", (f"{first} {last}", "person_name"), " (DOB ", (_date(fake, rng, birth=True), "date_of_birth"), ") was seen on ",
              (_date(fake, rng), "date"), " by Dr. ", (f"{doctor_first} {doctor_last}", "person_name"), ". ")
        t.add(rng.choice(["Mr. ", "Ms. "]), (last, "person_name"), " is a ", (f"{rng.randrange(19, 89)}-year-old", "age"), " ",
              (fake.job(), "occupation"), " employed by ", (fake.company(), "employer"), ". ")
        t.add("Home address: ", (fake.street_address(), "address"), ", ", (f"{fake.city()}, {fake.state_abbr()} {fake.zipcode()}", "address"), ". ")
        t.add("Phone ", (fake.phone_number(), "contact"), ", e-mail ", (fake.email(), "contact"), ". ")
        kind = rng.randrange(4)
        if kind == 0:
            t.add("SSN on file: ", (fake.ssn(), "government_id"), "; MRN ", (str(rng.randrange(1000000, 9999999)), "medical_record_number"), ". ")
            t.add("Diagnosed with ", (rng.choice(CONDITIONS), "medical_condition"), " and started on ",
                  (f"{rng.choice(MEDICATIONS)} {rng.choice(DOSES)}", "medication"), ". ")
        elif kind == 1:
            t.add("Card ", (fake.credit_card_number(), "financial_account"), " was charged ", (fake.pricetag(), "financial_amount"), "; refund to IBAN ",
                  (fake.iban(), "financial_account"), ". ")
            t.add("Wire from account number ", (fake.bban()[-10:], "financial_account"), ", routing number ", (fake.aba(), "financial_account"), ". ")
        elif kind == 2:
            t.add("Her ", (rng.choice(RELATIVES), "relative"), ", ", (fake.name(), "person_name"), ", attended the hearing in ", (_case_number(rng), "case_number"),
                  " on ", (_date(fake, rng), "date"), ". ")
            t.add("The settlement of ", (fake.pricetag(), "financial_amount"), " was approved in ", (fake.city(), "location"), ". ")
        else:
            t.add("History of ", (rng.choice(CONDITIONS), "medical_condition"), "; current medication ", (f"{rng.choice(MEDICATIONS)} {rng.choice(DOSES)}", "medication"), ". ")
            t.add("Emergency contact: ", (rng.choice(RELATIVES), "relative"), " ", (fake.name(), "person_name"), " at ", (fake.phone_number(), "contact"), ".")
        t.add("\n")
        texts.append(t)
    return texts
