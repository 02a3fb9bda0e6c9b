"""Failure classes of the hand-written registers, each on its own small hand-written text.

Every constraint here is a plain statement with no ``detect`` hints: the
real statement resolver picks the categories, the real spaCy pipeline and
recognizers find the spans, role qualification decides whose names are
targeted.  The wording differs from ``tests/fixtures/handwritten`` on
purpose, so each class is guarded by more than the fixture that revealed it.
"""

from __future__ import annotations

import pytest

from policy_engine.detect import Analyzer
from policy_engine.policy.model import Constraint, Metadata, Policy

STATEMENTS = {
    "accounts": "Hide bank account numbers, sort codes and other bank codes",
    "addresses": "Hide customers' home addresses and postcodes",
    "references": "Hide customer numbers, policy numbers and other reference codes",
    "health": "Hide health information: symptoms, procedures, operations and pregnancy",
    "union": "Hide trade union membership",
    "personal": "Do not reveal details about a customer's family or personal life",
    "witnesses": "Hide the names of witnesses",
    "clients": "Hide the names of clients and their relatives",
}
CONSTRAINTS = {cid: Constraint(id=cid, statement=statement) for cid, statement in STATEMENTS.items()}


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="plain-statements"), constraints=list(CONSTRAINTS.values())))


def _covered(analyzer: Analyzer, text: str, *constraint_ids: str) -> set[int]:
    findings = analyzer.analyze(text, [CONSTRAINTS[c] for c in constraint_ids])
    return {i for f in findings for i in range(f.start, f.end)}


def _hidden(covered: set[int], text: str, value: str) -> bool:
    start = text.index(value)
    return all(i in covered for i in range(start, start + len(value)) if text[i].isalnum())


def _touched(covered: set[int], text: str, phrase: str) -> bool:
    start = text.index(phrase)
    return any(i in covered for i in range(start, start + len(phrase)))


def _check(analyzer: Analyzer, constraint_id: str, text: str, hidden: list[str], kept: list[str] = ()) -> None:
    covered = _covered(analyzer, text, constraint_id)
    assert [v for v in hidden if not _hidden(covered, text, v)] == []
    assert [k for k in kept if _touched(covered, text, k)] == []


# ------------------------------------------------------------ bank codes beside account numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Please refund the deposit to account 41922760, sort code 40-47-84, by Friday.", "40-47-84"),
        ("Her branch sort-code is 60 16 13 and the account ends 2291.", "60 16 13"),
        ("Wire it to BIC COBADEFFXXX with the usual reference.", "COBADEFFXXX"),
        ("German transfers still quote BLZ 370 400 44 on old forms.", "370 400 44"),
    ],
)
def test_bank_codes_of_several_countries_are_account_identifiers(analyzer: Analyzer, text: str, value: str) -> None:
    _check(analyzer, "accounts", text, [value])


# ------------------------------------------------------------ EU address shapes


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Since April I live at Kaiser-Wilhelm-Ring 17, 50672 Köln, second floor.", ["Kaiser-Wilhelm-Ring 17", "50672"]),
        ("Post for him goes to Lange Gasse 22, 1080 Wien now.", ["Lange Gasse 22", "1080"]),
        ("The parcel went to Prinsengracht 263, 1016 GV Amsterdam by mistake.", ["Prinsengracht 263", "1016 GV"]),
        ("new place is Rue des Martyrs 41, 75009 Paris", ["Rue des Martyrs 41", "75009"]),
        ("Envoyez-le au 8 rue de la Roquette, 75011 Paris.", ["8 rue de la Roquette", "75011"]),
    ],
)
def test_continental_street_addresses_and_postcodes(analyzer: Analyzer, text: str, values: list[str]) -> None:
    _check(analyzer, "addresses", text, values)


def test_a_year_before_a_city_is_no_postcode(analyzer: Analyzer) -> None:
    _check(analyzer, "addresses", "The office moved in 2019 to Berlin and again in 2021.", [], ["2019", "2021"])


def test_a_number_before_an_english_via_or_avenue_is_no_address(analyzer: Analyzer) -> None:
    text = "She sent 2 via Zoom and booked 3 Avenue Suites rooms for the trip, then laid 12 place settings."
    _check(analyzer, "addresses", text, [], ["2 via Zoom", "3 Avenue Suites", "12 place settings"])


# ------------------------------------------------------------ identifiers a few words after their cue


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Good news: your policy number remains PX-4471-093 after the renewal.", "PX-4471-093"),
        ("The ticket reference will be TK/88213/B from now on.", "TK/88213/B"),
        ("Their client number is still 55-0193-77 in the new system.", "55-0193-77"),
    ],
)
def test_identifier_after_a_short_verb_phrase(analyzer: Analyzer, text: str, value: str) -> None:
    _check(analyzer, "references", text, [value])


def test_a_date_after_a_reference_cue_is_no_identifier(analyzer: Analyzer) -> None:
    _check(analyzer, "references", "The reference was sent on 12/05/2023 and the number arrived in 2024.", [], ["12/05/2023", "2024"])


@pytest.mark.parametrize(
    ("row", "value"),
    [
        ("| Staff ID | AB-99021 |", "AB-99021"),
        ("| Policy number | 0456/2021 |", "0456/2021"),
        ("|Customer reference|CR 7731 0042|", "CR 7731 0042"),
    ],
)
def test_identifier_in_the_cell_after_its_label(analyzer: Analyzer, row: str, value: str) -> None:
    text = f"| Item | Value |\n|---|---|\n{row}\n| Status | Open |"
    _check(analyzer, "references", text, [value], ["Status", "Open"])


def test_a_field_value_stops_at_a_wide_gap(analyzer: Analyzer) -> None:
    text = "Savings account: 7731004219   BRANCH 44\nOpened: March 2020"
    _check(analyzer, "references", text, ["7731004219"], ["BRANCH", "Opened"])


# ------------------------------------------------------------ health information beyond the condition lexicon


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("She underwent a laparoscopic cholecystectomy last spring.", ["cholecystectomy"]),
        ("He is on the waiting list for an anterior cruciate ligament reconstruction.", ["ligament reconstruction"]),
        ("A colonoscopy and a tonsillectomy are on file, plus a coronary angioplasty.", ["colonoscopy", "tonsillectomy", "angioplasty"]),
        ("My sister is 30 weeks pregnant, so I may leave early.", ["30 weeks pregnant"]),
        ("She mentioned breathlessness, night sweats and a persistent cough.", ["breathlessness", "night sweats", "cough"]),
        ("He had a hip replacement and spinal fusion years ago.", ["hip replacement", "spinal fusion"]),
        ("She complains of chronic pain in the evenings.", ["chronic pain"]),
        ("He twisted his left ankle at the depot; the scan found a partial tear of the Achilles tendon.", ["twisted his left ankle", "tear of the Achilles tendon"]),
    ],
)
def test_procedures_symptoms_and_pregnancy(analyzer: Analyzer, text: str, values: list[str]) -> None:
    _check(analyzer, "health", text, values)


def test_ordinary_repairs_and_pictures_are_no_procedures(analyzer: Analyzer) -> None:
    text = "The roof repair and the photography session are booked; the fracture clinic phoned about parking."
    _check(analyzer, "health", text, [], ["roof repair", "photography", "fracture clinic"])


# ------------------------------------------------------------ membership of a named union


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("He has been a member of the Fire Brigades Union since 2015.", "Fire Brigades Union"),
        ("She joined the Musicians' Union last year.", "Musicians' Union"),
        ("As a member of the NEU union she asked for a representative.", "NEU"),
    ],
)
def test_membership_of_a_named_union(analyzer: Analyzer, text: str, value: str) -> None:
    _check(analyzer, "union", text, [value])


def test_states_and_credit_unions_are_no_trade_unions(analyzer: Analyzer) -> None:
    text = "Poland is a member of the European Union and he is a member of Leeds Credit Union."
    _check(analyzer, "union", text, [], ["European Union", "Leeds Credit Union"])


# ------------------------------------------------------------ family and personal life


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I will be on paternity leave for two weeks from 3 March.", "paternity leave"),
        ("She is on compassionate leave this week.", "compassionate leave"),
        ("He asked about shared parental leave before replying.", "shared parental leave"),
    ],
)
def test_family_leave_is_personal_life(analyzer: Analyzer, text: str, value: str) -> None:
    _check(analyzer, "personal", text, [value])


# ------------------------------------------------------------ whose name: identifiers and signature blocks


def test_an_identifier_in_brackets_gives_no_role(analyzer: Analyzer) -> None:
    text = "Three witnesses were interviewed. Priyanka Dass (staff ID 88213) said she heard shouting in the yard."
    _check(analyzer, "witnesses", text, ["Priyanka Dass"])


LETTER = """Dear Mr Obi,

Thank you for your call about the hearing on 4 June. We will write again once the court replies.

Kind regards,

Marcus Feld
Senior Claims Handler
"""


def test_letter_signatory_with_a_job_title_is_staff(analyzer: Analyzer) -> None:
    _check(analyzer, "clients", "Our client, Daniel Obi, has agreed.\n\n" + LETTER, ["Daniel Obi", "Mr Obi"], ["Marcus Feld"])


EMAIL = """From: Rosa Lind <r.lind@acme-legal.example>
To: Tom Berg <t.berg@acme-legal.example>
Subject: file review

Tom,

The client, Mr Yusuf Ali, called again about the settlement. Please send him the draft.

Best wishes,
Rosa

Rosa Lind
Senior Associate
"""


def test_email_signatory_and_colleague_on_the_same_domain_are_staff(analyzer: Analyzer) -> None:
    _check(analyzer, "clients", EMAIL, ["Yusuf Ali"], ["Rosa Lind", "Tom Berg"])


def test_a_signature_without_a_job_title_is_no_staff_evidence(analyzer: Analyzer) -> None:
    text = "Our client has written to us directly.\n\nYours faithfully,\n\nGrace Mwangi\n"
    _check(analyzer, "clients", text, ["Grace Mwangi"])


def test_a_signed_witness_stays_a_witness(analyzer: Analyzer) -> None:
    text = "Witness statement of Ana Costa\n\nI saw the forklift hit the racking.\n\nYours sincerely,\n\nAna Costa\nWarehouse Supervisor\n"
    _check(analyzer, "witnesses", text, ["Ana Costa"])


def test_a_full_name_found_again_is_one_mention_or_falls_back_to_its_parts() -> None:
    from policy_engine.detect.context_names import with_name_variants
    from policy_engine.detect.ner import NamedEntity

    text = "Heard Ravi Menon today.\nCounsel: Ravi Menon,Goa\n\nRavi\nRavi Menon\n"
    first, second, last = text.index("Ravi Menon"), text.index("Ravi Menon,"), text.rindex("Ravi Menon")
    place = NamedEntity("GPE", second + 5, second + 14)  # NER read "Menon,Goa" as a place
    piece = NamedEntity("PERSON", last, last + 4)  # and only the first name of the signature line
    found = with_name_variants([text], [[NamedEntity("PERSON", first, first + 10), place, piece]], [])[0]
    people = [text[e.start : e.end] + f"@{e.start}" for e in found if e.label == "PERSON"]
    assert f"Ravi Menon@{last}" in people and f"Ravi@{last}" not in people
    assert f"Ravi@{second}" in people and place in found
