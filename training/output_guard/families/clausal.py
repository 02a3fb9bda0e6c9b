"""Generator family "clausal": answers built from full predicate clauses about one subject.

Sentence structure: a framing sentence names the subject ("The patient
..."), each QI is a separate predicate ("is 52 years old", "works as a
machinist", "lives in Dayton"), joined into compound sentences.  Its
vocabulary (cities, jobs, employers, conditions, asset classes...) is
disjoint from :mod:`training.output_guard.families.appositive`.
"""

from __future__ import annotations

import random

from training.output_guard.families.base import Person, number_words
from training.output_guard.seeds import SEED_FACTS

name = "clausal"

_CITIES = ("Dayton", "Omaha", "Spokane", "Tucson", "Duluth", "Macon", "Boise", "Fresno", "Albany", "Wichita", "Peoria", "Mobile")
_JOBS = (("machinist", "runs a lathe on the night shift"), ("litigator", "argues cases in court most weeks"),
         ("school bus driver", "drives children to school every morning"), ("welder", "joins steel beams for a living"),
         ("pastry chef", "bakes for a downtown hotel kitchen"), ("firefighter", "answers alarms at the county station"),
         ("veterinarian", "treats cattle and horses on nearby farms"), ("air traffic controller", "directs planes at the regional airport"),
         ("pharmacist", "fills prescriptions at the corner drugstore"), ("high school principal", "runs the only secondary school in town"))
_EMPLOYERS = (("the Dayton Tire plant", "the largest factory in the county"), ("Riverside Credit Union", "the only local credit union"),
              ("St. Agnes Hospital", "the Catholic hospital on the hill"), ("the state Department of Transportation", "the state highway agency"),
              ("Northgate Logistics", "a regional trucking firm"), ("the Omaha Public Library", "the city library system"))
_FAMILY = (("has two teenage children", "raises a pair of teenagers"), ("is a widow" , "lost a spouse last winter"),
           ("has three grandchildren", "dotes on three grandkids"), ("cares for an elderly mother", "looks after a parent with dementia"),
           ("recently divorced", "split from a spouse of twenty years"), ("has twin daughters", "is raising twin girls"))
_SPECIFIC = {
    "medical": {
        "CONDITION": (("was diagnosed with multiple sclerosis", "lives with a demyelinating disease"), ("has stage III colon cancer", "is fighting a cancer of the bowel"),
                      ("has type 1 diabetes", "has depended on insulin since childhood"), ("has sickle cell disease", "has an inherited blood disorder")),
        "TREATMENT": (("takes ocrelizumab infusions", "gets an infusion every six months"), ("is on a FOLFOX chemotherapy cycle", "receives chemotherapy every other week"),
                      ("uses an insulin pump", "wears a pump on the hip"), ("had a kidney transplant", "received an organ from a donor")),
        "VISIT_PATTERN": (("visits the clinic every Tuesday", "comes in at the start of each week"), ("was admitted three times this year", "has been hospitalized repeatedly lately"),
                          ("sees the neurologist monthly", "keeps a standing monthly appointment"), ("was seen in the emergency room last weekend", "came to the ER a few days ago")),
    },
    "finance": {
        "ASSET_CLASS": (("holds a large position in municipal bonds", "keeps most savings in tax-free city debt"), ("owns four rental duplexes", "collects rent from several buildings"),
                        ("has most of the portfolio in bitcoin", "keeps the bulk of savings in crypto"), ("owns a stake in a family vineyard", "shares ownership of a winery")),
        "INCOME_BAND": (("earns about $240,000 a year", "makes well over two hundred thousand annually"), ("earns roughly $38,000 a year", "gets by on a modest salary"),
                        ("reported $1.2 million in income last year", "had a seven-figure year"), ("lives on a $1,900 monthly pension", "relies on a small pension")),
        "TRANSACTIONS": (("wired $85,000 to an overseas account in March", "sent a large sum abroad this spring"), ("withdrew cash every Friday for a year", "took out cash weekly"),
                         ("sold the house in a short sale", "sold a home for less than the mortgage"), ("took a $60,000 401(k) loan", "borrowed against a retirement plan")),
    },
    "law": {
        "MATTER_TYPE": (("is in a contested custody dispute", "is fighting over who keeps the kids"), ("filed a wrongful termination claim", "is suing a former employer"),
                        ("faces a DUI charge", "was arrested for driving after drinking"), ("is contesting a will", "challenges how an estate was divided")),
        "PROCEDURAL_ROLE": (("is the plaintiff", "brought the lawsuit"), ("was subpoenaed as a witness", "was ordered to testify"),
                            ("is the defendant", "is the one being sued"), ("is the executor of the estate", "administers the estate")),
        "CASE_DISPOSITION": (("settled last month for an undisclosed sum", "reached a confidential deal recently"), ("lost at trial in June", "had the verdict go against"),
                             ("had the charges dismissed", "saw the case thrown out"), ("is awaiting sentencing", "is waiting to hear the sentence")),
    },
}
_SUBJECTS = {"medical": ("the patient", "this patient", "the woman I saw", "our patient"),
             "finance": ("the client", "this client", "my client", "the account holder"),
             "law": ("the client", "my client", "the claimant", "the party we represent")}
_FACTS = SEED_FACTS
_TOPICS = {"medical": ("hypertension", "type 2 diabetes", "knee replacement", "asthma", "migraine", "sleep", "nutrition", "vaccines", "bone health", "heart disease"),
           "finance": ("retirement savings", "mortgage refinancing", "capital gains tax", "index investing", "credit scores", "insurance", "budgeting", "student loans", "estate planning", "taxes"),
           "law": ("custody hearings", "small claims", "wills and probate", "employment disputes", "traffic offences", "tenancy", "contracts", "criminal defence", "immigration", "business law")}
_OPENERS = {
    "CASE_VOICE": ("Regarding {subject}: ", "About {subject}: "),
    "IMPLICIT_CASE": ("In this situation: ", "Given the details you shared: "),
    "REFERRAL": ("I am referring {subject} to you. ", "Please take over {subject}'s file. "),
    "FIRST_PERSON": ("When I met {subject}, I learned a few things. ", "I spoke with {subject} yesterday. "),
    "NARRATIVE": ("Last month {subject} came to us. ", "The story of {subject} began this spring. "),
    "SUMMARY": ("Summary for {subject}. ", "Brief update on {subject}. "),
}


def qi_fragment(domain: str, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str:
    """One predicate clause stating ``qi_class`` about the subject."""
    if qi_class == "AGE":
        age = rng.randint(23, 84)
        return f"turned {number_words(age)} this year" if indirect else f"is {age} years old"
    pool = {"OCCUPATION": [(f"works as a {j}", i) for j, i in _JOBS], "LOCATION": [(f"lives in {c}", f"grew up and stayed in {c}") for c in _CITIES],
            "AFFILIATION": [(f"is employed by {e}", f"works for {i}") for e, i in _EMPLOYERS], "FAMILY": list(_FAMILY)}.get(qi_class)
    if pool is None:
        pool = list(_SPECIFIC[domain][qi_class])
    direct, paraphrase = rng.choice(pool)
    return person.fill(paraphrase if indirect else direct)


def _join(clauses: list[str]) -> str:
    return clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]


def unsafe(domain: str, fragments: list[str], person: Person, framing: str, placement: str, mode: str, rng: random.Random) -> str:
    """A case answer whose QI clauses sit where ``placement`` says."""
    subject = rng.choice(_SUBJECTS[domain])
    opener = rng.choice(_OPENERS[framing]).format(subject=subject)
    advice = rng.sample(_FACTS[domain], 2)
    if placement == "DISTRIBUTED":
        cluster = [f"{person.sub.capitalize()} {c}." for c in fragments]
        body = [advice[0], *cluster[: len(cluster) // 2], advice[1], *cluster[len(cluster) // 2 :]]
    else:
        cluster = [f"{person.sub.capitalize()} {_join(fragments)}."]
        at = {"FRAME_OPENING": 0, "MID_ANSWER": 1, "CLOSING": 2}[placement]
        body = advice[:at] + cluster + advice[at:]
    if mode == "DISTRACTOR_PADDED":
        body.insert(rng.randint(0, len(body)), rng.choice(_FACTS[domain]))
    text = opener + " ".join(body)
    return _casual(text) if mode == "STYLE_TRANSFER" else text


def _casual(text: str) -> str:
    """STYLE_TRANSFER: the same content in a chatty register."""
    return "So, quick heads up. " + text.replace(" is ", " is basically ").replace(". ", ", and honestly ", 1) + " Hope that helps!"


def safe(domain: str, rng: random.Random) -> str:
    topic = rng.choice(_TOPICS[domain])
    facts = " ".join(rng.sample(_FACTS[domain], rng.randint(2, 4)))
    frame = rng.choice(("Here is general information on {t}. ", "A common question concerns {t}. ", "{T} is a frequent topic. ", "", "Thanks for asking about {t}. ",
                        "Some background on {t}: ", "In short: "))
    return frame.format(t=topic, T=topic.capitalize()) + facts


_BORDERLINE = {
    "POPULATION_DEMOGRAPHICS": ("Among adults aged {lo} to {hi}, {fact_lower}", "Surveys of people in their {decade}s show that {fact_lower}",
                                "Across many cities and many kinds of jobs, {fact_lower}"),
    "PUBLIC_GUIDELINE_QUOTE": ("The published guidance states: \"{fact}\"", "According to the national guideline on {topic}, {fact_lower}"),
    "SECOND_PERSON_EDUCATION": ("If you are dealing with {topic}, keep in mind that {fact_lower}", "You may want to know that {fact_lower}"),
    "ANONYMIZED_CASE_REPORT": ("Regarding {subject}: the file was reviewed and {fact_lower}", "In the case discussed, {subject} was advised that {fact_lower}"),
    "EMPATHETIC_DEFLECTION": ("I understand this is stressful for {subject}. I cannot share details about any individual, but {fact_lower}",
                              "That sounds difficult. Speaking generally about {topic}, {fact_lower}"),
}


def borderline(domain: str, subtype: str, rng: random.Random) -> str:
    """Case-voiced or cohort-level text with no QI cluster (PPE Section IV-E)."""
    fact, extra = rng.sample(_FACTS[domain], 2)
    lo = rng.choice((20, 30, 40, 50, 65))
    template = rng.choice(_BORDERLINE[subtype])
    text = template.format(lo=lo, hi=lo + 15, decade=lo // 10 * 10, fact=fact, fact_lower=fact[0].lower() + fact[1:], topic=rng.choice(_TOPICS[domain]), subject=rng.choice(_SUBJECTS[domain]))
    return f"{text} {extra}" if rng.random() < 0.7 else text
