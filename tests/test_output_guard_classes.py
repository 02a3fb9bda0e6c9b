"""Failure classes of the output guard on answers it did not write (issue 32), with the real parse, detector and review queue.

Each test holds one class: names at sentence start and in the possessive never
survive; a rewrite that leaves a direct identifier or a QI cluster is refused
into review; every withheld answer is reviewable with its reason; reasons give
kinds and counts, never values, and never claim a cluster that was not found;
the borderline patterns (aggregates, hypotheticals, public roles, deflections,
distinct persons) bind their QIs to nobody or to different people.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.domains import qi_classes
from enforcers.output_guard.enforcer import OutputGuardEnforcer
from enforcers.output_guard.persons import extract
from enforcers.output_guard.reviews import open_queue
from enforcers.output_guard.service import OutputGuard
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts

POLICY = """\
apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {name: guarded-classes}
constraints:
  - id: hide-names
    statement: Hide the names of patients and clients.
    detect: {entity_types: [PERSON]}
  - id: no-emails
    statement: Never reveal e-mail addresses.
    severity: critical
    detect: {categories: [contact]}
quasi_identifiers:
  domain: medical
  classes: [AGE, OCCUPATION, LOCATION, AFFILIATION, FAMILY, CONDITION, TREATMENT, VISIT_PATTERN]
  max_per_subject: 2
  operating_point: {preset: balanced}
audit: {log: audit/decisions.jsonl, ledger: state/ledger.sqlite}
enforcement: {order: [output_guard]}
"""
CLASSES = ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY", "CONDITION", "TREATMENT", "VISIT_PATTERN")
CLUSTER = "The patient is a 58-year-old harbour pilot who lives alone in Port Erin and was admitted twice this spring with heart failure."
HANDWRITTEN = Path(__file__).resolve().parents[1] / "bench" / "output_guard" / "handwritten_borderline.json"


@pytest.fixture(scope="module")
def policy_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("classes") / "policy.yaml"
    path.write_text(POLICY, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def enforcer(policy_path: Path) -> OutputGuardEnforcer:
    """The guard as an engine builds it: no training run, the shipped default scorer."""
    policy = policy_engine.load_policy(policy_path)
    built = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    assert built.guard is not None
    return built


def _run(enforcer: OutputGuardEnforcer, answer: str) -> EnforcementContext:
    context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=answer)
    return EnforcementPipeline([enforcer]).run(Stage.ANSWER, context).context


@pytest.mark.parametrize(
    ("answer", "name"),
    [
        ("Martina Okafor's biopsy confirmed stage II melanoma, and the oncology team wants to start treatment next week.", "Okafor"),
        ("Dmitri Halvorsen's follow-up is booked for Tuesday.", "Halvorsen"),
        ("Rosalind Achterberg was seen in clinic today and is recovering well.", "Achterberg"),
    ],
)
def test_names_at_sentence_start_and_in_the_possessive_never_survive(enforcer: OutputGuardEnforcer, answer: str, name: str) -> None:
    result = _run(enforcer, answer)
    if result.answer is not None:
        assert name not in result.answer
        if "'s" in answer:
            assert "]'s " in result.answer  # the possessive stays outside the placeholder and still reads as English
    assert result.sections["output_guard"].layer1_redactions >= 1


def test_identifier_codes_and_handles_are_redacted(enforcer: OutputGuardEnforcer) -> None:
    result = _run(enforcer, "@anderson_61 : after entering my US-DL-74111304325 data the sync fails with a token error.")
    assert result.answer is not None and "anderson_61" not in result.answer and "74111304325" not in result.answer
    categories = set(result.sections["output_guard"].layer1_categories)
    assert "handle" in categories and categories & {"id", "government_id"}, categories


def test_a_rewrite_that_leaves_a_direct_identifier_is_refused(enforcer: OutputGuardEnforcer) -> None:
    guard = enforcer.guard
    assert isinstance(guard, OutputGuard)
    section = guard.check("Flu vaccines are offered every autumn.").section
    left = guard._released("She is 40-49 years old; write to jane.roe@example.com.", section, "generalized", "QI cluster generalized")
    assert left.text is None and left.section.action == "refused"
    assert "contact x1" in left.reason and "jane.roe" not in left.reason


def test_a_cluster_is_generalized_or_refused_never_released_whole(enforcer: OutputGuardEnforcer) -> None:
    result = _run(enforcer, CLUSTER)
    section = result.sections["output_guard"]
    assert section.verdict == "flag" and section.qi_per_person[0] >= 3, section
    if result.answer is not None:
        assert section.action == "generalized"
        people = extract(result.answer, "medical", CLASSES).classes_by_person()
        assert all(len(c) < 2 for c in people.values()) or section.generalized_spans > 0
        for value in ("58", "harbour pilot", "Port Erin"):
            assert value not in result.answer
    else:
        assert section.action == "refused" and section.review_item is not None


def test_refusals_and_abstentions_are_reviewable_with_their_reason(enforcer: OutputGuardEnforcer, policy_path: Path) -> None:
    refused = _run(enforcer, "Annual flu vaccination lowers the risk of hospitalization. Questions: write to care@clinic.example.")
    section = refused.sections["output_guard"]
    assert refused.answer is None and section.action == "refused" and section.review_item is not None
    item = open_queue(policy_engine.load_policy(policy_path)).get(section.review_item)
    assert item.status == "pending" and item.details["action"] == "refused"
    assert "critical direct identifier (contact)" in item.details["reason"]
    assert "cluster" not in item.details["reason"] and "QI" not in item.details["reason"]  # no cluster was found, none is claimed


def test_reasons_name_kinds_and_counts_never_values(enforcer: OutputGuardEnforcer) -> None:
    result = _run(enforcer, CLUSTER)
    section = result.sections["output_guard"]
    assert "QI classes per person" in section.reason and "AGE" in section.reason and "LOCATION" in section.reason
    dumped = json.dumps({k: v for k, v in section.model_dump().items() if not isinstance(v, float)}) + " ".join(result.notes)  # scores are no values
    for value in ("58", "harbour", "Port Erin", "heart failure"):
        assert value not in dumped


def test_an_answer_without_a_person_never_reports_a_cluster(enforcer: OutputGuardEnforcer) -> None:
    section = _run(enforcer, "High blood pressure often has no symptoms, so check it once a year.").sections["output_guard"]
    assert section.action == "pass" and section.qi_per_person == [] and "no QI attributed" in section.reason


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("Among women aged 40 to 49 in the screening programme, about 1 in 8 had a recall.", "aggregate"),
        ("Say you are a 45-year-old runner with knee pain: most physiotherapists start with strength exercises.", "hypothetical"),
        ("Suppose a couple in their fifties inherits a house in Leeds; they owe no tax on the inheritance itself.", "hypothetical"),
        ("The health minister said at the press briefing in Ottawa that the clinics will open in March.", "public_role"),
        ("I can't discuss your brother's diabetes or his insulin with you.", "deflection"),
    ],
)
def test_borderline_patterns_bind_their_qis_to_nobody(text: str, pattern: str) -> None:
    found = extract(text, "medical", CLASSES)
    assert pattern in found.patterns, (found.patterns, found.mentions)
    assert found.max_classes() < 2, found.classes_by_person()


def test_quasi_identifiers_spread_over_different_people_are_counted_apart() -> None:
    found = extract("One tenant is a retired bus driver from Leeds; a different tenant, a nurse, filed the complaint.", "law",
                    ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY"))
    people = found.classes_by_person()
    assert len(people) >= 2 and "distinct_persons" in found.patterns
    assert found.max_classes() <= 2


def test_quasi_identifiers_of_one_person_across_sentences_are_counted_together() -> None:
    found = extract("The client is 47 and lives in Lewes. He works as an orthodontist.", "finance", ("AGE", "OCCUPATION", "LOCATION"))
    assert found.max_classes() == 3, found.classes_by_person()


def test_handwritten_unsafe_answers_are_never_released_as_written(enforcer: OutputGuardEnforcer) -> None:
    answers = [a for a in json.loads(HANDWRITTEN.read_text(encoding="utf-8"))["answers"] if a["domain"] == "medical" and a["label"] == "unsafe"]
    assert answers
    for answer in answers:
        result = _run(enforcer, answer["text"])
        assert result.sections["output_guard"].action != "pass", answer["id"]
        assert result.answer != answer["text"], answer["id"]


#: A generic answer whose only clause subjects are things (exercise, screening): one AGE, no person identified.
GENERIC_WITH_THINGS = "Among adults aged 50 to 65, regular exercise lowers blood pressure. Annual screening is recommended from age 45."


def test_a_lone_quasi_identifier_under_a_thing_is_released_unchanged(enforcer: OutputGuardEnforcer) -> None:
    """One QI class below the limit under a thing ("Annual screening is recommended from age 45"): the common-noun
    animacy model (trained on CAPID's head nouns, not the name model) says "screening" is no person, so the age
    anchors no one and the answer is released as written, neither generalized nor held for review."""
    result = _run(enforcer, GENERIC_WITH_THINGS)
    section = result.sections["output_guard"]
    assert section.action == "pass", section
    assert section.generalized_spans == 0 and result.answer == GENERIC_WITH_THINGS and section.qi_per_person == []


def test_a_job_word_inside_a_name_is_no_occupation() -> None:
    """A surname or firm name that is also a job word ("Baker", "Fisher") is part of a named entity, not an occupation."""
    found = extract("The claimant joined Baker Fisher Partners in 2019.", "law", ("OCCUPATION", "AFFILIATION"))
    assert "OCCUPATION" not in {m.qi_class for m in found.mentions}, found.mentions


#: One person's quasi-identifiers said in ways the readers must not miss: a condition or medicine in the plural (the
#: person has had several strokes; "statin" and "statins" name one treatment), and a bare age said of a person noun or
#: by a verb conjoined to one.  Each answer gives one person two classes or more ("My husband": the relationship is
#: the speaker's, the condition and the medicine the husband's).
ONE_PERSON = {
    "a condition in the plural": ("Since the spring he has had two strokes and now takes warfarin.", {"CONDITION", "TREATMENT"}),
    "a plural condition of a pronoun subject": pytest.param("She has seizures most nights and takes lamotrigine.", {"CONDITION", "TREATMENT"}, marks=pytest.mark.xfail(
        strict=True, reason="a bare plural is read as a group (persons._anchor), also of things: reading a plural thing as its "
                            "subject's (the noun-animacy model) also read 'a retired teacher asking about statins' as the "
                            "teacher's treatment and lowered the hand-written medical AUROC from 0.979 to 0.958 (run stop45-plural-age)")),
    "a medicine in the singular of a plural entry": ("My husband is on a statin and has angina.", {"CONDITION", "TREATMENT"}),
    "an age said of a person noun": ("My neighbour is 61 and lives alone in Cardiff.", {"AGE", "LOCATION"}),
    "an age in a verb conjoined to the subject's": ("The tenant lives in Swansea and is 74.", {"AGE", "LOCATION"}),
}


@pytest.mark.parametrize(("text", "classes"), ONE_PERSON.values(), ids=list(ONE_PERSON))
def test_one_persons_quasi_identifiers_are_read_in_the_plural_and_from_a_bare_age(text: str, classes: set[str]) -> None:
    found = extract(text, "medical", CLASSES)
    people = found.classes_by_person()
    assert any(classes <= set(held) for held in people.values()), (people, found.mentions)


@pytest.mark.parametrize("text", ["The fee is 61 and the form takes ten minutes.", "The ward has 40 beds and two of them are free."])
def test_a_number_said_of_a_thing_is_no_age(text: str) -> None:
    assert "AGE" not in {m.qi_class for m in extract(text, "medical", CLASSES).mentions}


def test_a_plural_of_people_is_still_a_group() -> None:
    """Counter-case of the plural readings: "nurses" names a group, not one person."""
    found = extract("Nurses in Leeds with asthma often work night shifts.", "medical", CLASSES)
    assert found.max_classes() < 2, found.classes_by_person()


def test_a_job_named_by_two_nouns_is_still_an_occupation() -> None:
    found = extract("She works as a nurse practitioner in Leeds.", "medical", CLASSES)
    assert "OCCUPATION" in {m.qi_class for m in found.mentions}, found.mentions


def test_names_listed_inside_an_organisation_leave_no_placeholder_inside_its_generalization(example_guard: Callable[[str], OutputGuard]) -> None:
    """Review finding: "represented by Osei & Lindgren" read "[an organization [NAME_2]"."""
    outcome = example_guard("lawfirm").check("The tenant, 34, a nurse in Hull, was represented by Osei & Lindgren.")
    assert outcome.text is None or (outcome.text.count("[") == outcome.text.count("]") and "[an " not in outcome.text and "Osei" not in outcome.text), outcome.text


@pytest.mark.parametrize("answer", [
    "[NAME_1] is 71, was a coal miner in Barnsley for 30 years and now lives with his son.",
    "Mr Haddad is 71 and lives with his son in Barnsley.",
])
def test_a_bare_number_said_of_a_named_person_is_an_age(answer: str) -> None:
    """A person's name (or Layer 1's placeholder for one) is a person: "is 71" said of it is an age, as it is of "she"."""
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert any(m.qi_class == "AGE" and answer[m.start : m.end] == "71" and m.person is not None for m in extraction.mentions), \
        [(m.qi_class, answer[m.start : m.end], m.person) for m in extraction.mentions]


@pytest.mark.parametrize("answer", [
    "[NAME_1] is 71, was a coal miner in Barnsley for 30 years and now lives with his son.",
    "She is 44, was a nurse in Leeds and has two kids.",
])
def test_a_predicate_of_a_copula_conjoined_to_another_is_the_same_persons(answer: str) -> None:
    """"is 71, was a coal miner in Barnsley": the second copula has no subject of its own, so "a coal miner" is said of
    the first one's, not a new person opened by its article; everything here is one person's."""
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert len(extraction.classes_by_person()) == 1 and all(m.person is not None for m in extraction.mentions), \
        [(m.qi_class, answer[m.start : m.end], m.person) for m in extraction.mentions]


def test_a_status_said_by_its_own_verb_is_its_subjects() -> None:
    """"She is widowed since 2019": the participle heads the clause, with "She" as its subject; the status is hers,
    with the job and the place said of her after it."""
    answer = "She is widowed since 2019 and works as a nurse in Bath."
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == {0: ("FAMILY", "LOCATION", "OCCUPATION")}, \
        [(m.qi_class, answer[m.start : m.end], m.person, m.pattern) for m in extraction.mentions]


@pytest.mark.parametrize(("answer", "released_whole"), [
    # the parse reads "lives" as a plural noun predicated of "He": one man, no group
    ("He is divorced, lives alone in Cork and is 58.", False),
    # a plural subject is a group
    ("The patients are mostly retirees in Leeds aged over 70.", True),
])
def test_a_plural_predicate_of_one_person_is_no_group(example_guard: Callable[[str], OutputGuard], answer: str, released_whole: bool) -> None:
    outcome = example_guard("clinic").check(answer)
    assert (outcome.section.action == "pass" and outcome.text == answer) is released_whole, (outcome.section.action, outcome.text)
    if not released_whole:
        assert outcome.text is None or "Cork" not in outcome.text, outcome.text


@pytest.mark.parametrize(("answer", "classes"), [
    # a job no lexicon lists, said of a person ("he was a coal miner"), counts beside the age said of him
    ("My grandad is 84 and lives alone in Powys; he was a coal miner.", ("AGE", "LOCATION", "OCCUPATION")),
    # a kin word written as a form of address ("My Grandad") says an age like "my grandad"
    ("My Grandad is 84 and lives alone in Leeds.", ("AGE", "LOCATION")),
    # a status noun the model also reads as a job counts once, as the status
    ("He is a widower and lives in Leeds.", ("FAMILY", "LOCATION")),
])
def test_a_persons_job_and_age_are_read_where_no_lexicon_lists_them(answer: str, classes: tuple[str, ...]) -> None:
    extraction = extract(answer, "medical", qi_classes("medical"))
    people = extraction.classes_by_person()
    assert list(people.values()) == [classes], [(m.qi_class, answer[m.start : m.end], m.person) for m in extraction.mentions]


def test_an_unlisted_job_with_an_age_is_never_released_as_written(example_guard: Callable[[str], OutputGuard]) -> None:
    """Own probe: Layer 1 hides "Powys" (read as a name), and the age with "a coal miner" was released as written."""
    outcome = example_guard("clinic").check("My grandad is 84 and lives alone in Powys; he was a coal miner.")
    assert outcome.section.action != "pass" and (outcome.text is None or ("84" not in outcome.text and "miner" not in outcome.text)), \
        (outcome.section.action, outcome.text)


def test_a_decade_of_life_is_no_group() -> None:
    """"in his forties from Grimsby": the parse hangs the place on "forties", a plural that names an age, not a group."""
    answer = "He is a lorry driver in his forties from Grimsby and was diagnosed with diabetes last spring."
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == {0: ("AGE", "CONDITION", "LOCATION", "OCCUPATION")}, \
        [(m.qi_class, answer[m.start : m.end], m.person, m.pattern) for m in extraction.mentions]


@pytest.mark.parametrize(("answer", "classes"), [
    # the infinitive's subject is the subject of the verb it complements (subject control)
    ("Can't believe I get to be a firefighter and a father of twins.", {0: ("FAMILY", "OCCUPATION")}),
    # through the adjective it complements ("I'm proud to be")
    ("I'm proud to be a nurse and a mum of two.", {0: ("FAMILY", "OCCUPATION")}),
    # the object of the verb it complements (object control; a guard, held before)
    ("They asked me to be a witness because I am a paramedic in Leeds.", {0: ("LOCATION", "OCCUPATION")}),
])
def test_a_predicate_of_an_infinitive_is_said_of_its_controller(answer: str, classes: dict[int, tuple[str, ...]]) -> None:
    """Own probe: "I get to be a firefighter and a father of twins" passed with the job given to the writer and "a
    father" to a second person its article opened."""
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == classes, [(m.qi_class, answer[m.start : m.end], m.person, m.pattern) for m in extraction.mentions]


def test_a_predicate_of_an_infinitive_said_of_anyone_is_nobodys() -> None:
    """"It's hard to be a nurse and a mum": an expletive controls the infinitive; "it" is no person."""
    answer = "It's hard to be a nurse and a mum at the same time; most people need support."
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == {}, [(m.qi_class, answer[m.start : m.end], m.person, m.pattern) for m in extraction.mentions]


def test_a_job_and_a_family_status_said_through_an_infinitive_are_not_released(example_guard: Callable[[str], OutputGuard]) -> None:
    outcome = example_guard("clinic").check("Can't believe I get to be a firefighter and a father of twins.")
    assert outcome.section.action != "pass" and (outcome.text is None or "firefighter" not in outcome.text), (outcome.section.action, outcome.text)


def test_a_word_a_possessive_pronoun_determines_is_no_organisation(example_guard: Callable[[str], OutputGuard]) -> None:
    """Own probe: the parse labels "GP" an organisation, so "his GP" was his AFFILIATION beside his age, and the answer
    was generalized to "an organization has referred him"; a proper name takes no possessive determiner."""
    answer = "He is 58 and his GP has referred him to a cardiologist."
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert "AFFILIATION" not in {m.qi_class for m in extraction.mentions}, [(m.qi_class, answer[m.start : m.end]) for m in extraction.mentions]
    assert example_guard("clinic").check(answer).section.action == "pass"


def test_an_official_named_by_a_placeholder_speaks_in_a_public_role(example_guard: Callable[[str], OutputGuard]) -> None:
    """Own probe: Layer 1 hides "Dr Sarah Lin" before the extraction reads the sentence, so the speaker was no named
    person and the statement was generalized to "[DOCTOR_NAME_1], a professional, told an organization ..."."""
    outcome = example_guard("clinic").check("Dr Sarah Lin, the trust's medical director, told the BBC that winter pressures were easing.")
    assert outcome.section.action in ("pass", "redacted") and outcome.section.generalized_spans == 0, (outcome.section.action, outcome.reason)


def test_a_verb_the_parse_reads_as_a_plural_noun_after_an_object_is_no_group() -> None:
    """Own probe: "She takes a statin and lives in Leeds." passed with one class: the parse reads "lives" as a plural
    noun conjoined to "statin", and the place went to nobody as an aggregate."""
    answer = "She takes a statin and lives in Leeds."
    extraction = extract(answer, "medical", qi_classes("medical"))
    assert extraction.classes_by_person() == {0: ("LOCATION", "TREATMENT")}, [(m.qi_class, answer[m.start : m.end], m.person, m.pattern) for m in extraction.mentions]


def test_an_object_the_grammar_marks_as_a_person_holds_what_is_said_of_them(example_guard: Callable[[str], OutputGuard]) -> None:
    """Own probe: "The records show a retired judge, aged 82, ..." was released as an aggregate (the walk passed the
    object and reached "records", a plural). A relative "who" and an age mark the object a person; an object they do
    not mark ("manages a bakery in Cork") opens no one."""
    outcome = example_guard("clinic").check("The records show a retired judge, aged 82, from Harrogate who has early dementia.")
    assert outcome.section.action != "pass" and (outcome.text is None or ("82" not in outcome.text and "dementia" not in outcome.text)), \
        (outcome.section.action, outcome.text)
    answer = "He is 39 and manages a bakery in Cork."
    assert extract(answer, "medical", qi_classes("medical")).classes_by_person() == {0: ("AGE", "LOCATION")}


def test_a_place_after_what_one_person_acts_on_is_that_persons(example_guard: Callable[[str], OutputGuard]) -> None:
    """Own probe: "After twenty years of fighting fires in Leeds, I'm 52 ..." passed: the walk from the place met the
    plural "fires" first and called it an aggregate. A plural a verb acts on is where its doer acts; a plural that is
    the clause's own group ("Doctors in Leeds treat ...") still makes an aggregate."""
    outcome = example_guard("clinic").check("After twenty years of fighting fires in Leeds, I'm 52 and my knees are shot.")
    assert outcome.section.action != "pass" and (outcome.text is None or "Leeds" not in outcome.text), (outcome.section.action, outcome.text)
    answer = "She treats children in Leeds and she is 39."
    assert extract(answer, "medical", qi_classes("medical")).classes_by_person() == {0: ("AGE", "LOCATION")}
    aggregate = extract("Doctors in Leeds treat patients over 65 first.", "medical", qi_classes("medical"))
    assert not aggregate.classes_by_person() and "aggregate" in aggregate.patterns


def test_a_place_after_whom_one_person_serves_is_that_persons() -> None:
    """Own probe: "He sells insurance to farmers in Devon and is 58." passed: the place hangs on "farmers", the object
    of a "to" the parse labels dative, and went to nobody as an aggregate."""
    answer = "He sells insurance to farmers in Devon and is 58."
    assert extract(answer, "medical", qi_classes("medical")).classes_by_person().get(0, ())[:2] == ("AGE", "LOCATION")


def test_an_age_sex_tag_after_a_pronoun_is_the_pronouns_person() -> None:
    """Own probe: "I (27M) ..." is parsed with "M" a proper noun in apposition to "I"; the walk from the age opened a
    second person there, and the writer's age and place were counted for two people."""
    answer = "I (27M) just started driving trucks out of Rotterdam and earn about 2,000 a month."
    assert extract(answer, "finance", qi_classes("finance")).classes_by_person() == {0: ("AGE", "LOCATION")}
