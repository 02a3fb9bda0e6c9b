"""Recognizers and check digits: each recognizer's positives and near-miss negatives."""

from __future__ import annotations

import pytest

from policy_engine.detect.checksums import aba_valid, iban_valid, luhn_valid, ssn_plausible
from policy_engine.detect.recognizers import lexicon_recognizer, recognizer, registry
from policy_engine.policy.vocabulary import builtin_vocabulary


def found(name: str, text: str) -> list[str]:
    return [text[h.start : h.end] for h in recognizer(name).find(text)]


# ------------------------------------------------------------------ checksums


@pytest.mark.parametrize("number", ["4539 1488 0343 6467", "4111-1111-1111-1111", "378282246310005", "6011000990139424"])
def test_luhn_accepts_valid_card_numbers(number: str) -> None:
    assert luhn_valid(number)


@pytest.mark.parametrize("number", ["4539 1488 0343 6468", "4111-1111-1111-1112", "1234567812345678", "42"])
def test_luhn_rejects_wrong_check_digit_and_short_numbers(number: str) -> None:
    assert not luhn_valid(number)


@pytest.mark.parametrize("iban", ["GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", "DE89370400440532013000", "FR1420041010050500013M02606"])
def test_iban_mod97_accepts_valid(iban: str) -> None:
    assert iban_valid(iban)


@pytest.mark.parametrize("iban", ["GB83WEST12345698765432", "DE89370400440532013001", "GB82WEST1234", "1282WEST12345698765432"])
def test_iban_mod97_rejects_invalid(iban: str) -> None:
    assert not iban_valid(iban)


@pytest.mark.parametrize("routing", ["011000015", "021000021", "121000358"])
def test_aba_accepts_valid(routing: str) -> None:
    assert aba_valid(routing)


@pytest.mark.parametrize("routing", ["011000016", "021000022", "000000000", "12100035"])
def test_aba_rejects_invalid(routing: str) -> None:
    assert not aba_valid(routing)


def test_ssn_structure_rules() -> None:
    assert ssn_plausible("123-45-6789")
    for bad in ("000-45-6789", "666-45-6789", "912-45-6789", "123-00-6789", "123-45-0000"):
        assert not ssn_plausible(bad), bad


# ------------------------------------------------------------- recognizers


def test_every_recognizer_named_by_the_taxonomy_exists() -> None:
    named = {r for cat in builtin_vocabulary().categories.values() for r in cat.recognizers}
    assert named <= set(registry()), named - set(registry())


POSITIVES = [
    ("email", "Write to jane.doe+intake@clinic-north.example.org today.", "jane.doe+intake@clinic-north.example.org"),
    ("phone", "Call (415) 555-0100 after five.", "(415) 555-0100"),
    ("phone", "Mobile: 617.555.0199", "617.555.0199"),
    ("phone", "Office +44 20 7946 0958", "+44 20 7946 0958"),
    ("date", "Admitted on March 3, 2024 for observation.", "March 3, 2024"),
    ("date", "Seen 2024-03-03.", "2024-03-03"),
    ("date", "Filed 12/31/2023 in court.", "12/31/2023"),
    ("date", "Hearing on 3 March 2024.", "3 March 2024"),
    ("date_of_birth", "Mr. Doe (DOB 04/05/1980) arrived.", "04/05/1980"),
    ("date_of_birth", "She was born on July 4, 1975.", "July 4, 1975"),
    ("age", "a 45-year-old man", "45-year-old"),
    ("age", "she is 38 years old", "38 years old"),
    ("age", "patient aged 61 presented", "61"),
    ("street_address", "lives at 4821 Maple Avenue Apt 3B, Springfield, IL 62704 now", "4821 Maple Avenue Apt 3B, Springfield, IL 62704"),
    ("street_address", "sent to 77 Jessica Burg Ste 362", "77 Jessica Burg Ste 362"),
    ("zip_code", "Springfield, IL 62704", "62704"),
    ("ssn", "SSN 123-45-6789 on file", "123-45-6789"),
    ("passport", "passport number X12345678 expired", "X12345678"),
    ("drivers_license", "driver's license D1234567 was shown", "D1234567"),
    ("mrn", "MRN: 00123456", "00123456"),
    ("insurance_id", "insurance member ID BCX4455667788", "BCX4455667788"),
    ("iban", "IBAN GB82 WEST 1234 5698 7654 32 is hers", "GB82 WEST 1234 5698 7654 32"),
    ("credit_card", "card 4539 1488 0343 6467 was charged", "4539 1488 0343 6467"),
    ("account_number", "checking account 0012345678 was overdrawn", "0012345678"),
    ("routing_number", "routing number 021000021", "021000021"),
    ("case_number", "In re Doe, Case No. 2:21-cv-01234-JLR", "2:21-cv-01234-JLR"),
    ("case_number", "Docket No. CV-2023-004512 was set", "CV-2023-004512"),
    ("money", "a balance of $12,480.55 remains", "$12,480.55"),
    ("money", "settled for 250,000 dollars", "250,000 dollars"),
    # an amount with no thousands separator is read to its end, not cut after three digits ("€451" and a stray "12")
    ("money", "a renovation loan of €45112. Eligibility", "€45112"),
    ("money", "fees of USD 2500 were waived", "USD 2500"),
    ("money", "she owes 45112 dollars on the card", "45112 dollars"),
    ("dose", "metformin 500 mg twice daily", "500 mg twice daily"),
    ("medication", "started on Metformin last year", "Metformin"),
    ("medication", "switched to insulin glargine", "insulin glargine"),
    ("medical_condition", "history of Type 2 Diabetes and asthma", "Type 2 Diabetes"),
    ("relative", "her husband called", "husband"),
    ("occupation", "works as a software engineer in Austin", "software engineer"),
    ("occupation", "a retired postal worker who", "retired postal worker"),
    ("phone", "Agent: Darren Colon (ext. 2083)", "ext. 2083"),
    ("phone", "call +1-795-794-9384x18935 today", "+1-795-794-9384x18935"),
    ("phone", "Phone 7646585305.", "7646585305"),
    ("street_address", "mail goes to Robinshire, SC 11534 now", "Robinshire, SC 11534"),
    ("organization", "She works at Hoffman, Harris and Wong.", "Hoffman, Harris and Wong"),
    ("organization", "employed by Porter Group since 2019", "Porter Group"),
    ("organization", "he works for Boyd-Reyes in sales", "Boyd-Reyes"),
    ("case_number", "Card dispute file DSP-2024-22994 opened", "DSP-2024-22994"),
    ("medical_condition", "stable type 2 diabetes mellitus", "type 2 diabetes mellitus"),
    ("medical_condition", "treated for plantar fasciitis", "plantar fasciitis"),
    ("medical_condition", "Allergies: latex.", "latex"),
    ("medical_condition", "left our client with a torn rotator cuff", "torn rotator cuff"),
    ("medical_condition", "suffered whiplash with chronic neck pain", "whiplash with chronic neck pain"),
    ("medication", "prescribed lithium carbonate 300 mg nightly", "lithium carbonate 300 mg"),
    ("medication", "taking sacubitril-valsartan 49/51 mg", "sacubitril-valsartan 49/51 mg"),
    ("occupation", "a 45-year-old Engineer, mining employed by Acme", "Engineer, mining"),
    ("occupation", "referred to a podiatrist last May", "podiatrist"),
    ("occupation", "she works as a clinic nurse in Leeds", "clinic nurse"),
    ("credit_card", "The card ending in 4635 was blocked.", "4635"),
    ("credit_card", "Maestro card 676242054564 declined", "676242054564"),
    ("age", "date of birth (01/23/1986). Caller is 39.", "39"),
    # a person's own age as people say it, with no word "age" or "old" near it
    ("age", "I'm 34 and pregnant, what should I avoid?", "34"),
    ("age", "She's 47, works nights and lives in Derby.", "47"),
    ("age", "He was 12 when his father died.", "12"),
    ("age", "I just turned 65 this year.", "65"),
    ("age", "At the ripe old age of 42 I took up running.", "42"),
    ("age", "I (27M) and my girlfriend are moving in together.", "27"),
    ("age", "My boss (F52) keeps moving the deadline.", "52"),
    ("age", "At 29, I'm earning more than my parents did.", "29"),
    # a condition said by its abbreviation, found by what the verb of diagnosis takes
    ("medical_condition", "She was diagnosed with MS in 2019.", "MS"),
    ("medical_condition", "He has suffered from EDS since childhood.", "EDS"),
    # a brand name no hand-written lexicon lists, from the maintained drug dictionary
    ("medication", "She started Keytruda last month.", "Keytruda"),
    ("medication", "He uses Flonase every spring.", "Flonase"),
]


@pytest.mark.parametrize(("name", "text", "value"), POSITIVES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(POSITIVES)])
def test_recognizer_finds_value(name: str, text: str, value: str) -> None:
    assert value in found(name, text)


NEAR_MISSES = [
    ("email", "reply at jane.doe@ or @clinic"),
    ("phone", "order 415-555-01000 and ID 1234-555-0100"),
    ("date", "version 13/45/2023 and ratio 3/4"),
    ("date_of_birth", "Admitted on 04/05/2023 for a check-up."),
    ("age", "room 45 on floor 3"),
    ("age", "I'm 5 minutes away and 6 feet tall; they're 2 weeks late."),
    ("age", "At 5, we close the shop. The score was 21 and we lost."),
    ("medical_condition", "He was treated for NHS delays as a priority case."),
    ("medication", "He sits in Fargo with Kendrick until 10 at night."),
    ("street_address", "about 12 people live on the street"),
    ("zip_code", "reference 62704 in the memo"),
    ("ssn", "invalid 000-12-3456 and 666-12-3456 and 923-45-6789"),
    ("passport", "order number 12345678"),
    ("drivers_license", "invoice D1234567"),
    ("mrn", "invoice 00123456"),
    ("insurance_id", "product code BCX4455667788"),
    ("iban", "GB83WEST12345698765432"),
    ("credit_card", "card 4539 1488 0343 6468 (bad check digit)"),
    ("account_number", "the year 2023 and 1200000 visitors"),
    ("routing_number", "routing number 021000022"),
    ("case_number", "the case was heard"),
    ("money", "12,480.55 units of nothing"),
    ("dose", "in 2 days, 3 rooms"),
    ("medication", "the metformula study"),
    ("medical_condition", "a lupine flower"),
    ("medical_condition", "a broken promise and a torn envelope"),
    ("relative", "the sonar and the wifely duties"),
    ("occupation", "teach the chefs-to-be"),
    ("occupation", "see the checklist and assist"),
    ("occupation", "critical values were called to the clinic nurse line"),
    ("occupation", "leave the forms at the pharmacist desk"),
    ("organization", "Jane Garcia-Lopez and Tom Reyes met."),
    ("phone", "account 7646585305 is overdrawn"),
    ("phone", "Office manager at Brightwater Analytics (2019-2023), then team lead."),
    ("phone", "Call-centre supervisor 1998-2004, office manager since."),
    ("credit_card", "the lease ending in 2027 was renewed"),
    ("age", "The room is 39."),
]


@pytest.mark.parametrize(("name", "text"), NEAR_MISSES, ids=[n for n, _ in NEAR_MISSES])
def test_recognizer_ignores_near_miss(name: str, text: str) -> None:
    assert found(name, text) == []


def test_unknown_recognizer_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: .*credit_card"):
        recognizer("no_such_recognizer")


def test_context_raises_score() -> None:
    plain = next(recognizer("ssn").find("number 123-45-6789"))
    with_context = next(recognizer("ssn").find("SSN 123-45-6789"))
    assert with_context.score > plain.score


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("medical_condition", "He has had two strokes since May.", "strokes"),
        ("medical_condition", "She was treated for kidney stone last year.", "kidney stone"),
        ("medication", "My husband is on a statin now.", "statin"),
        ("medication", "She takes two antibiotic courses a year.", "antibiotic"),
    ],
)
def test_condition_and_medicine_lexicons_match_either_number(name: str, text: str, value: str) -> None:
    """The lexicons of conditions and medicines match their entries in either grammatical number ("stroke" ->
    "strokes", "statins" -> "statin"): the number does not change what is disclosed."""
    assert [text[h.start : h.end] for h in recognizer(name).find(text)] == [value]



def test_the_other_number_follows_english_spelling() -> None:
    """"hiv" has no plural "hives" (a different condition): "-es" follows only a sibilant ("crutches")."""
    found = lexicon_recognizer("condition", ["hiv", "stroke", "crutch", "injury"], inflected=True).find("hives, strokes, crutches and injuries")
    assert [h.start for h in found] == [7, 16, 29]
