"""Generator family "relative": the subject carried by relative clauses, conversational register.

Sentence structure: the subject is an indefinite description followed by a
chain of relative clauses ("a man in our practice who is 47 years of age,
who drives a snowplow for the county and whose ..."), spread over chatty
sentences with connectives ("Also,", "On top of that,"); the style-transfer
mode writes a terse lower-case message note.  Vocabulary, templates and
sentence structures are disjoint from the other families.  It was the
first held-out family; after its evaluation it became a training family.
"""

from __future__ import annotations

import random

from training.output_guard.families.base import Person, number_words
from training.output_guard.seeds import SEED_FACTS

name = "relative"

_CITIES = ("Kalamazoo", "Rapid City", "Pocatello", "Galveston", "Bozeman", "Asheville", "Scranton", "Yuma", "Terre Haute", "Oshkosh", "Burlington", "Abilene")
_JOBS = (("snowplow driver", "clears the county roads after storms"), ("auctioneer", "calls bids at the livestock sale barn"), ("taxidermist", "mounts trophies for hunters"),
         ("ferry captain", "steers the boat across the bay"), ("farrier", "shoes horses at stables nearby"), ("court interpreter", "translates for people at hearings"),
         ("orthodontist", "puts braces on teenagers"), ("stage magician", "performs tricks at parties and fairs"), ("crop duster pilot", "sprays fields from a small plane"),
         ("glassblower", "makes vases in a studio furnace"))
_EMPLOYERS = (("Lakeshore Dairy", "the creamery by the lake"), ("Summit Ridge Ski Resort", "the ski hill outside town"), ("Tri-County Waste", "the garbage hauler"),
              ("the Galveston Ferry Service", "the boat line to the island"), ("Wexford Paper Mill", "the mill at the edge of town"), ("Bluebonnet Charter School", "the small charter school"))
_KIN = (("is raising a grandson alone", "took in a grandchild without help"), ("has quadruplets", "had four babies in one delivery"),
        ("is engaged to the town's mayor", "is about to marry a local official"), ("has a son in state prison", "has a child who is incarcerated"),
        ("adopted three siblings last year", "took in a brother and two sisters through adoption"), ("lost a spouse to cancer in the spring", "was widowed a few months ago"))
_SPECIFIC = {
    "medical": {
        "CONDITION": (("has Huntington's disease", "carries a hereditary brain disorder"), ("has hemophilia", "bleeds for a long time after small cuts"),
                      ("has a glioblastoma", "has an aggressive tumour in the brain"), ("has anorexia nervosa", "struggles with severe restrictive eating")),
        "TREATMENT": (("takes warfarin", "is on a blood thinner"), ("had a double lung transplant", "breathes with donated lungs"),
                      ("sleeps on a ventilator", "needs a breathing machine at night"), ("receives electroconvulsive therapy", "gets shock treatment for depression")),
        "VISIT_PATTERN": (("comes in for wound care every Friday", "shows up at the end of each week for dressings"), ("has been to the ER five times since spring", "keeps landing in the emergency department"),
                          ("is seen by the hospice team twice a week", "gets two home hospice visits weekly"), ("was brought in by ambulance on New Year's Eve", "arrived by ambulance on the last night of the year")),
    },
    "finance": {
        "ASSET_CLASS": (("owns a marina on the lake", "runs a boat dock business"), ("holds a share in a racehorse syndicate", "co-owns a thoroughbred"),
                        ("keeps savings in rare coins", "collects old coins as an investment"), ("owns a chain of laundromats", "runs several coin laundries")),
        "INCOME_BAND": (("pulls in about $610,000 a year from a dental practice", "makes well over half a million annually"), ("gets $14 an hour", "works for a low hourly rate"),
                        ("receives $2,300 a month in social security", "lives on a modest monthly government check"), ("had a $900,000 bonus last year", "got a huge bonus recently")),
        "TRANSACTIONS": (("sold a ranch for $4 million in May", "sold land for millions this spring"), ("moved savings to a Cayman Islands account", "shifted money offshore"),
                         ("maxed out three credit lines in January", "used up several credit lines at the start of the year"), ("paid a contractor $70,000 in cash", "handed a builder a large cash payment")),
    },
    "law": {
        "MATTER_TYPE": (("is in a medical malpractice suit", "is suing a surgeon over a botched operation"), ("is disputing a noncompete agreement", "is fighting a clause that bars a job change"),
                        ("is charged with arson", "is accused of setting a fire"), ("is in a trademark dispute", "is fighting over a brand name")),
        "PROCEDURAL_ROLE": (("is the named class representative", "leads a group lawsuit"), ("is the intervenor in the case", "joined the case midway"),
                            ("testified as the expert witness", "gave expert evidence at the hearing"), ("is the third-party defendant", "was pulled into the suit by another party")),
        "CASE_DISPOSITION": (("got a suspended sentence", "walked out with a sentence that will not be served"), ("had the case remanded", "saw the file sent back to the lower court"),
                             ("won summary judgment", "won without a trial"), ("is waiting on a retrial date", "will face a second trial")),
    },
}
_WHO = {"medical": ("a man in our practice", "a woman on our ward", "someone we treat"),
        "finance": ("a man who banks with us", "a woman whose account I manage", "someone in our portfolio"),
        "law": ("a man we are advising", "a woman on our caseload", "someone we act for")}
_LEADS = {
    "CASE_VOICE": "On the matter of {who}",
    "IMPLICIT_CASE": "So, thinking about {who}",
    "REFERRAL": "Could your team pick up {who}",
    "FIRST_PERSON": "I keep thinking about {who}",
    "NARRATIVE": "It started with {who}",
    "SUMMARY": "Short recap: {who}",
}
_LINKS = ("Also, ", "On top of that, ", "Worth adding: ", "Separately, ")
_ABOUT = {"medical": ("blood pressure", "cholesterol", "sleep", "vaccines", "back pain"),
          "finance": ("mortgages", "retirement accounts", "emergency funds", "credit cards", "taxes"),
          "law": ("leases", "small claims court", "wills", "traffic tickets", "employment contracts")}


def qi_fragment(domain: str, qi_class: str, person: Person, indirect: bool, rng: random.Random) -> str:
    """One relative clause ("who ...", "whose ...") stating ``qi_class`` about the subject."""
    if qi_class == "AGE":
        age = rng.randint(23, 84)
        return f"who is {number_words(age)} or so" if indirect else rng.choice((f"who is {age} years of age", f"who just turned {age}"))
    pool = {"OCCUPATION": [(f"who works as a {j}", f"who {i}") for j, i in _JOBS], "LOCATION": [(f"who lives in {c}", f"whose home town is {c}") for c in _CITIES],
            "AFFILIATION": [(f"who is on staff at {e}", f"who draws a paycheck from {i}") for e, i in _EMPLOYERS],
            "FAMILY": [(f"who {d}", f"who {i}") for d, i in _KIN]}.get(qi_class)
    if pool is None:
        pool = [(f"who {d}", f"who {i}") for d, i in _SPECIFIC[domain][qi_class]]
    direct, paraphrase = rng.choice(pool)
    return person.fill(paraphrase if indirect else direct)


def _chain(fragments: list[str]) -> str:
    return fragments[0] if len(fragments) == 1 else ", ".join(fragments[:-1]) + ", and " + fragments[-1]


def unsafe(domain: str, fragments: list[str], person: Person, framing: str, placement: str, mode: str, rng: random.Random) -> str:
    """The subject described by a chain of relative clauses, placed where ``placement`` says."""
    who = rng.choice(_WHO[domain])
    facts = rng.sample(SEED_FACTS[domain], 2)
    if mode == "STYLE_TRANSFER":
        note = "; ".join(f.removeprefix("who ").removeprefix("whose ") for f in fragments)
        return f"fyi re {who}: {note.lower()}. {facts[0].lower()}"
    if placement == "DISTRIBUTED":
        head, tail = fragments[: max(1, len(fragments) // 2)], fragments[max(1, len(fragments) // 2) :]
        parts = [_LEADS[framing].format(who=who) + " " + _chain(head) + ".", facts[0]]
        if tail:
            parts.append(f"{rng.choice(_LINKS)}this is the same person {_chain(tail)}.")
        parts.append(facts[1])
    else:
        core = _LEADS[framing].format(who=who) + " " + _chain(fragments) + "."
        at = {"FRAME_OPENING": 0, "MID_ANSWER": 1, "CLOSING": 2}[placement]
        parts = [rng.choice(_LINKS) + f[0].lower() + f[1:] if i else f for i, f in enumerate(facts[:at])] + [core] + facts[at:]
    if mode == "DISTRACTOR_PADDED":
        parts.insert(rng.randint(0, len(parts)), rng.choice(_LINKS) + rng.choice(SEED_FACTS[domain]).lower())
    return " ".join(parts)


def safe(domain: str, rng: random.Random) -> str:
    facts = rng.sample(SEED_FACTS[domain], rng.randint(2, 3))
    lead = rng.choice(("Good question. ", "Here's the short version. ", "Generally speaking, about {a}: ", "People often ask about {a}. ")).format(a=rng.choice(_ABOUT[domain]))
    return lead + " ".join([facts[0]] + [rng.choice(_LINKS) + f[0].lower() + f[1:] for f in facts[1:]])


_BORDERLINE = {
    "POPULATION_DEMOGRAPHICS": ("Looking at everyone over {lo} in the national figures, {fl}", "For folks in their {lo}s as a group, {fl}"),
    "PUBLIC_GUIDELINE_QUOTE": ("The government fact sheet on {a} puts it this way: \"{f}\"", "Straight from the public guidance on {a}: {f}"),
    "SECOND_PERSON_EDUCATION": ("If {a} is on your mind, here's something useful: {fl}", "Something you can do yourself: {fl}"),
    "ANONYMIZED_CASE_REPORT": ("On the matter of {who}, who asked us for general advice: {fl}", "Short recap on {who}, with nothing identifying kept: {fl}"),
    "EMPATHETIC_DEFLECTION": ("I can hear this has been hard on {who}. I can't talk about any one person, but {fl}",
                              "Sorry you're going through this. I won't discuss anyone's particulars; what I can say is that {fl}"),
}


def borderline(domain: str, subtype: str, rng: random.Random) -> str:
    """Case-voiced or cohort-level text with no QI cluster (PPE Section IV-E)."""
    fact, extra = rng.sample(SEED_FACTS[domain], 2)
    text = rng.choice(_BORDERLINE[subtype]).format(lo=rng.choice((30, 40, 60, 75)), f=fact, fl=fact[0].lower() + fact[1:], a=rng.choice(_ABOUT[domain]), who=rng.choice(_WHO[domain]))
    return f"{text} {rng.choice(_LINKS)}{extra[0].lower()}{extra[1:]}" if rng.random() < 0.6 else text
