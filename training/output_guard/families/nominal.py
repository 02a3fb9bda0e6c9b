"""Generator family "nominal": formal report prose, QIs as nominalizations in passive sentences.

Sentence structure: each QI is a noun phrase about the subject's attribute
("Her residence in Laramie was confirmed.", "His employment as a
cartographer was noted."), in an impersonal report register ("It was
recorded that ...", "The following was documented: ..."); the style-transfer
mode compresses the report into a headline with semicolons.  Vocabulary and
templates are disjoint from the other families; it is a training family.
"""

from __future__ import annotations

import random

from training.output_guard.families.base import Person, SentenceTable, sentence_fragment
from training.output_guard.seeds import SEED_FACTS

name = "nominal"

_SITES = ("Laramie", "Tupelo", "Ketchikan", "Kokomo", "Paducah", "Walla Walla", "Hilo", "Elko", "Natchez", "Moab", "Butte", "Winslow")
_ROLES = (("cartographer", "drawing maps for the county"), ("jockey", "riding at the racetrack"), ("submarine cook", "feeding a navy crew"),
          ("organ builder", "building church organs"), ("rodeo clown", "protecting riders in the arena"), ("fire lookout", "watching for smoke from a tower"),
          ("sign language interpreter", "signing at public meetings"), ("ice road trucker", "hauling loads over frozen lakes"), ("puppeteer", "staging shows for children"),
          ("mortician", "preparing bodies at the funeral home"))
_BODIES = (("Ironwood Foundry", "the foundry by the rail yard"), ("the Paducah Riverboat Casino", "the casino on the river"), ("Juniper Valley Cooperative", "the farmers' cooperative"),
           ("St. Brendan's Abbey", "the monastery outside town"), ("Copperline Telecom", "the phone company"), ("the Hilo Tsunami Museum", "the small museum by the harbour"))
_HOUSEHOLD = (("custody of four nephews", "care of several of a sibling's children"), ("a marriage to a retired astronaut", "a marriage to someone famous for spaceflight"),
              ("the recent birth of conjoined twins", "a very unusual recent delivery"), ("a divorce from a sitting judge", "the end of a marriage to a member of the bench"),
              ("the loss of an only child", "a bereavement involving a child"), ("guardianship of an elderly uncle", "responsibility for an ageing relative"))
_ATTRIBUTES = {
    "medical": {
        "CONDITION": (("a diagnosis of myasthenia gravis", "a rare neuromuscular weakness"), ("a diagnosis of scleroderma", "a hardening of the skin and organs"),
                      ("a history of a ruptured aneurysm", "a past bleed in the brain")),
        "TREATMENT": (("treatment with an implanted insulin-free islet graft", "an experimental cell graft"), ("a course of plasma exchange", "repeated filtering of the blood"),
                      ("use of a left ventricular assist device", "a pump supporting the heart")),
        "VISIT_PATTERN": (("attendance at the Wednesday dialysis shift", "regular midweek attendance for filtering"), ("six admissions since February", "frequent readmissions this year"),
                          ("arrival by snowmobile ambulance in January", "an unusual winter transfer to hospital")),
    },
    "finance": {
        "ASSET_CLASS": (("ownership of a private island", "ownership of land surrounded by water"), ("a holding of mineral rights", "rights to what lies under some land"),
                        ("a collection of rare stamps", "an investment in philately")),
        "INCOME_BAND": (("an income of $1.8 million from a franchise", "earnings in the millions from a business"), ("an income of $11 an hour", "earnings at the bottom of the pay scale"),
                        ("a pension of $4,100 a month", "a comfortable monthly retirement payment")),
        "TRANSACTIONS": (("a transfer of $250,000 to a shell company", "a large payment to an opaque firm"), ("the purchase of a helicopter", "the acquisition of an aircraft"),
                         ("the default on a $90,000 business loan", "a failure to repay a company loan")),
    },
    "law": {
        "MATTER_TYPE": (("a dispute over water rights", "a fight over use of a stream"), ("a prosecution for wildlife trafficking", "charges over smuggled animals"),
                        ("a challenge to a zoning variance", "a fight over land-use permission")),
        "PROCEDURAL_ROLE": (("service as jury foreperson", "leadership of the jury"), ("appointment as special master", "a court appointment to oversee evidence"),
                            ("standing as the cross-complainant", "the filing of a counter-claim")),
        "CASE_DISPOSITION": (("a mistrial declared in October", "a trial that ended without a result"), ("a deferred adjudication", "a conditional postponement of judgment"),
                             ("an acquittal on all counts", "a full clearing by the jury")),
    },
}
_REFERENT = {"medical": ("the service user", "the admitted person", "the referred adult"),
             "finance": ("the account owner", "the borrower", "the policyholder"),
             "law": ("the represented party", "the respondent party", "the instructing party")}
_OPENINGS = {
    "CASE_VOICE": "This report concerns {ref}.", "IMPLICIT_CASE": "The following was documented.",
    "REFERRAL": "Transfer of {ref} to your service is requested.", "FIRST_PERSON": "The undersigned assessed {ref}.",
    "NARRATIVE": "The events concerning {ref} are set out below.", "SUMMARY": "Report summary for {ref}.",
}
_AREAS = {"medical": ("preventive care", "medication safety", "chronic disease"), "finance": ("household finance", "lending", "saving"),
          "law": ("civil procedure", "consumer rights", "family law")}


def _sentences(domain: str) -> SentenceTable:
    recorded = ("It was recorded that {pos} file mentions {v}.", "It was recorded that {pos} file mentions {p}.")
    return {
        "OCCUPATION": (_ROLES, "{Pos} employment as a {v} was noted.", "{Pos} work {p} was described."),
        "LOCATION": ([(site, site) for site in _SITES], "{Pos} residence in {v} was confirmed.", "{Pos} long-standing ties to {p} were mentioned."),
        "AFFILIATION": (_BODIES, "{Pos} position at {v} was reported.", "A position at {p} was reported."),
        **{qi_class: (pool, *recorded) for qi_class, pool in (("FAMILY", _HOUSEHOLD), *_ATTRIBUTES[domain].items())},
    }


def qi_fragment(domain: str, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str:
    """One passive sentence whose subject is a nominalization of ``qi_class``."""
    if qi_class == "AGE":
        age = rng.randint(23, 84)
        return person.fill(f"{{Pos}} date of birth places {{obj}} in the cohort born about {2026 - age}." if indirect else f"An age of {age} was recorded.")
    return sentence_fragment(_sentences(domain), qi_class, person, indirect, rng)


def unsafe(domain: str, fragments: list[str], person: Person, framing: str, placement: str, mode: str, rng: random.Random) -> str:
    """A report whose QI sentences sit where ``placement`` says."""
    facts = rng.sample(SEED_FACTS[domain], 2)
    opening = _OPENINGS[framing].format(ref=rng.choice(_REFERENT[domain]))
    if mode == "STYLE_TRANSFER":
        return f"{opening.rstrip('.')} -- " + "; ".join(f.rstrip(".") for f in fragments) + f". Guidance: {facts[0]}"
    if placement == "DISTRIBUTED":
        body = [*fragments[:1], facts[0], *fragments[1:], facts[1]]
    else:
        at = {"FRAME_OPENING": 0, "MID_ANSWER": 1, "CLOSING": 2}[placement]
        body = facts[:at] + fragments + facts[at:]
    if mode == "DISTRACTOR_PADDED":
        body.insert(rng.randint(0, len(body)), rng.choice(SEED_FACTS[domain]))
    return " ".join([opening, *body])


def safe(domain: str, rng: random.Random) -> str:
    facts = rng.sample(SEED_FACTS[domain], rng.randint(2, 4))
    return f"Guidance note on {rng.choice(_AREAS[domain])}. " + " ".join(facts)


_BORDERLINE = {
    "POPULATION_DEMOGRAPHICS": "Registry data for residents aged {lo} and over indicate the following. {f}",
    "PUBLIC_GUIDELINE_QUOTE": "The published standard on {a} was cited: \"{f}\"",
    "SECOND_PERSON_EDUCATION": "Readers concerned about {a} are advised as follows. {f}",
    "ANONYMIZED_CASE_REPORT": "This report concerns {ref}; identifying particulars were removed. {f}",
    "EMPATHETIC_DEFLECTION": "The distress of {ref} was acknowledged; no individual particulars can be disclosed. In general terms: {f}",
}


def borderline(domain: str, subtype: str, rng: random.Random) -> str:
    """Report-voiced text with no QI cluster (PPE Section IV-E)."""
    fact, extra = rng.sample(SEED_FACTS[domain], 2)
    text = _BORDERLINE[subtype].format(lo=rng.choice((18, 45, 60, 80)), f=fact, a=rng.choice(_AREAS[domain]), ref=rng.choice(_REFERENT[domain]))
    return f"{text} {extra}" if rng.random() < 0.5 else text
