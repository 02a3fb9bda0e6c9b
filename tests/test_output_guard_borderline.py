"""Regression answers for the output guard's borderline patterns and names (issue 32), written before any tuning.

Not copied from any corpus: each answer holds one failure class.  Borderline-safe
answers (aggregates, a public official speaking publicly, QIs spread over
different people, a hypothetical person, a deflection, generic advice whose
clause subjects are things) are released; given names the entity recognizer
misses (a name of either gender, an identity field whose label a placeholder
replaced, a given name that is also a dictionary word set apart by quotes or a
hashtag) never survive; a doubtful answer goes to the review queue with a
reason that names kinds and counts, never values.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import policy_engine
from enforcers.output_guard.enforcer import OutputGuardEnforcer
from enforcers.output_guard.persons import extract
from enforcers.output_guard.reviews import open_queue
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts
from policy_engine.nlp.animacy import not_person_nouns

ROOT = Path(__file__).resolve().parents[1]
POLICIES = {"medical": "clinic", "finance": "bank", "law": "lawfirm"}

BORDERLINE = [
    ("medical", "aggregate", "Among patients aged 70 to 79 on the stroke ward, roughly a third were readmitted within a month."),
    ("finance", "aggregate", "Retirees in coastal towns start drawing their pensions earlier than the national average, the annual survey found."),
    ("law", "public_role", "The county sheriff told reporters on Friday that the new jail in the east district will open next spring."),
    ("medical", "distinct_persons", "A teacher from the valley asked about flu shots, and a different caller, a farmer, asked about tetanus boosters."),
    ("finance", "distinct_persons", "One client is a baker saving for a van; another, a retired sailor in the north, asked about tax-free savings."),
    # an ordinal sets one person apart as "another" does
    ("law", "distinct_persons", "The first witness was a bus driver; a second, unrelated witness lived in Hull."),
    ("medical", "hypothetical", "Say you are a 52-year-old electrician with back pain: a physiotherapist will usually suggest core exercises first."),
    ("finance", "hypothetical", "Suppose a widow in her sixties inherits shares; she would usually pay no tax until she sells them."),
    ("medical", "hypothetical", "If you were a 45-year-old teacher in Leeds, the screening would be offered every three years."),
    ("medical", "deflection", "I can't share your uncle's test results; his doctor can discuss them with you if he consents."),
    ("medical", "generic", "For adults over 40, regular blood tests matter. Annual screening is advised from age 50."),
    ("law", "generic", "Among tenants aged 18 to 25, disputes over deposits are common. Written inventories are recommended from day one."),
]


@pytest.fixture(scope="module")
def policy_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Copies of the example policies (their review queues and ledgers land in a temporary folder)."""
    root = tmp_path_factory.mktemp("policies")
    return {domain: Path(shutil.copytree(ROOT / "policies" / name, root / name)) for domain, name in POLICIES.items()}


@pytest.fixture(scope="module")
def guards(policy_dirs: dict[str, Path]) -> dict[str, OutputGuardEnforcer]:
    """The example policies' guards as an engine builds them (shipped scorer, no training run)."""
    built = {}
    for domain, path in policy_dirs.items():
        policy = policy_engine.load_policy(path)
        built[domain] = OutputGuardEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
        assert built[domain].guard is not None
    return built


def _run(enforcer: OutputGuardEnforcer, answer: str) -> EnforcementContext:
    context = EnforcementContext(passages=(Passage.of("c1", "context"),), constraints=(), query="q", answer=answer)
    return EnforcementPipeline([enforcer]).run(Stage.ANSWER, context).context


@pytest.mark.parametrize(("domain", "pattern", "answer"), BORDERLINE, ids=[f"{d}-{p}-{i}" for i, (d, p, _) in enumerate(BORDERLINE)])
def test_each_borderline_pattern_is_released(guards: dict[str, OutputGuardEnforcer], domain: str, pattern: str, answer: str) -> None:
    result = _run(guards[domain], answer)
    section = result.sections["output_guard"]
    assert section.action in ("pass", "redacted"), (pattern, section.action, section.reason)
    assert result.answer is not None and section.generalized_spans == 0


@pytest.mark.parametrize(
    ("answer", "name"),
    [
        ("Leslie said her mother was admitted last week and is recovering.", "Leslie"),
        ("The scan for Henrietta Vasquez and Christina Oyelaran showed no fracture.", "Christina"),
        ("Seller: RobinCrafts | ships within two days", "RobinCrafts"),
        ("The front desk keeps confusing our two \"Daniel\"s when booking scans.", "Daniel"),
        ("Please thank \"Maria\" at reception; she rebooked the scan.", "Maria"),
        ("Shout-out to #Michael for covering the night shift on the ward.", "Michael"),
    ],
)
def test_given_names_the_recognizer_misses_never_survive(guards: dict[str, OutputGuardEnforcer], answer: str, name: str) -> None:
    result = _run(guards["medical"], answer)
    assert result.answer is None or name not in result.answer, result.answer
    assert result.sections["output_guard"].layer1_redactions >= 1


def test_two_names_get_two_placeholders(guards: dict[str, OutputGuardEnforcer]) -> None:
    """A name the detector replaced and one the lexicon finds are different people: different numbers."""
    result = _run(guards["medical"], "The scan for Henrietta Vasquez and Christina Oyelaran showed no fracture.")
    assert result.answer is not None
    assert "[NAME_1]" in result.answer and "[NAME_2]" in result.answer, result.answer


def test_a_doubtful_answer_goes_to_review_with_kinds_and_counts(guards: dict[str, OutputGuardEnforcer], policy_dirs: dict[str, Path]) -> None:
    """A subject one QI class short of the limit beside another subject: the score's doubt is a reviewer's to settle."""
    answer = "The patient is 47. Her sister, a pharmacist, came with her to ask about the new tablets."
    result = _run(guards["medical"], answer)
    section = result.sections["output_guard"]
    assert section.action != "pass", section
    if result.answer is None:
        item = open_queue(policy_engine.load_policy(policy_dirs["medical"])).get(section.review_item or "")
        assert item.details["action"] == section.action and "QI classes per person" in item.details["reason"]
        assert "47" not in item.details["reason"] and "pharmacist" not in item.details["reason"]


DEMO_GENERIC = "Among adults aged 50 to 65, regular exercise lowers blood pressure. Annual screening is recommended from age 45."
MEDICAL_CLASSES = ("AGE", "OCCUPATION", "LOCATION", "AFFILIATION", "FAMILY", "CONDITION", "TREATMENT", "VISIT_PATTERN")


def test_a_thing_as_clause_subject_anchors_no_one() -> None:
    """"Annual screening is recommended from age 45": the noun-animacy model (CAPID head nouns) says "screening" is no person."""
    found = extract(DEMO_GENERIC, "medical", MEDICAL_CLASSES)
    assert found.mentions and all(m.person is None for m in found.mentions), found.mentions


def test_the_noun_animacy_model_keeps_person_nouns_and_vetoes_things() -> None:
    assert not_person_nouns(["patient", "nurse", "husband", "client"]) == frozenset()
    assert "screening" in not_person_nouns(["screening", "diagnosis"])


def test_structural_release_needs_every_mention_explained() -> None:
    """Distinct persons opened apart, or every QI kept by a pattern, explain a text; one attributed subject does not."""
    apart = extract("A teacher from the valley asked about flu shots, and a different caller, a farmer, asked about tetanus boosters.", "medical", MEDICAL_CLASSES)
    assert apart.explained(2) == "distinct_persons", apart.mentions
    supposed = extract("Say you are a 52-year-old electrician with back pain: a physiotherapist will suggest core exercises.", "medical", MEDICAL_CLASSES)
    assert supposed.explained(2) == "kept_by_pattern", supposed.mentions
    one = extract("The patient is a 58-year-old harbour pilot.", "medical", MEDICAL_CLASSES)
    assert one.explained(2) is None
