"""Parties named in the cause title of a judgment, and person-name shapes NER misses (issue 12, classes 1 and 3).

The texts are hand-written in the styles of Indian, English and US court
papers and were written before the party recognizer existed; every test
runs through the real spaCy pipeline under plain-language statements only.
"""

from __future__ import annotations

import pytest

from policy_engine.detect import Analyzer
from policy_engine.policy.model import Constraint, Metadata, Policy

STATEMENTS = [
    Constraint(id="people", statement="Hide the names of parties, witnesses and other private persons."),
    Constraint(id="orgs", statement="Hide organisations and employers."),
]


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="cause-titles"), constraints=STATEMENTS))


def _hidden(analyzer: Analyzer, text: str) -> str:
    """``text`` with every finding replaced by #."""
    out = list(text)
    for f in analyzer.analyze(text, STATEMENTS):
        out[f.start : f.end] = "#" * (f.end - f.start)
    return "".join(out)


def _visible(masked: str, original: str, value: str) -> bool:
    """True when any character of ``value`` is left visible in ``masked``."""
    start = original.index(value)
    return any(ch != "#" and not ch.isspace() and ch not in ",." for ch in masked[start : start + len(value)])


INDIAN = """IN THE HIGH COURT OF KARNATAKA AT DHARWAD
WRIT PETITION No. 10432 OF 2019

Ramesh Gowda Patil, S/o Late Basappa Patil,
Aged about 54 years, R/o Hubballi                 ...Petitioner

        Versus

1. The State of Karnataka, rep. by its Principal Secretary,
   Revenue Department, Bengaluru.
2. The Deputy Commissioner, Dharwad District, Dharwad.
                                                  ...Respondents
"""


def test_parties_above_their_role_label_are_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, INDIAN)
    for party in ("Ramesh Gowda Patil", "Basappa Patil", "State of Karnataka", "Deputy Commissioner, Dharwad District, Dharwad"):
        assert not _visible(masked, INDIAN, party), (party, masked)
    for label in ("Versus", "...Petitioner", "...Respondents", "Aged about"):
        assert label in masked, (label, masked)


LABELLED = "Case :- First Appeal No. - 812 of 2016\nAppellant :- Sunita Devi   Respondent :- Union Of India And Others\nCounsel for Appellant :- Anil Kumar Mishra\n"


def test_parties_after_a_role_label_are_hidden_and_the_list_tail_stays(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, LABELLED)
    for party in ("Sunita Devi", "Union Of India", "Anil Kumar Mishra"):
        assert not _visible(masked, LABELLED, party), (party, masked)
    assert "And Others" in masked and "Appellant :-" in masked


ENGLISH = """IN THE COUNTY COURT AT LEEDS
Claim No. H40YX217

BETWEEN:

MARGARET ELLEN HOLLOWAY
Claimant

- and -

NORTHFIELD BOROUGH COUNCIL
Defendant
"""


def test_capitalised_parties_of_an_english_claim_are_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, ENGLISH)
    assert not _visible(masked, ENGLISH, "MARGARET ELLEN HOLLOWAY"), masked
    assert not _visible(masked, ENGLISH, "NORTHFIELD BOROUGH COUNCIL"), masked
    assert "Claimant" in masked and "Defendant" in masked and "BETWEEN:" in masked


US = """UNITED STATES DISTRICT COURT
DISTRICT OF OREGON

DARNELL R. WHITAKER,
          Plaintiff,
     v.
CASCADE FREIGHT LINES, INC.,
          Defendant.
"""


def test_parties_of_a_us_caption_are_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, US)
    assert not _visible(masked, US, "DARNELL R. WHITAKER"), masked
    assert not _visible(masked, US, "CASCADE FREIGHT LINES, INC."), masked
    assert "Plaintiff," in masked and "Defendant." in masked


def test_a_role_word_in_prose_names_no_party(analyzer: Analyzer) -> None:
    text = "The tenancy ended in March.\nThe Respondent argued that the notice was valid.\nCosts follow the event.\n"
    assert _hidden(analyzer, text) == text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The order was signed by R.Krishnaswamy on the same day.", "R.Krishnaswamy"),
        ("Counsel then called G. S. Venkatesh to the stand.", "G. S. Venkatesh"),
        ("The deed was witnessed by Halina M Borowska in Gdansk.", "Halina M Borowska"),
        ("Have you met Teodor W. Lindqvist before?", "Teodor W. Lindqvist"),
        ("Ngozi and Farrukh reached the station at noon.", "Ngozi"),
        ("The statement of Arvind Kulkarni S/o Dattatray Kulkarni was recorded.", "Dattatray Kulkarni"),
        ("The bag was seized by Ct. Meenakshi in the presence of SI Gurpreet.", "Meenakshi"),
        ("The bag was seized by Ct. Meenakshi in the presence of SI Gurpreet.", "Gurpreet"),
        ("The notes of Dr.Farhana Naveed were produced.", "Farhana Naveed"),
        ("Her late aunt was called Lily Nolan.", "Lily Nolan"),
        ("Ilkka and Henrietta Brandt signed the lease.", "Ilkka"),
    ],
)
def test_name_shapes_ner_misses_are_hidden(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked


@pytest.mark.parametrize(
    "text",
    [
        "Refer to Part A Schedule for the fee table.",
        "The U.S. Army Corps of Engineers reviewed the plan.",
        "The Will was read aloud in May, and the parish paid the costs.",
        "The client is 40 years old and lives in Reno.",
        "May was warm. Grace periods apply to late payments.",
        "Vitamin D and Calcium levels were normal.",
    ],
)
def test_ordinary_capitalised_words_stay_visible(analyzer: Analyzer, text: str) -> None:
    masked = _hidden(analyzer, text)
    for word in ("Part", "Schedule", "Will", "May", "Vitamin", "Calcium", "Reno", "Grace"):
        if word in text:
            assert word in masked, masked


@pytest.mark.parametrize(
    ("text", "name", "visible"),
    [
        ("Mahesh S/o Girdhari Lal R/o Kishanpura, Tehsil Bassi, deposed next.", "Girdhari Lal", "R/o Kishanpura"),
        ("Notice went to Rakesh Kumar Yadav And 4 Others on the same day.", "Rakesh Kumar Yadav", "And 4 Others"),
        ("The plot stood in the name of P.R. Venkataraman(Deceased) at the time.", "P.R. Venkataraman", "(Deceased)"),
    ],
)
def test_a_name_span_stops_where_the_name_ends(analyzer: Analyzer, text: str, name: str, visible: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked
    assert visible in masked, masked


def test_layout_words_of_a_cause_title_are_never_names(analyzer: Analyzer) -> None:
    text = "Coram : Hon'ble Justice R. Menon\n\n            Versus\n\nAppearance :\n For the Petitioner : Mr. Tarun Bhalla, Adv.\n"
    masked = _hidden(analyzer, text)
    assert "Versus" in masked and "Appearance" in masked and "Coram" in masked, masked
    assert not _visible(masked, text, "Tarun Bhalla"), masked


def test_a_court_is_hidden_with_its_seat_and_a_page_number_is_no_street(analyzer: Analyzer) -> None:
    text = "1\nIN THE MATTER before\nIn The High Court Of Judicature At Patna\nCivil Writ Jurisdiction Case No. 6237 of 2020\n"
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, "High Court Of Judicature At Patna"), masked
    assert "Civil Writ Jurisdiction" in masked, masked
    address_only = Constraint(id="addresses", statement="Hide home addresses.")
    page = "1 In The High Court Of Kerala At Ernakulam"
    found = Analyzer(Policy(metadata=Metadata(name="addresses"), constraints=[address_only])).analyze(page, [address_only])
    assert [page[f.start : f.end] for f in found] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi Okonkwo, thanks for the quick reply.", "Okonkwo"),
        ("Thank you Hendriksen for covering the shift.", "Hendriksen"),
        ("saw Kylie minogue live last night", "Kylie minogue"),
    ],
)
def test_greetings_and_lower_case_surnames_in_messages(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked


def test_a_greeting_to_a_group_hides_nothing(analyzer: Analyzer) -> None:
    text = "Hi all, thanks Team. Dear Sir or Madam,"
    assert _hidden(analyzer, text) == text


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Logged: 2006-04-07 09:00:27 by the kiosk.", "2006-04-07 09:00:27"),
        ("They searched the fields on 8 th February, 1999 and found nothing.", "8 th February, 1999"),
    ],
)
def test_timestamps_and_spaced_ordinals_are_whole_dates(text: str, date: str) -> None:
    dates = Constraint(id="dates", statement="Hide dates.")
    found = Analyzer(Policy(metadata=Metadata(name="dates"), constraints=[dates])).analyze(text, [dates])
    assert [text[f.start : f.end] for f in found] == [date]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hello, my name is vitoria and I need help", "vitoria"),
        ("Happy birthday to your daughter Shweta!", "Shweta"),
        ("Janakiammal and her son Somasundaram did not get the land.", "Janakiammal"),
        ("the kids are called siobhan, adam and caleb", "adam"),
        ("Tanner is a good dude and always on time.", "Tanner"),
    ],
)
def test_self_introductions_relatives_and_lists_of_names(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked


def test_a_self_introduction_of_a_state_hides_nothing(analyzer: Analyzer) -> None:
    text = "my name is tired of this, call me later"
    assert _hidden(analyzer, text) == text


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("Dt.12.03.2015 the bench sat again.", ["12.03.2015"]),
        ("Returns for the assessment year 2014-15 were filed late.", ["2014-15"]),
        ("The FIR of 3.11.15 was lodged at noon.", ["3.11.15"]),
        ("After version 1.2.15 shipped, server 10.0.0.1 failed; Section 3.2.1 applies.", []),
    ],
)
def test_numeric_dates_of_court_papers(text: str, dates: list[str]) -> None:
    constraint = Constraint(id="dates", statement="Hide dates.")
    found = Analyzer(Policy(metadata=Metadata(name="dates"), constraints=[constraint])).analyze(text, [constraint])
    assert [text[f.start : f.end] for f in found] == dates


COUNSEL_AND_BENCH = """For the Appellants            :  Mr.   Harish Venkataraman, Sr. Adv.,
                                 Mr.  P.  Gokulnathan, Adv.
For the Respondents           :  Shri K.M Thakkar, Advocate

CORAM  :  R.K.Bose, J.
"""


def test_counsel_after_spaced_titles_and_judges_before_their_postnominal_are_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, COUNSEL_AND_BENCH)
    for name in ("Mr.   Harish Venkataraman", "P.  Gokulnathan", "K.M Thakkar", "R.K.Bose"):
        assert not _visible(masked, COUNSEL_AND_BENCH, name), (name, masked)
    for label in ("For the Appellants", "Sr. Adv.", "Advocate", "CORAM", ", J."):
        assert label in masked, (label, masked)


LABELS_ABOVE = """Appellant:
Devendra Rao Kulkarni And Ors.

\tVs.

Respondent:
The Municipal Corporation Of Surat

Date Of Judgment: 12/03/1998
"""


def test_a_party_on_the_line_under_its_role_label_is_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, LABELS_ABOVE)
    for party in ("Devendra Rao Kulkarni", "Municipal Corporation Of Surat"):
        assert not _visible(masked, LABELS_ABOVE, party), (party, masked)
    for label in ("Appellant:", "And Ors.", "Respondent:", "Date Of Judgment"):
        assert label in masked, (label, masked)


KIN_DESCRIPTORS = """2.   Gowramma W/O. Siddappa Naik,
     Aged 50 Years,
3.   Mallesha
     S/o Siddappa Naik,
4.   Yellamma, daughter of Hanumanthappa,
"""


def test_a_name_before_a_kinship_descriptor_is_hidden(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, KIN_DESCRIPTORS)
    for name in ("Gowramma", "Mallesha", "Yellamma", "Siddappa Naik", "Hanumanthappa"):
        assert not _visible(masked, KIN_DESCRIPTORS, name), (name, masked)
    for label in ("W/O.", "S/o", "daughter of", "Aged"):
        assert label in masked, (label, masked)


def test_a_firm_after_messrs_is_hidden_up_to_its_address(analyzer: Analyzer) -> None:
    text = "M/s. Sundaram Tube Fittings,\n14, Industrial Estate, Ambattur.\n"
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, "Sundaram Tube Fittings"), masked
    assert masked.startswith("M/s."), masked


LIST_UNDER_THE_LABEL = """1. The Village Officer, Kadakkal Village,
                       ...       Respondents

2. The Superintendent Of Police, Kollam Rural,

3. The Tahsildar, Kottarakkara Taluk.

The petition coming on for admission, the court passed the following order.
"""


def test_a_numbered_list_of_parties_goes_on_under_the_label_of_its_first_item(analyzer: Analyzer) -> None:
    masked = _hidden(analyzer, LIST_UNDER_THE_LABEL)
    for party in ("Superintendent Of Police, Kollam Rural", "Tahsildar, Kottarakkara Taluk"):
        assert not _visible(masked, LIST_UNDER_THE_LABEL, party), (party, masked)
    assert "The petition coming on for admission, the court passed the following order." in masked, masked


def test_versus_on_its_own_line_marks_the_parties_above_and_below(analyzer: Analyzer) -> None:
    text = "Sessions Case No. 88/2015\n\nIn the matter of :\n\nState\n\n          Versus\n\n1.  Pappu Chauhan,\n    S/o Sh. Mahavir Chauhan,\n    R/o Sultanpuri, Delhi.\n"
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, "Pappu Chauhan"), masked
    assert not _visible(masked, text, "Mahavir Chauhan"), masked
    for label in ("Sessions Case No.", "In the matter of :", "Versus", "S/o"):  # "Sh." is hidden with the name, as "Mr." is
        assert label in masked, (label, masked)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("PW-4 Gangaram deposed that the tractor was parked near the well.", ["Gangaram"]),
        ("The suggestion put to P.W.11-Revanna that he was an interested witness was denied.", ["Revanna"]),
        ("Chhotelal D.W. 3 supports the plea of alibi, and so does Motiram [D.W.5].", ["Chhotelal", "Motiram"]),
        ("The mobile phone was recovered from Selvakumar (A-7) at the bus stand.", ["Selvakumar"]),
        ("The amount was credited to the account of accused No.4-Farooq Qureshi on that day.", ["Farooq Qureshi"]),
    ],
)
def test_a_witness_or_accused_designation_marks_the_name_beside_it(analyzer: Analyzer, text: str, names: list[str]) -> None:
    masked = _hidden(analyzer, text)
    for name in names:
        assert not _visible(masked, text, name), (name, masked)


def test_a_judge_signing_in_capitals_is_hidden_and_the_court_names_no_one(analyzer: Analyzer) -> None:
    text = "The appeal is dismissed.\n\n(K.T. RAGHUNATHAN, JUDGE)\n\nM.S. DEVARAJ,J\n\nCopy to the SESSIONS JUDGE, Mysuru.\n"
    masked = _hidden(analyzer, text)
    for name in ("K.T. RAGHUNATHAN", "M.S. DEVARAJ"):
        assert not _visible(masked, text, name), (name, masked)
    assert "SESSIONS JUDGE" in masked and "JUDGE)" in masked, masked


def test_a_header_line_names_both_sides_of_vs_and_a_citation_in_a_sentence_names_none(analyzer: Analyzer) -> None:
    header = "Date of order : 12-02-2016\n\n        State Vs. Raju Prajapati & Anr., Fir No: 211/2014\n"
    masked = _hidden(analyzer, header)
    assert not _visible(masked, header, "Raju Prajapati"), masked
    assert "Fir No:" in masked and "& Anr." in masked, masked
    sentence = "In Mohan Lal Vs. State of Punjab the court held that the appeal failed.\n"
    masked = _hidden(analyzer, sentence)
    assert "the court held that the appeal failed" in masked, masked


def test_labels_with_joined_roles_and_a_trailing_case_reference_mark_their_parties(analyzer: Analyzer) -> None:
    text = (
        "Sanjeev Hiremath                  ... Appellant/Orig. Plaintiff\n\n"
        "1. The Tahsildar, Hubballi Taluk.\n\n"
        "2. The Assistant Commissioner, Dharwad Sub-Division, Dharwad.\n\n"
        " .... .... Respondents/Defendants with ==========\n"
    )
    masked = _hidden(analyzer, text)
    for party in ("Tahsildar, Hubballi Taluk", "Assistant Commissioner, Dharwad Sub-Division, Dharwad"):
        assert not _visible(masked, text, party), (party, masked)
    assert "Respondents/Defendants with" in masked, masked


def test_parties_under_between_and_and_labels_are_hidden_without_their_descriptors(analyzer: Analyzer) -> None:
    text = (
        "Criminal Appeal No. 1190/2012\n\nBetween:\n\nHanumanthappa Basappa Kolkar\nAge: 41 years, Occ: Driver,\n\n"
        "... Appellant\n\nAnd :\n\nThe State Of Karnataka\nThrough The Dharwad Town Police\n\n... Respondent\n"
    )
    masked = _hidden(analyzer, text)
    for party in ("Hanumanthappa Basappa Kolkar", "State Of Karnataka"):
        assert not _visible(masked, text, party), (party, masked)
    for label in ("Between:", "And :", "Age:", "... Appellant"):
        assert label in masked, (label, masked)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Agent: Whose name is on the policy? Caller: Ágota Fehérváry", "Ágota Fehérváry"),
        ("please loop in radka šťastná before friday", "radka šťastná"),
    ],
)
def test_a_known_first_name_grows_over_an_accented_surname(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked


def test_counsel_offices_are_no_parties_and_a_case_kind_is_no_organisation(analyzer: Analyzer) -> None:
    text = (
        "1.\tS.B. Civil Writ Petition No.4410/2012\n\tM/s Kota Yarns Ltd. V/s Raj.Textile Board\n\n"
        "For Respondent  :Public Prosecutor\n\nFor Respondent  :Government Pleader\n"
    )
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, "Kota Yarns Ltd"), masked
    assert not _visible(masked, text, "Raj.Textile Board"), masked
    for visible in ("S.B. Civil Writ Petition No.", "Public Prosecutor", "Government Pleader"):
        assert visible in masked, (visible, masked)


def test_a_numbered_accused_after_a_label_and_kin_in_brackets_are_hidden(analyzer: Analyzer) -> None:
    text = (
        "Accused :       1.    Mahadeva @ Kariya ,\n                      S/o Ningaiah,\n\n"
        "(2) Smt. Roshan Ara          (Mother-in-law)\n(3) Imtiyaz                   (Brother-in-law)\n\n"
        "                Versus\n\nSh. Harbans Lal (Proprietor)\nM/s Lal Cloth House\n"
    )
    masked = _hidden(analyzer, text)
    for name in ("Mahadeva @ Kariya", "Roshan Ara", "Imtiyaz", "Harbans Lal"):
        assert not _visible(masked, text, name), (name, masked)
    for visible in ("(Mother-in-law)", "(Brother-in-law)", "(Proprietor)", "Accused :"):
        assert visible in masked, (visible, masked)


def test_an_address_number_in_a_party_line_is_no_case_number(analyzer: Analyzer) -> None:
    text = (
        "     ==========================================\n\n"
        " Ramlakhan Sahni Son of Bindeshwar Sahni, Resident of Village - Bakhri, Ward No. 07, P.S. - Runnisaidpur, District - Sitamarhi.\n\n"
        " ... ... Petitioner/s Versus\n1. The State of Bihar through the Chief Secretary, Government of Bihar, Patna.\n\n"
        " ... ... Respondent/s ========================= Appearance :\n"
    )
    masked = _hidden(analyzer, text)
    for party in ("Ramlakhan Sahni", "State of Bihar"):
        assert not _visible(masked, text, party), (party, masked)
    assert "Appearance :" in masked, masked


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Bot: Which surname is the booking under? User: Okonjo-Bassey", "Okonjo-Bassey"),
        ("Thriller, Drama Directed By:    Teodora Valchanova", "Teodora Valchanova"),
        ('Radomir: "Where were you?" Marisol: "At the depot."', "Radomir"),
    ],
)
def test_an_answer_to_a_name_question_a_credit_and_a_speaker_label_are_names(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked


def test_a_list_of_drugs_with_colons_is_no_dialogue(analyzer: Analyzer) -> None:
    text = "Metformin: 500 mg twice daily\nLisinopril: 10 mg daily\nAtorvastatin: 20 mg at night\n"
    assert _hidden(analyzer, text) == text


PLACES = [*STATEMENTS, Constraint(id="places", statement="Hide addresses and places.")]


def test_a_list_tail_and_a_representing_officer_are_no_part_of_a_state_party(analyzer: Analyzer) -> None:
    text = (
        "Petitioner :- Girija Shankar Tripathi\n \nRespondent :- State Of Gujarat And 7 Others\n \n"
        "And:\n\nThe State of Kerala\nBy the Station House Officer\nTown Police Station\nKollam                ...Respondent\n"
    )
    masked = _hidden(analyzer, text)
    for party in ("Girija Shankar Tripathi", "State Of Gujarat", "State of Kerala"):
        assert not _visible(masked, text, party), (party, masked)
    for visible in ("And 7 Others", "By the Station House Officer"):
        assert visible in masked, (visible, masked)


@pytest.mark.parametrize(
    ("text", "judge", "visible"),
    [
        ("CORAM:\n        * The Hon'Ble Sri Justice P. Raghavanath\n\n   + Criminal Petition No.311 of 2021", "Hon'Ble Sri Justice P. Raghavanath", "CORAM:"),
        ("The Honble Sri Justice T.Venkataramana Sastry        \n\nWrit Petition", "Honble Sri Justice T.Venkataramana Sastry", "Writ Petition"),
        ("Coram: Honourable The Chief Justice and Honourable Mr. Justice D. Prabhakaran Oral Judgment", "Honourable Mr. Justice D. Prabhakaran", "Oral Judgment"),
        ("Mr.R.Selvakumar, Government Advocate For 2nd Respondent : Mr.Tom Varghese", "Mr.Tom Varghese", "Government Advocate For 2nd Respondent"),
    ],
)
def test_a_judges_forms_of_address_are_hidden_with_the_name_and_the_heading_after_it_stays(analyzer: Analyzer, text: str, judge: str, visible: str) -> None:
    """The mention is the unit (issue 33, court class 3): "Hon'ble Sri Justice" is hidden with the judge's name, as
    "Lord Justice" is with "Ward"; legal_NER's annotators leave the honorifics outside the JUDGE span, so its
    over-redaction counts them, but a visible form of address beside a hidden name narrows who is meant.  The
    heading or office around the mention stays visible."""
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, judge), masked
    assert visible in masked, masked


def test_the_kind_of_a_case_number_is_no_place_organisation_or_person() -> None:
    analyzer = Analyzer(Policy(metadata=Metadata(name="kinds"), constraints=PLACES))
    text = (
        "This Criminal Appeal is filed against the judgment passed by the Sessions Judge, Mysuru in S.C. No.214/2016 "
        "and confirmed in Crl.A. No.88/2018, arising out of Pcr No.390/2015 on the file of the Civil Judge."
    )
    found = {text[f.start : f.end] for f in analyzer.analyze(text, PLACES)}
    assert not found & {"S.C.", "Crl.A.", "Crl", "Pcr", "S.C", "Crl.A"}, found
    assert "Mysuru" in found, found


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Wembrock knew that the gate had a second lock.", "Wembrock"),
        ("Tollemy is so funny in that clip.", "Tollemy"),
    ],
)
def test_an_unknown_word_opening_a_sentence_as_the_subject_of_a_human_verb_is_a_name(analyzer: Analyzer, text: str, name: str) -> None:
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, name), masked
    assert "Everything is" in _hidden(analyzer, "Everything is possible here. This is a battle song."), "sentence openers stay"


def test_a_case_label_after_a_list_of_counsel_is_no_organisation(analyzer: Analyzer) -> None:
    text = (
        "Reserved\n \nCourt No. - 12\n \nCase :- Writ - C No. - 40417 of 2020\n \n"
        "Petitioner :- Omkar Nath Dwivedi And Another\n \nRespondent :- State Of U.P. And 6 Others\n \n"
        "Counsel for Petitioner :- Rakesh Chandra Mishra,Alok Kumar Verma\n \n"
        "Counsel for Respondent :- C.S.C.,R.K. Pandey,Sushil Tandon\n \nWith\n \nCase :- Writ - C No. - 40433 of 2020\n"
    )
    masked = _hidden(analyzer, text)
    for name in ("Omkar Nath Dwivedi", "R.K. Pandey", "Sushil Tandon"):
        assert not _visible(masked, text, name), (name, masked)
    assert masked.count("Case :- Writ - C No.") == 2, masked


def test_a_proceeding_an_office_and_a_statute_abbreviation_are_no_organisation_or_place() -> None:
    analyzer = Analyzer(Policy(metadata=Metadata(name="kinds"), constraints=PLACES))
    text = (
        "This Criminal Petition is filed under Section 482 of Cr.P.C. praying to quash the order. The Special Leave Petition "
        "was dismissed. The learned Public Prosecutor and the Magistrate were heard, and the matter went to the Court of Appeal "
        "and to the U.S. Navy board in Norfolk.\nThe appeal is filed under Section 374(2)\nCr.P.C., praying to set aside the conviction."
    )
    found = {text[f.start : f.end] for f in analyzer.analyze(text, PLACES)}
    for ordinary in ("This Criminal Petition", "The Special Leave Petition", "Special Leave Petition", "Cr", "P.C.", "Cr.P.C.", "Public Prosecutor", "Magistrate"):
        assert ordinary not in found, (ordinary, found)
    assert any("Court of Appeal" in f for f in found) and any("Navy" in f for f in found) and "Norfolk" in found, found


def test_a_known_first_name_before_an_unknown_capitalised_word_is_a_name_in_a_headline(analyzer: Analyzer) -> None:
    text = "UPDATE : Reporting Melissa Trevanion Just Signed A New Deal. We met near Victoria Station."
    masked = _hidden(analyzer, text)
    assert not _visible(masked, text, "Melissa Trevanion"), masked
    assert "Victoria Station" in masked and "Reporting" in masked, masked
