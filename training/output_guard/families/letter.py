"""Generator family "letter": correspondence and handover notes, one QI per full sentence.

Sentence structure: a salutation and sign-off frame the text; each QI is
its own sentence with the attribute fronted ("By trade she is a glazier.",
"Her home is in Flagstaff."), seed statements sit between them.  Vocabulary
and templates are disjoint from :mod:`training.output_guard.families.clausal`
and :mod:`training.output_guard.families.appositive`; with "clausal" it forms
the training pool, "appositive" stays held out.
"""

from __future__ import annotations

import random

from training.output_guard.families.base import Person, SentenceTable, number_words, sentence_fragment
from training.output_guard.seeds import SEED_FACTS

name = "letter"

_PLACES = ("Flagstaff", "Missoula", "Roanoke", "Eugene", "Tallahassee", "Cheyenne", "Augusta", "Pueblo", "Dubuque", "Muncie", "Bismarck", "Fargo")
_CRAFTS = (("glazier", "fits windows in new buildings"), ("sommelier", "chooses wines for a restaurant"), ("surveyor", "measures land for developers"),
           ("piano tuner", "keeps the town's pianos in pitch"), ("paramedic", "rides the ambulance on weekends"), ("librarian", "runs the reading room"),
           ("roofer", "spends the days on ladders and shingles"), ("optometrist", "checks eyesight at the mall"), ("chimney sweep", "cleans flues every winter"),
           ("radio host", "presents the morning show"))
_EMPLOYERS = (("Granite Peak Mining", "the mine above the valley"), ("the Roanoke Symphony", "the local orchestra"), ("Cedar Lane Elementary", "the primary school on Cedar Lane"),
              ("Prairie Wind Energy", "the wind farm company"), ("the county sheriff's office", "local law enforcement"), ("Hawthorne Mills", "the old textile mill"))
_KIN = (("lives with a partner and five stepchildren", "shares the house with a large blended family"), ("is the sole carer of a disabled brother", "looks after a sibling full time"),
        ("became a grandparent for the first time in May", "welcomed a first grandchild this spring"), ("lost both parents in a car accident", "was orphaned in a crash"),
        ("has a daughter at West Point", "has a child at the military academy"), ("is expecting triplets", "is about to have three babies at once"))
_SPECIFIC = {
    "medical": {
        "CONDITION": (("has narcolepsy", "falls asleep without warning"), ("has Crohn's disease", "struggles with an inflamed gut"), ("has an ALS diagnosis", "has a progressive motor neurone illness")),
        "TREATMENT": (("is on dialysis three times a week", "is hooked to a kidney machine every other day"), ("takes lithium", "is on a mood stabiliser"), ("had a hip resurfacing", "had the joint rebuilt")),
        "VISIT_PATTERN": (("comes to the Monday sleep lab", "spends every Monday night at the lab"), ("has missed the last four appointments", "keeps skipping visits"), ("was airlifted to us in August", "came in by helicopter late in the summer")),
    },
    "finance": {
        "ASSET_CLASS": (("keeps a collection of vintage cars as an investment", "parks money in classic automobiles"), ("owns a self-storage facility", "rents out storage units"), ("holds timberland", "owns forest acres")),
        "INCOME_BAND": (("clears about $95,000 from royalties", "lives off song royalties"), ("makes minimum wage", "earns the lowest legal pay"), ("inherited $3 million last year", "came into a fortune recently")),
        "TRANSACTIONS": (("paid off the mortgage in one lump sum", "cleared the house loan at once"), ("sends $500 abroad each month", "remits money overseas monthly"), ("opened six credit cards in a week", "applied for lots of cards at once")),
    },
    "law": {
        "MATTER_TYPE": (("is suing a landlord over black mould", "is in a housing-conditions case"), ("faces an embezzlement charge", "is accused of taking company funds"), ("is adopting a foster child", "is going through an adoption")),
        "PROCEDURAL_ROLE": (("is the respondent in the petition", "is answering the petition"), ("is the court-appointed trustee", "was named trustee by the judge"), ("is the complaining witness", "reported the offence and will testify")),
        "CASE_DISPOSITION": (("had the conviction overturned", "won on appeal"), ("was found liable last week", "lost the civil trial recently"), ("agreed to a consent decree", "signed an agreed order")),
    },
}
_NOUN = {"medical": ("the gentleman I mentioned", "the lady we discussed", "the person I am writing about"),
         "finance": ("the customer I mentioned", "the saver we discussed", "the person I am writing about"),
         "law": ("the person I mentioned", "the party we discussed", "the person I am writing about")}
_SALUTE = ("Dear colleague,", "Hello team,", "To whom it may concern,", "Dear Dr Reyes,")
_SIGN = ("Kind regards.", "Best wishes.", "Thank you for your help.", "Yours sincerely.")
_LEAD = {
    "CASE_VOICE": "I am writing about {noun}.", "IMPLICIT_CASE": "A quick note on the situation we talked about.",
    "REFERRAL": "I would like you to see {noun}.", "FIRST_PERSON": "I have been helping {noun} for a while.",
    "NARRATIVE": "Let me tell you about {noun}.", "SUMMARY": "Handover note regarding {noun}.",
}


def _sentences(domain: str) -> SentenceTable:
    return {
        "OCCUPATION": (_CRAFTS, "By trade {sub} is a {v}.", "For a living {sub} {p}."),
        "LOCATION": ([(place, place) for place in _PLACES], "{Pos} home is in {v}.", "{Sub} has never left {p}."),
        "AFFILIATION": (_EMPLOYERS, "{Pos} employer is {v}.", "{Sub} draws a salary from {p}."),
        **{qi_class: (pool, "{Sub} {v}.", "{Sub} {p}.") for qi_class, pool in (("FAMILY", _KIN), *_SPECIFIC[domain].items())},
    }


def qi_fragment(domain: str, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str:
    """One full sentence stating ``qi_class`` about the subject, attribute first."""
    if qi_class == "AGE":
        age = rng.randint(23, 84)
        return person.fill(f"{{Sub}} will be {number_words(age + 1)} next birthday." if indirect else f"At {age}, {{sub}} is still very active.")
    return sentence_fragment(_sentences(domain), qi_class, person, indirect, rng)


def unsafe(domain: str, fragments: list[str], person: Person, framing: str, placement: str, mode: str, rng: random.Random) -> str:
    """A letter whose QI sentences sit where ``placement`` says."""
    facts = rng.sample(SEED_FACTS[domain], 2)
    lead = _LEAD[framing].format(noun=rng.choice(_NOUN[domain]))
    if placement == "DISTRIBUTED":
        body = [fragments[0], facts[0], *fragments[1:], facts[1]]
    else:
        at = {"FRAME_OPENING": 0, "MID_ANSWER": 1, "CLOSING": 2}[placement]
        body = facts[:at] + fragments + facts[at:]
    if mode == "DISTRACTOR_PADDED":
        body.insert(rng.randint(0, len(body)), rng.choice(SEED_FACTS[domain]))
    if mode == "STYLE_TRANSFER":
        return "Note to file. " + lead + " " + " ".join("* " + sentence for sentence in body)
    return " ".join([rng.choice(_SALUTE), lead, *body, rng.choice(_SIGN)])


def safe(domain: str, rng: random.Random) -> str:
    facts = rng.sample(SEED_FACTS[domain], rng.randint(2, 4))
    return " ".join([rng.choice(_SALUTE), "You asked for some general background.", *facts, rng.choice(_SIGN)])


_BORDERLINE = {
    "POPULATION_DEMOGRAPHICS": "Looking at people across the whole state, young and old, the pattern is the same: {fl}",
    "PUBLIC_GUIDELINE_QUOTE": "The public information leaflet puts it plainly: \"{f}\"",
    "SECOND_PERSON_EDUCATION": "Should this ever come up for you, it helps to know this: {fl}",
    "ANONYMIZED_CASE_REPORT": "I am writing about {noun}; identifying details are left out on purpose. {f}",
    "EMPATHETIC_DEFLECTION": "I know how hard this is for {noun}, and I cannot share anyone's particulars. What I can say in general: {fl}",
}


def borderline(domain: str, subtype: str, rng: random.Random) -> str:
    """Letter-voiced text with no QI cluster (PPE Section IV-E)."""
    f, extra = rng.sample(SEED_FACTS[domain], 2)
    text = _BORDERLINE[subtype].format(f=f, fl=f[0].lower() + f[1:], noun=rng.choice(_NOUN[domain]))
    return " ".join([rng.choice(_SALUTE), text, extra, rng.choice(_SIGN)])
