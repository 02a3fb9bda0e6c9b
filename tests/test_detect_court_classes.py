"""Court-text classes of issue 33, each through the real pipeline on hand-written judgment sentences.

Plain statements only (no ``detect`` hints): the resolver, spaCy and the
recognizers decide.  Class 3: a title or rank is part of the name mention
("Lord Justice Ward" is hidden whole, not "Lord Justice ####"); a name after
"represented by Mr" is hidden even when it is also a word; a witness written
as a bare initial is a person where a role noun or a verb of saying marks
it.  Class 1: every number of a list after one cue is an
identifier, not only the first.  Class 2: an amount with its ISO 4217
currency code written first (or after it) is money.  Class 4: an
institution named by its kind and its place is one organisation.  Class 5:
an institution's kind alone ("the Chamber", "the Government") names none.
Class 6: a profession written with a hyphenated field prefix is an
occupation.  The sentences of classes 3-6 were written before the fixes.
"""

from __future__ import annotations

import pytest

from policy_engine.detect import Analyzer
from policy_engine.policy.model import Constraint, Metadata, Policy

NUMBERS = Constraint(id="numbers", statement="Hide case and reference numbers and other identifying codes.")
AMOUNTS = Constraint(id="amounts", statement="Do not reveal the amounts awarded or paid.")
ORGANISATIONS = Constraint(id="orgs", statement="Hide organisations and employers.")
PLACES = Constraint(id="places", statement="Hide addresses and places such as cities, regions and countries.")
OCCUPATIONS = Constraint(id="jobs", statement="Do not reveal people's occupations.")
PEOPLE = Constraint(id="people", statement="Hide the names of parties, witnesses and other private persons.")


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer(Policy(metadata=Metadata(name="court"), constraints=[NUMBERS, AMOUNTS, ORGANISATIONS, PLACES, OCCUPATIONS, PEOPLE]))


def _hidden(analyzer: Analyzer, text: str, constraint: Constraint) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, [constraint])]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("The Chamber decided to join applications nos. 30417/04 and 30418/04 and to examine them together.", ["30417/04", "30418/04"]),
        ("The family farmed plots nos. 274, 276 and 281 until the expropriation.", ["274", "276", "281"]),
        ("Complaints nos. 5521/2011, 5522/2011 or 5530/2011 were never answered.", ["5521/2011", "5522/2011", "5530/2011"]),
    ],
)
def test_class1_every_number_listed_after_one_cue_is_hidden(analyzer: Analyzer, text: str, values: list[str]) -> None:
    hidden = " ".join(_hidden(analyzer, text, NUMBERS))
    assert [v for v in values if v not in hidden] == []


def test_class1_a_different_number_after_and_is_not_taken(analyzer: Analyzer) -> None:
    text = "Application no. 30417/04 and 12 others were struck out."
    assert "12" not in " ".join(_hidden(analyzer, text, NUMBERS))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Court awards the applicant NOK 310,000 in respect of non-pecuniary damage.", "NOK 310,000"),
        ("Costs of CHF 12,480.50 were claimed before the domestic courts.", "CHF 12,480.50"),
        ("She received 85,000 DKK as compensation.", "85,000 DKK"),
    ],
)
def test_class2_money_with_its_currency_code_is_hidden_whole(analyzer: Analyzer, text: str, value: str) -> None:
    covered = {i for f in analyzer.analyze(text, [AMOUNTS]) for i in range(f.start, f.end)}
    start = text.index(value)
    assert all(i in covered for i in range(start, start + len(value)) if not text[i].isspace())


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("He was transferred to HM Prison Wakefield in 2009 and later to HMP Belmarsh.", ["HM Prison Wakefield", "HMP Belmarsh"]),
        ("The soldiers were questioned at Catterick Barracks before the hearing.", ["Catterick Barracks"]),
    ],
)
def test_class4_an_institution_with_its_place_is_hidden_whole(analyzer: Analyzer, text: str, values: list[str]) -> None:
    hidden = _hidden(analyzer, text, ORGANISATIONS) + _hidden(analyzer, text, PLACES)
    assert [v for v in values if not any(v in h for h in hidden)] == []


def test_class5_an_institution_named_by_its_kind_alone_is_kept(analyzer: Analyzer) -> None:
    text = "THE FACTS\n\nThe Government submitted that the Chamber had erred and that the Commission was right."
    hidden = _hidden(analyzer, text, ORGANISATIONS)
    assert not {"Government", "Chamber", "Commission"} & set(hidden)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The report of the neuro-radiologist was disputed.", "neuro-radiologist"),
        ("A psycho-oncologist examined the applicant twice.", "psycho-oncologist"),
    ],
)
def test_class6_a_profession_with_a_field_prefix_is_an_occupation(analyzer: Analyzer, text: str, value: str) -> None:
    assert value in _hidden(analyzer, text, OCCUPATIONS)


def test_class6_a_prefixed_verb_is_no_profession(analyzer: Analyzer) -> None:
    assert _hidden(analyzer, "The two systems co-exist and the tenants re-insist on repairs.", OCCUPATIONS) == []


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("The arresting officer, Sergeant Gamble, gave evidence that the van was locked.", ["Sergeant Gamble"]),
        ("Mr Justice Collins refused permission to appeal on the papers.", ["Mr Justice Collins"]),
        ("Lord Justice Ward, with whom the other members of the court agreed, allowed the appeal.", ["Lord Justice Ward"]),
        ("Detective Inspector Harwood interviewed the applicant twice.", ["Detective Inspector Harwood"]),
        ("Chief Inspector Mabbutt and Constable Rees attended the scene.", ["Chief Inspector Mabbutt", "Constable Rees"]),
        ("The court was presided over by Judge Halvorsen.", ["Judge Halvorsen"]),
    ],
)
def test_class3_a_title_or_rank_is_hidden_with_the_name(analyzer: Analyzer, text: str, mentions: list[str]) -> None:
    assert _hidden(analyzer, text, PEOPLE) == mentions


@pytest.mark.parametrize(
    ("text", "mention"),
    [
        ("Before: Employment Judge Harcourt", "Harcourt"),
        ("The case was listed before District Judge Okonkwo-Barnes in May.", "Okonkwo-Barnes"),
    ],
)
def test_class3_an_office_named_with_a_modifier_stays_whole_outside_the_name(analyzer: Analyzer, text: str, mention: str) -> None:
    """No half office is left beside a hidden name ("Employment [NAME]"): the office is a role, not a form of address."""
    assert _hidden(analyzer, text, PEOPLE) == [mention]


@pytest.mark.parametrize(
    ("text", "mention"),
    [
        ("The applicant was represented by Mr Mole, a solicitor.", "Mr Mole"),
        ("The applicant was represented by Ms Trelawney of counsel.", "Ms Trelawney"),
    ],
)
def test_class3_a_name_after_represented_by_mr_is_hidden(analyzer: Analyzer, text: str, mention: str) -> None:
    assert _hidden(analyzer, text, PEOPLE) == [mention]


@pytest.mark.parametrize(
    ("text", "initial"),
    [
        ("The second witness, W., told the police that she had seen the car leave at night.", "W."),
        ("At the hearing W. stated that the applicant had threatened him.", "W."),
        ("The applicant's brother, J., testified that he had not seen the letter.", "J."),
    ],
)
def test_class3_a_witness_written_as_an_initial_is_hidden(analyzer: Analyzer, text: str, initial: str) -> None:
    assert initial in _hidden(analyzer, text, PEOPLE)


def test_class3_a_lettered_heading_is_no_person(analyzer: Analyzer) -> None:
    for text in ("A. The circumstances of the case", "Section A. Criminal proceedings against the applicant."):
        assert _hidden(analyzer, text, PEOPLE) == [], text
