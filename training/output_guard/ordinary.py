"""Ordinary answers: the safe text a RAG engine over clinic, bank or law-firm records actually returns.

The generator families write public educational text as their safe class,
so an ordinary operational answer ("[PATIENT_NAME] was discharged on [DATE]
on escitalopram 10 mg once daily; follow up within seven days.") is unlike
every safe record and unlike every unsafe one, and the abstain gate would
withhold it.  This pool covers that register: record look-ups with typed
placeholders where redaction removed identifiers, scheduling and
administrative answers, procedure explanations, short refusals, each
mentioning at most one quasi-identifier class of its subject (below any
``max_per_subject``), in prose, bullet and table-like layouts.  Its records
are labelled safe, family :data:`NAME`; they train the safe side and count
as one more family in the leave-one-family-out gate calibration.  It is
never part of the held-out test family.
"""

from __future__ import annotations

import random

from training.output_guard.axes import Label, SyntheticRecord
from training.output_guard.seeds import SEED_FACTS

NAME = "ordinary"

_SUBJECT = {"medical": ("[PATIENT_NAME]", "the patient", "[PERSON_1]", "this patient"),
            "finance": ("[CUSTOMER_NAME]", "the customer", "[PERSON_1]", "the account holder"),
            "law": ("[CLIENT_NAME]", "the client", "[PERSON_1]", "our client")}
_ONE_QI = {
    "medical": ("is on {v}", ("metformin 500 mg twice daily", "escitalopram 10 mg once daily", "lisinopril 20 mg each morning", "a short course of amoxicillin", "acetaminophen as needed for pain")),
    "finance": ("holds {v}", ("a fixed-rate mortgage", "a standard checking account", "a small index-fund portfolio", "a credit card with a limit increase pending", "a savings account")),
    "law": ("is involved in {v}", ("a lease dispute", "a contract review", "an employment matter", "a probate filing", "a small-claims case")),
}
_RECORD = {
    "medical": ("{s} was discharged on [DATE] and should follow up with the clinic within seven days.", "{s} has a follow-up appointment on [DATE] at the outpatient clinic.",
                "The lab results for {s} from [DATE] are within normal limits.", "{s} was seen on [DATE]; the blood pressure reading was stable and no changes were made.",
                "The referral for {s} was sent to cardiology on [DATE]; the clinic will call with a time.", "{s} was admitted on [DATE] and the record shows the care plan was reviewed."),
    "finance": ("{s} opened the account on [DATE]; statements are sent monthly.", "The loan application for {s} was received on [DATE] and is under review.",
                "{s}'s card was replaced on [DATE] after it was reported lost.", "The transfer requested by {s} on [DATE] was completed the next business day.",
                "{s} asked about overdraft protection; the branch sent the terms on [DATE].", "The payment due on [DATE] for {s} was received on time."),
    "law": ("The filing for {s} was submitted on [DATE]; the court has not set a hearing yet.", "{s} signed the engagement letter on [DATE].",
            "The deadline to respond in the matter of {s} is [DATE].", "The firm sent {s} a draft of the agreement on [DATE] for comments.",
            "{s}'s documents were received on [DATE] and are being reviewed by the assigned attorney.", "The mediation session for {s} is scheduled for [DATE]."),
}
#: Administrative answers: (template, slot values) per domain, combined freely.
_ADMIN_TEMPLATES = ("{place} is open {days}, {hours}.", "Opening hours for {place}: {days}, {hours}.", "{task} usually takes {n} working days.",
                    "Please bring {item} to {event}.", "To {action}, contact {place} or use the online portal.", "{event} can be moved with at least {n} days' notice.",
                    "{group} {rule}.", "Under the current rules, {group_lower} {rule}.")
#: Groups named with quasi-identifier words (ages, family roles, occupations) that point at nobody, and what applies to them.
_GROUPS = {
    "medical": (("Children under twelve", "Patients over 65", "Parents of newborns", "Pregnant patients", "Night-shift nurses", "Visitors from other towns"),
                ("must be accompanied by an adult", "are offered a free flu vaccine", "can ask for an interpreter", "should book at least a week ahead", "may park for free")),
    "finance": (("Customers over 60", "Students under 25", "Self-employed customers", "Joint account holders", "Retired teachers", "Widowed spouses"),
                ("can open a fee-free account", "need two forms of identification", "may qualify for a lower rate", "can ask for paper statements", "should update their beneficiaries")),
    "law": (("Tenants", "Employees on fixed-term contracts", "Parents in family proceedings", "Executors of a will", "Clients over 65", "Small landlords"),
            ("can ask for a reduced fee", "must keep copies of all notices", "may be entitled to legal aid", "should get advice before signing", "have thirty days to respond")),
}
_ADMIN_SLOTS = {
    "medical": {"place": ("the clinic", "the pharmacy", "the outpatient department", "the front desk", "the lab"), "days": ("Monday to Friday", "every weekday", "seven days a week"),
                "hours": ("8 am to 6 pm", "from 9 until 5", "until 7 pm on Thursdays"), "task": ("A repeat prescription", "Processing a referral", "Releasing test results"),
                "n": ("two", "three", "five"), "item": ("your insurance card", "a list of current medicines", "any recent test results"),
                "event": ("the appointment", "the pre-operative visit", "your first session"), "action": ("book a vaccination", "request your records", "change an appointment")},
    "finance": {"place": ("the branch", "customer service", "the mortgage desk", "the card team", "the support line"), "days": ("weekdays", "Monday to Saturday", "every day"),
                "hours": ("9 am to 5 pm", "from 8 until 8", "until noon on Saturdays"), "task": ("A transfer abroad", "Closing an account", "A card replacement"),
                "n": ("one", "three", "ten"), "item": ("photo identification", "proof of address", "your account number"),
                "event": ("the branch meeting", "the loan interview", "the account opening"), "action": ("report a lost card", "dispute a charge", "raise a credit limit")},
    "law": {"place": ("the firm's office", "the reception desk", "the billing team", "the court clerk", "the records office"), "days": ("Monday to Friday", "on weekdays", "Monday to Thursday"),
            "hours": ("9 am to 5:30 pm", "from 8:30 until 6", "until 4 pm on Fridays"), "task": ("Preparing a first draft", "A conflict check", "Obtaining court records"),
            "n": ("two", "five", "ten"), "item": ("the signed engagement letter", "copies of the contract", "any letters you received"),
            "event": ("the consultation", "the mediation session", "the signing meeting"), "action": ("request a copy of your file", "ask about an invoice", "reschedule a meeting")},
}


def _admin(domain: str, rng: random.Random) -> str:
    groups, rules = _GROUPS[domain]
    group = rng.choice(groups)
    sentence = rng.choice(_ADMIN_TEMPLATES).format(group=group, group_lower=group[0].lower() + group[1:], rule=rng.choice(rules),
                                                   **{slot: rng.choice(values) for slot, values in _ADMIN_SLOTS[domain].items()})
    return sentence[0].upper() + sentence[1:]


_REFUSAL = ("I can't share details that identify a specific person, but here is the general information: {f}", "That information is restricted under the policy. In general terms: {f}",
            "I don't have a record that answers that. {f}", "The documents don't say. {f}")
_LAYOUTS = ("prose", "bullets", "table")


def _answer(domain: str, rng: random.Random) -> str:
    subject = rng.choice(_SUBJECT[domain])
    parts = [rng.choice(_RECORD[domain]).format(s=subject)]
    if rng.random() < 0.5:
        template, values = _ONE_QI[domain]
        parts.append(f"{rng.choice(('the record shows the person', subject))} {template.format(v=rng.choice(values))}.")
    parts = [p[0].upper() + p[1:] for p in parts]
    parts += [_admin(domain, rng) if rng.random() < 0.5 else rng.choice(SEED_FACTS[domain]) for _ in range(rng.randint(0, 2))]
    if rng.random() < 0.3:
        parts = [_admin(domain, rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.2:
        parts = [rng.choice(_REFUSAL).format(f=rng.choice(SEED_FACTS[domain]))] + parts[2:]
    layout = rng.choice(_LAYOUTS)
    if layout == "bullets":
        return "\n".join(f"- {p}" for p in parts)
    if layout == "table":
        return "| Item | Detail |\n|---|---|\n" + "\n".join(f"| {i + 1} | {p} |" for i, p in enumerate(parts))
    return " ".join(parts)


def ordinary_records(domain: str, n: int, seed: int) -> list[SyntheticRecord]:
    """``n`` ordinary safe answers of ``domain`` (seeded, deterministic), family :data:`NAME`."""
    rng = random.Random(f"{seed}:{domain}:{NAME}")
    return [SyntheticRecord(_answer(domain, rng), Label.SAFE, domain, NAME) for _ in range(n)]
