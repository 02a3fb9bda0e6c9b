"""query_rewrite: need-to-know rewriting of the question before retrieval (real spaCy, MiniLM, shipped task model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from enforcers.query_rewrite.enforcer import QueryRewriteEnforcer
from enforcers.query_rewrite.generic import GENERIC
from enforcers.query_rewrite.rewriter import SHOWN_FROM, QueryRefused, QueryRewriter
from enforcers.query_rewrite.settings import NecessityRule, NecessitySettings
from enforcers.query_rewrite.spans import AttributeDetector
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Stage
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.engine.runtime import Engine
from policy_engine.policy.model import Metadata, Policy
from policy_engine.policy.vocabulary import builtin_vocabulary
from tests.retrieval_support import RecordingRetriever

ROOT = Path(__file__).resolve().parents[1]
ALLERGY = "I'm allergic to peanuts."
HIKE = f"{ALLERGY} Can you suggest some snacks I should pack for a 10-mile hike on Saturday?"
FILES = f"{ALLERGY} Can you write a Python script that renames all the files in a folder by their creation date?"
VIGNETTE = (
    "A 54-year-old man named John Carter presents with chest pain radiating to the left arm and sweating for two hours. "
    "He takes lisinopril daily. He enjoys birdwatching on weekends. He is a devout Catholic. "
    "Which of the following is the most likely diagnosis? A) myocardial infarction B) pneumonia C) asthma D) gout"
)
THIRD_PARTY = "I have type 2 diabetes, and my neighbor Tom has HIV. What diet should I follow to keep my blood sugar stable?"


def _policy(**necessity: object) -> Policy:
    return Policy(metadata=Metadata(name="rewrite-test"), necessity=NecessitySettings(**necessity))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return _policy()


@pytest.fixture(scope="module")
def rewriter(policy: Policy) -> QueryRewriter:
    return QueryRewriter(policy, Analyzer(policy))


def test_peanut_allergy_is_kept_for_hike_snacks_and_dropped_for_renaming_files(rewriter: QueryRewriter) -> None:
    hike, files = rewriter.rewrite(HIKE), rewriter.rewrite(FILES)
    assert "peanuts" in hike.text and "snacks" in hike.text
    assert "peanut" not in files.text.lower() and "allergic" not in files.text.lower()
    assert "renames all the files" in files.text
    assert files.task == "code_generation"
    assert [d.outcome for d in hike.decisions if d.span.attribute == "allergies"] == ["kept"]


def test_essential_medical_detail_survives_while_inert_details_go(rewriter: QueryRewriter) -> None:
    out = rewriter.rewrite(VIGNETTE).text
    for essential in ("54-year-old man", "chest pain radiating to the left arm", "lisinopril", "most likely diagnosis", "myocardial infarction"):
        assert essential in out
    for inert in ("John Carter", "birdwatching", "Catholic"):
        assert inert not in out


def test_third_party_details_are_removed_and_the_users_own_essential_ones_stay(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(THIRD_PARTY)
    assert "type 2 diabetes" in result.text
    assert "HIV" not in result.text and "Tom" not in result.text
    assert "What diet should I follow" in result.text
    subjects = {d.span.value(THIRD_PARTY): (d.span.subject, d.outcome) for d in result.decisions}
    assert subjects["type 2 diabetes"] == ("self", "kept")
    assert subjects["HIV"][0] == "third_party" and subjects["HIV"][1] != "kept"


@pytest.mark.parametrize(
    "query",
    [
        HIKE,
        FILES,
        VIGNETTE,
        THIRD_PARTY,
        "My wife is bipolar and my boss Karen Li just got a DUI. Translate 'good morning' into French.",
        "I'm a devout Muslim, my email is sam.k@example.com and I love knitting. Write a limerick about my friend Ana.",
    ],
)
def test_rewrite_never_introduces_sensitive_content(rewriter: QueryRewriter, query: str) -> None:
    out = rewriter.rewrite(query).text
    assert out.strip()
    detector = rewriter.attributes
    before = {s.attribute for s in detector.find(query)}
    generics = [g.casefold() for g in GENERIC.values()]
    for span in detector.find(out):
        value = span.value(out).casefold()
        assert value in query.casefold() or any(value in g for g in generics), value
        assert span.attribute in before or value in query.casefold()


class _InventingModelRewriter(QueryRewriter):
    """A rewriter whose model pass adds a condition the query never mentioned (what the verifier must catch)."""

    def _model_rewrite(self, stripped: str) -> str | None:
        return stripped + " I also have HIV."


def test_model_rewrite_that_adds_an_attribute_is_rejected() -> None:
    policy = Policy(metadata=Metadata(name="model-rewrite"), model={"use_for": ["rewrite"]})
    inventing = _InventingModelRewriter(policy, Analyzer(policy), model=object())
    result = inventing.rewrite(THIRD_PARTY)
    assert result.rewriter == "deterministic"
    assert "HIV" not in result.text


def test_a_model_pass_that_loops_leaves_the_deterministic_rewrite(tmp_path: Path) -> None:
    """A local model whose greedy output loops (the random tiny model: its rewrite is refused as degenerate) must not
    turn a verified rewrite into a crash: the deterministic text is forwarded."""
    from policy_engine.llm.runtime import load_model
    from tests.tiny_lm import build_tiny_model

    looping = load_model(build_tiny_model(tmp_path, seed=0, init_std=0.02))
    policy = Policy(metadata=Metadata(name="model-rewrite"), model={"use_for": ["rewrite"]})
    result = QueryRewriter(policy, Analyzer(policy), model=looping).rewrite(THIRD_PARTY)
    assert result.rewriter == "deterministic"
    assert "Tom" not in result.text and "What diet should I follow" in result.text


class _FailingDetector:
    def analyze_many(self, texts: list[str], constraints: object) -> list:
        raise RuntimeError("detector crashed on: " + texts[0])


def _rules_policy() -> Policy:
    rules = [NecessityRule(task="code_generation", essential=[], non_essential=["health"], action="remove")]
    base = _policy(rules=rules)
    return base.model_copy(update={"enforcement": base.enforcement.model_copy(update={"order": ["query_rewrite", "redaction"]})})


def test_failure_fails_closed_the_query_is_refused_not_forwarded() -> None:
    policy = _rules_policy()
    enforcer = QueryRewriteEnforcer.from_parts(EngineParts(policy, detector=_FailingDetector()))
    pipeline = EnforcementPipeline([enforcer])
    result = pipeline.run(Stage.QUERY, EnforcementContext(passages=(), constraints=(), query=FILES))
    assert result.denied and result.failure is not None and result.failure.enforcer == "query_rewrite"
    assert "peanuts" not in result.failure.reason and all("peanuts" not in n for n in result.context.notes)
    pipeline.close()

    engine = Engine(policy, detector=_FailingDetector(), retriever=RecordingRetriever())
    protected = engine.protect(FILES)
    assert protected.denied and engine.retriever.queries == []
    assert "query" not in protected.decision.input
    engine.close()


def test_engine_retrieves_with_the_rewrite_and_records_no_original(tmp_path: Path) -> None:
    policy = _rules_policy()
    retriever = RecordingRetriever()
    engine = Engine(policy, retriever=retriever)
    protected = engine.protect(FILES)
    assert retriever.queries and "peanut" not in retriever.queries[0].lower()
    assert protected.query == retriever.queries[0]
    assert "peanut" not in json.dumps(protected.decision.model_dump(mode="json")).lower()
    engine.close()


def test_enforcer_contract_without_necessity_rules_and_value_free_section(policy: Policy) -> None:
    assert registered()["query_rewrite"] is QueryRewriteEnforcer
    assert not QueryRewriteEnforcer.has_work(policy) and QueryRewriteEnforcer.has_work(_rules_policy())
    enforcer = QueryRewriteEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    context = enforcer.apply(EnforcementContext(passages=(), constraints=(), query=THIRD_PARTY, purpose="care"))
    section = context.sections["query_rewrite"]
    dumped = section.model_dump_json() + " ".join(context.notes)
    for value in ("HIV", "Tom", "diabetes"):
        assert value not in dumped
    assert section.kept.get("physical_health") == 1 and section.purpose == "care"
    assert context.query != THIRD_PARTY


def test_low_confidence_falls_back_to_the_policys_default_task() -> None:
    policy = _policy(min_confidence=1.0, default_task="code_generation")
    result = QueryRewriter(policy, Analyzer(policy)).rewrite(HIKE)
    assert result.task_source == "default_task" and result.task == "code_generation"
    assert "peanut" not in result.text


def test_purpose_specific_rule_wins() -> None:
    rules = [
        NecessityRule(task="comparison_ranking_recommendation", essential=["allergies"], purposes=["care"]),
        NecessityRule(task="comparison_ranking_recommendation", non_essential=["allergies"], action="remove"),
    ]
    policy = _policy(rules=rules, min_confidence=1.0, default_task="comparison_ranking_recommendation")
    rw = QueryRewriter(policy, Analyzer(policy))
    assert "peanuts" in rw.rewrite(HIKE, purpose="care").text
    assert "peanuts" not in rw.rewrite(HIKE, purpose="marketing").text


def test_attribute_detector_covers_families_the_detectors_lack(policy: Policy) -> None:
    text = "I'm a devout Catholic, I'm bisexual, my favorite hobby is pottery and I just adopted a beagle. I'm going through a divorce."
    found = {s.attribute for s in AttributeDetector(Analyzer(policy), builtin_vocabulary()).find(text)}
    assert {"religious_beliefs", "sexual_orientation", "favorite_hobbies", "pet_ownership", "relationship_status"} <= found


@pytest.mark.parametrize(
    "text",
    [
        "Is the city I live in safe, based on my ancestry?",
        "I grew up on a farm and now I keep bees. Which flowers do bees like best?",
    ],
)
def test_a_cue_for_a_place_needs_a_capitalized_name(policy: Policy, text: str) -> None:
    """A lexicon cue that writes its place with a capital ("I live in <Place>") is no address where no capitalized name
    follows: a stranded "in", "on a farm" (class 7: the patterns were matched case-blind)."""
    found = [s for s in AttributeDetector(Analyzer(policy), builtin_vocabulary()).find(text) if s.attribute == "address"]
    assert found == [], [s.value(text) for s in found]


def test_a_lexicon_cue_ends_with_its_sentence(policy: Policy) -> None:
    """A cue that matched on into the next sentence merged with "Hindu" there and took its label, so the first sentence
    was decided as a religious belief and "Hindu" had no decision of its own (class 7)."""
    text = "I work for a government agency that offers leave. As someone who is Hindu, can I take Diwali off?"
    found = [(s.attribute, s.value(text)) for s in AttributeDetector(Analyzer(policy), builtin_vocabulary()).find(text)]
    assert ("religious_beliefs", "Hindu") in found and not any("leave. As" in value for _, value in found), found


def test_cli_shows_before_and_after() -> None:
    from click_cli import cli

    question = "My name is Dana Whitfield and I'm going through a divorce. I take metformin for my type 2 diabetes. Which side effects of metformin should I watch for?"
    out = CliRunner().invoke(cli, ["rewrite", str(ROOT / "policies" / "clinic"), question, "-f", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["before"] == question and "metformin" in data["after"]
    assert "Dana Whitfield" not in data["after"] and "divorce" not in data["after"]
    assert "Dana" not in json.dumps(data["decision"])
    names = [span for span in data["decision"]["spans"] if span["attribute"] == "name"]
    assert len(names) == 1 and names[0]["subject"] == "self", names  # the tagger's clause adds no second, third-party name
    human = CliRunner().invoke(cli, ["rewrite", str(ROOT / "policies" / "clinic"), question])
    task_line = human.output.splitlines()[0]
    confidence, source = data["decision"]["confidence"], data["decision"]["task_source"]
    # a label the classifier is not sure of reads "general" (the rules still run on its guess); a fallback is named as such
    assert task_line.startswith("task      general (") == (source == "classifier" and confidence < SHOWN_FROM), task_line
    assert "multiple_choice_qa" not in task_line
    assert f"({source}, confidence" in task_line


def test_refusal_when_nothing_verifies(policy: Policy) -> None:
    class _Unverifiable(QueryRewriter):
        def failure(self, text: str, original: str, decisions: object, requests: object) -> str | None:
            return "a non-essential value survives"

    with pytest.raises(QueryRefused) as info:
        _Unverifiable(policy, Analyzer(policy)).rewrite(FILES)
    assert "peanut" not in str(info.value)


def test_disclosure_tagger_reads_wordings_and_typos_no_lexicon_lists() -> None:
    from enforcers.query_rewrite.learned import NO_DISCLOSURE, shared_tagger

    tags = shared_tagger().tag(
        [
            "my stepdad identifies as male these days",
            "my cousin is really alergic to shelfish",
            "my sister-in-law has been fighting a nasty custody case for months",
            "the spreadsheet has three tabs and a summary page",
        ]
    )
    assert [t.disclosure >= 0.5 for t in tags] == [True, True, True, False]
    assert tags[1].attribute == "allergies" and tags[2].attribute == "legal"
    assert NO_DISCLOSURE not in {t.attribute for t in tags}


def test_necessity_model_answers_from_the_question() -> None:
    from enforcers.query_rewrite.need import shared_necessity

    model = shared_necessity()
    question = "Which snacks can I safely pack for a day hike?"
    allergy, stamps = model.probability(question, ["I'm allergic to peanuts.", "I collect vintage stamps."], ["allergic to peanuts", "vintage stamps"], ["allergies", "favorite_hobbies"])
    assert allergy >= model.threshold and allergy > stamps
    (for_dinner,) = model.probability("Which recipes should I try for a weeknight dinner?", ["I'm allergic to peanuts."], ["allergic to peanuts"], ["allergies"])
    (for_car,) = model.probability("How often should I rotate my car's tyres?", ["I'm allergic to peanuts."], ["allergic to peanuts"], ["allergies"])
    assert for_dinner > for_car


def test_undetected_wording_is_removed_when_the_task_does_not_need_it(rewriter: QueryRewriter) -> None:
    query = "Quick background: my brother-in-law identifies as genderqueer. Also my landlady is in rehab for opioids. Can you translate 'good morning, neighbour' into Spanish?"
    result = rewriter.rewrite(query)
    assert "genderqueer" not in result.text and "opioids" not in result.text
    assert "translate 'good morning, neighbour' into Spanish" in result.text
    assert any(d.span.source in ("tagger", "unit") for d in result.decisions)  # found by the learned tagger (split into its units)


def test_statements_glued_to_the_request_are_separate_units() -> None:
    from enforcers.query_rewrite.request_roles import request_sentences
    from enforcers.query_rewrite.sentence_starts import parse

    cases = {
        "Which gas do plants absorb? a) oxygen b) helium -- answer w/ the letter Not sure it matters but I use a cochlear implant.": "Not sure it matters",
        "Kindly render 'see you soon' in Korean. (fwiw kiwi gives me a bad reaction.)": "(fwiw kiwi",
        "Subject: a question\nHi there,\nMy brother is on lithium.\nCan you suggest a budget app?": "My brother is on lithium.",
        "need an answer rn. which planet is largest?": "which planet is largest?",
    }
    for query, statement in cases.items():
        sentences = [s.text.strip() for s in parse(query).sents]
        assert any(s.startswith(statement) for s in sentences), sentences
    assert [s.text for s in request_sentences(parse("Smokes a pack a day; meds incl. sertraline. Which condition fits? A) gout B) flu"))][0] == "Which condition fits? A) gout B) flu"
    names = [s.text for s in parse("I am Cambodian and I take Zoloft every morning, I love Star Wars.").sents]
    assert not any(s.startswith(("Cambodian", "Zoloft", "Star")) for s in names), names  # capitalized names, nationalities and brands start no sentence


def test_personal_statement_after_a_task_needing_none_is_removed_even_when_the_tagger_is_unsure(rewriter: QueryRewriter) -> None:
    query = "Kindly render 'we look forward to working with you' in Korean. (fwiw kiwi gives me a bad reaction.) Thanks in advance"
    result = rewriter.rewrite(query)
    assert "kiwi" not in result.text.lower()
    assert "Korean" in result.text and "Thanks in advance" in result.text


def test_a_person_named_inside_a_modifier_is_not_the_subject() -> None:
    from enforcers.query_rewrite.subjects import subject_of

    text = "A parent from my kid's school is getting help for borderline personality disorder."
    start = text.index("borderline")
    assert subject_of(text, start, len(text) - 1) == "third_party"
    own = "My sister at the bank has asthma."
    assert subject_of(own, own.index("asthma"), len(own) - 1) == "family"


def test_repair_leaves_no_double_article_glued_words_or_capital_after_an_abbreviation() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "Saw a case today: Mary Garrett, a 76-year-old lady, w/ fevers x3 days. Meds incl. apixaban; FHx of lung cancer. Which fits best?"
    out = edit(text, [Edit(text.index("Mary"), text.index("Mary") + 12, "someone"), Edit(text.index("76"), text.index("76") + 16, "a certain age")], [])
    assert "a a " not in out and "someonew/" not in out
    text = "Saw a case today: a 76-year-old lady w/ fevers x3 days. Meds incl. apixaban; FHx of lung cancer. Which fits best?"
    out = edit(text, [Edit(text.index("apixaban"), text.index("apixaban") + 8, "a medication")], [(text.index("lung"), text.index("lung") + 11)])
    assert "apixaban" not in out and "Meds incl. A" not in out


def test_a_name_goes_alone_not_with_the_clause_a_misparse_hangs_on_it(rewriter: QueryRewriter) -> None:
    query = (
        "A 62-year-old man named Daniel Hartman presents with polyuria and polydipsia for two days. He smokes a pack a day. "
        "Which of the following is the most likely diagnosis? A) appendicitis B) anemia C) myocardial infarction D) diabetes mellitus"
    )
    out = rewriter.rewrite(query).text
    assert "Hartman" not in out and "named" not in out
    assert "presents with polyuria and polydipsia" in out


def test_times_of_day_and_durations_are_no_dates_of_a_person(policy: Policy) -> None:
    detector = AttributeDetector(Analyzer(policy), builtin_vocabulary())
    text = "She has joint swelling and morning stiffness for two days. Her birthday is on 12 March."
    dates = [s.value(text) for s in detector.find(text) if s.attribute == "dates"]
    assert dates and all("March" in d for d in dates), dates


def test_a_capitalized_belief_after_a_copula_is_not_taken_for_a_name(rewriter: QueryRewriter) -> None:
    query = "I am Greek Orthodox. My doctor says I have shingles. Weigh the pros and cons of ways of keeping my faith practices on a work trip."
    result = rewriter.rewrite(query)
    assert not [d for d in result.decisions if d.span.attribute == "name"]
    assert "someone" not in result.text


def test_a_statement_about_someone_else_is_never_taken_for_the_request() -> None:
    from enforcers.query_rewrite.request_roles import request_sentences
    from enforcers.query_rewrite.sentence_starts import parse

    query = "hiya! The guy who delivers our mail looks after a pair of ferrets. this SQL throws a syntax error and idk why: SELECT name FROM users WHERE id = = 3"
    assert [s.text for s in request_sentences(parse(query))] == ["this SQL throws a syntax error and idk why: SELECT name FROM users WHERE id = = 3"]
    query = "My bday is 2 February. sketch my work wife Paula as a wizard in a tabletop game - they're big into bouldering"
    assert [s.text for s in request_sentences(parse(query))][-1].startswith("sketch my work wife Paula")


def test_a_personal_clause_the_tagger_cannot_name_still_goes_when_not_needed(rewriter: QueryRewriter) -> None:
    query = "The new hire on my team is saving up for the Amalfi Coast. Kindly tell me the boiling point of water at sea level in Fahrenheit."
    result = rewriter.rewrite(query)
    assert "Amalfi" not in result.text and "boiling point of water" in result.text


def test_what_the_request_itself_names_is_kept(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite("I love knitting. Which side effects of metformin should I watch for?")
    assert "metformin" in result.text and "knitting" not in result.text
    assert [d.basis for d in result.decisions if d.span.attribute == "medications"] == ["default: the request itself names it"]


def test_a_run_on_request_is_split_from_the_statements_strung_before_it(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = "basically my cousin is on Lexapro and the caretaker at my building keeps a tortoise and so anyway could you write a Python function that reverses a string?"
    assert request_text(parse(query)).endswith("could you write a Python function that reverses a string?")
    assert not request_text(parse(query)).startswith("basically")
    out = rewriter.rewrite(query).text
    assert "Lexapro" not in out and "tortoise" not in out and "reverses a string" in out


@pytest.mark.parametrize("query", [
    "I'm Welsh and I bake for my flatmates on Sundays (who will then tell me exactly what went wrong). How can I get a crispier crust?",
    "My parents moved to Perth last year and my dad keeps saying he would then explain why the move was worth it. What gifts suit a retired engineer?",
])
def test_a_verb_group_is_not_split_at_a_connector_inside_it(query: str) -> None:
    """A run-on request opens after a phrase that is closed: "who will | then tell me" is one verb group, not a request."""
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    doc = parse(query)
    assert not any(s.text.startswith("then") for s in doc.sents)
    assert request_text(doc) == query[query.rindex(". ") + 2 :]


def test_the_main_request_is_found_when_only_a_tacked_on_add_on_reads_as_one() -> None:
    from enforcers.query_rewrite.request_roles import is_add_on, request_sentences, request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = "My landlord plays the oboe. spitball some ideas for a budget wedding in the spring Also, unrelated: how many grams are in an ounce?"
    doc = parse(query)
    requests = [s.text.strip() for s in request_sentences(doc)]
    assert any(r.startswith("spitball") for r in requests) and any(is_add_on(r) for r in requests), requests
    assert "grams" not in request_text(doc) and "spitball" in request_text(doc)  # the classifier reads the main request only
    assert is_add_on("Oh and one more thing - what's a synonym for 'big'?")


def test_a_statement_of_need_after_a_filler_is_no_request_beside_a_question(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_sentences
    from enforcers.query_rewrite.sentence_starts import parse

    question = "Are there precautions I should take with flour dust after my asthma diagnosis?"
    query = f"I'm 42 and I bake bread on night shifts, and I want you to understand how much I love that job. {question}"
    # "and I want you to understand ..." is context, as "I want you to understand ..." already was
    assert [s.text.strip() for s in request_sentences(parse(query))] == [question]
    assert rewriter.rewrite(query).text.endswith(question)


def test_dropped_bullets_leave_no_markers_behind(rewriter: QueryRewriter) -> None:
    query = "Some background:\n- My sister is a Wiccan\n- My landlord keeps a ferret\n- My coworker is on Ozempic\nWrite a Python function that sorts a list of numbers."
    out = rewriter.rewrite(query).text
    assert "Wiccan" not in out and "ferret" not in out and "Ozempic" not in out
    assert "- -" not in out and not out.rstrip().endswith("-") and "sorts a list of numbers" in out


@pytest.mark.xfail(strict=True, reason="issue 30 classes 3 and 7, still wrong: the vitals line loses 'BP 220/130' (the CAPID-fitted necessity model judges it not needed) and 'SpO2' is read as a driver's licence number; the numbered options now stay with their question")
def test_vitals_and_labs_of_the_patient_stay_and_option_numbers_survive(rewriter: QueryRewriter) -> None:
    query = (
        "S: 62 yo female (Ruth Abernathy) c/o crushing headache and blurred vision since this morning. PMH: hypertension.\n"
        "O: BP 220/130, SpO2 97% on room air.\n"
        "Misc: she keeps a parrot named Kiwi; callback 555.301.2299.\n"
        "A/P: Most likely dx? 1. hypertensive emergency 2. migraine 3. gout 4. tension headache"
    )
    out = rewriter.rewrite(query).text
    assert "BP 220/130" in out and "SpO2 97%" in out and "62 yo female" in out and "blurred vision" in out
    assert "Abernathy" not in out and "parrot" not in out and "555.301.2299" not in out
    assert "1. hypertensive emergency 2. migraine 3. gout 4. tension headache" in out
    assert "female )" not in out and ")" not in out.replace("(", "")


def test_measurements_are_recognised() -> None:
    from enforcers.query_rewrite.necessity import measured

    assert measured("O: SpO2 89% on room air") and measured("lipase 1,900 U/L") and measured("BP 212/124") and measured("glucose 612 mg/dL")
    assert not measured("I owe $60k in tax debt") and not measured("I swim 2 hours a day") and not measured("call me at 555.123.4567")
    from enforcers.query_rewrite.repair import repair

    assert repair("45 yo male ) c/o cough. Which fits? A) gout B) flu") == "45 yo male c/o cough. Which fits? A) gout B) flu"
    assert repair("Which fits? i) gout; ii) flu; iv) asthma").endswith(") gout; ii) flu; iv) asthma")


def test_a_span_dropped_with_its_sentence_is_reported_removed_not_generalized() -> None:
    from click_cli import cli

    question = "My name is Dana Whitfield and I'm going through a divorce. Which side effects of metformin should I watch for?"
    data = json.loads(CliRunner().invoke(cli, ["rewrite", str(ROOT / "policies" / "clinic"), question, "-f", "json"]).output)
    assert "Dana" not in data["after"] and "divorce" not in data["after"] and "someone" not in data["after"]
    outcomes = {span["attribute"]: span["outcome"] for span in data["decision"]["spans"]}
    assert outcomes["name"] == "removed" and outcomes["relationship_status"] == "removed", outcomes


@pytest.mark.xfail(strict=True, reason="issue 30 classes 4 and 6, still a leak: the CAPID-fitted necessity model scores a relative's disclosure as needed for a recommendation it has no bearing on (CAPID's questions are personal advice, so its labels rarely show an unrelated disclosure)")
def test_a_dictated_query_is_split_at_its_spoken_fillers(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.sentence_starts import parse

    query = "could you recommend a few board games for a family night um my brother-in-law is on probation you know my neighbour just got a python like i play the cello every night"
    sentences = [s.text for s in parse(query).sents]
    assert sentences[0] == "could you recommend a few board games for a family night", sentences
    assert any(s.startswith("um my brother-in-law") for s in sentences) and any(s.startswith("like i play the cello") for s in sentences), sentences
    out = rewriter.rewrite(query).text
    assert "probation" not in out and "python" not in out and "cello" not in out and "board games for a family night" in out
    # "like" and "you know" stay ordinary words where the word before makes them so, or no clause follows
    assert len(list(parse("do you know my dentist would like a card that looks like my old drawings").sents)) == 1


@pytest.mark.xfail(strict=True, reason="issue 30 class 4, still a leak: the run-on clause after the filler 'like' is judged needed by the CAPID-fitted necessity model, so the belief disclosure stays")
def test_a_detected_span_never_runs_into_the_next_unit(rewriter: QueryRewriter) -> None:
    query = "uh i am allergic to shellfish like i go to a Catholic church every Sunday so what should I pack for a beach picnic"
    result = rewriter.rewrite(query)
    assert "shellfish" in result.text and "Catholic" not in result.text and "beach picnic" in result.text
    kept = [result.decisions[i].span.value(query) for i in range(len(result.decisions)) if result.decisions[i].essential]
    assert all("like" not in value for value in kept), kept


def test_clauses_after_semicolons_are_units_and_a_date_ends_its_sentence() -> None:
    from enforcers.query_rewrite.sentence_starts import parse

    sentences = [s.text.strip() for s in parse("Quelques infos : I sell insurance ; my niece is on Adderall ; I just turned 40. Give me ideas for a quiz night ?").sents]
    assert any(s.startswith("my niece is on Adderall") for s in sentences), sentences
    dated = [s.text.strip() for s in parse("My landlord's birthday is on March 4. Please shorten this: 'we are closed today'").sents]
    assert dated[-1].startswith("Please shorten this"), dated
    numbered = [s.text.strip() for s in parse("Which is it? 1. flu 2. gout 3. mumps").sents]
    assert numbered == ["Which is it? 1. flu 2. gout 3. mumps"], numbered  # the options belong to their question, as "(i) ... (ii) ..." do


def test_a_person_named_by_trade_or_role_is_a_third_party(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.subjects import subject_of

    for text in ("The plumber next door is Jehovah's Witness", "our babysitter is on lithium", "my dentist's receptionist is bipolar"):
        assert subject_of(text, len(text) - 6, len(text)) == "third_party", text
    for text in ("I work as a night nurse", "I am a cashier"):  # what the user is, not someone else
        assert subject_of(text, len(text) - 6, len(text)) == "self", text
    from enforcers.query_rewrite.subjects import focal_subject

    request = "What should I ask my dermatologist's nurse and my doctor about this rash?"
    assert focal_subject(request, 0, len(request)) == "self"  # the people who serve the request are not whom it is about
    out = rewriter.rewrite("I am vegetarian. The mailman is vegan. Which recipes should I try for a weeknight dinner?").text
    assert "vegetarian" in out and "vegan" not in out


def test_option_labels_after_a_question_keep_their_case(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.repair import repair

    assert repair("Which is it?  i) gout; ii) flu") == "Which is it? i) gout; ii) flu"
    assert repair("Which is it? (b) gout (c) flu") == "Which is it? (b) gout (c) flu"
    out = rewriter.rewrite("Re: Walter Brennan. He loves fly fishing. Which diagnosis fits? i) gout; ii) asthma; iii) sepsis; iv) flu").text
    assert "Brennan" not in out and "fishing" not in out and "? i) gout; ii) asthma" in out


def test_a_hospital_record_number_is_an_identifier_and_goes(rewriter: QueryRewriter) -> None:
    query = (
        "Ward round: 58 F (MRN 40291837) with crushing chest pain and sweating, troponin 2.1 ng/mL\n"
        "PMH: asthma, hospital number 7710 2934\n"
        "Most likely dx? 1. myocardial infarction 2. gout 3. asthma"
    )
    out = rewriter.rewrite(query).text
    assert "40291837" not in out and "7710 2934" not in out
    assert "58 F" in out and "asthma" in out and "troponin 2.1 ng/mL" in out and "1. myocardial infarction 2. gout" in out


def test_a_value_re_detected_across_a_joined_line_break_is_no_new_content(rewriter: QueryRewriter) -> None:
    query = (
        "Dear Dr Okafor,\n"
        "Thank you for seeing this 47-year-old woman, admitted with palpitations and muscle weakness. Bloods showed potassium 6.9 mmol/L.\n"
        "Family history of early heart disease. Regular medication: spironolactone.\n"
        "On the ward she was knitting a scarf for her grandson Theo.\n"
        "Which diagnosis explains this? i) hyperkalaemia; ii) gout; iii) asthma; iv) anaemia"
    )
    out = rewriter.rewrite(query).text  # joining the lines must not read as a new "L. Family history ..." disclosure
    assert "Family history of early heart disease" in out and "potassium 6.9 mmol/L" in out and "Theo" not in out


def test_an_unpunctuated_text_message_is_split_into_its_statements(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = "hey my landlord plays the bagpipes also i do aqua aerobics bc my aunt is a Mormon can u pls write a Python function that sorts a list of dates i am a Capricorn"
    sentences = [s.text for s in parse(query).sents]
    assert any(s.startswith("also i do aqua aerobics") for s in sentences) and any(s.startswith("bc my aunt is a Mormon") for s in sentences), sentences
    assert request_text(parse(query)) == "can u pls write a Python function that sorts a list of dates", sentences
    out = rewriter.rewrite(query).text
    for gone in ("bagpipes", "aqua aerobics", "Mormon", "Capricorn"):
        assert gone not in out, out
    assert "write a Python function that sorts a list of dates" in out and not out.rstrip().endswith(("bc", "also")), out
    # a relative clause, a purpose clause and quoted material are no statements of their own
    for whole in ("can u pls write a prompt i can give a chatbot for my garden", "pls fix this: 'me and him was late and she were angry'"):
        assert len(list(parse(whole).sents)) == 1, [s.text for s in parse(whole).sents]


@pytest.mark.xfail(strict=True, reason="issue 30 classes 4 and 6, still a leak: a relative's belief in a pasted chat turn is scored needed by the CAPID-fitted necessity model for a naming task it has no bearing on")
def test_a_pasted_chat_takes_the_request_from_the_users_turn_and_drops_emptied_turns_whole(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_sentences
    from enforcers.query_rewrite.sentence_starts import parse

    query = (
        "[09:12] Agent: Hello, what can I help you with today?\n"
        "[09:13] me: My downstairs neighbour is going through a bankruptcy\n"
        "[09:14] me: My brother-in-law is a Scientologist\n"
        "[09:15] me: Suggest a name for a hiking club?\n"
        "[09:16] Agent: Sure, give me a second."
    )
    requests = [s.text.strip() for s in request_sentences(parse(query))]
    assert requests == ["[09:15] me: Suggest a name for a hiking club?"], requests  # the agent's question is not the user's request
    out = rewriter.rewrite(query).text
    assert "bankruptcy" not in out and "Scientologist" not in out and "hiking club" in out, out
    assert "[09:13]" not in out and "[09:14]" not in out, out  # no timestamp is left without its turn


def test_bracketed_and_dashed_asides_are_units_dropped_whole(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.sentence_starts import parse

    query = "I tutor maths on weekends (my cousin is a Jehovah's Witness) - my flatmate sells timeshares - (I am on sertraline). Anyway, could you draft a packing list for a ski trip?"
    sentences = [s.text for s in parse(query).sents]
    assert "(my cousin is a Jehovah's Witness)" in sentences and any(s.startswith("- my flatmate sells timeshares") for s in sentences), sentences
    out = rewriter.rewrite(query).text
    assert "Witness" not in out and "timeshares" not in out and "sertraline" not in out and "packing list for a ski trip" in out, out
    assert "(" not in out and " - " not in out, out  # no orphaned bracket or dash is left behind
    # a dash inside an unfinished clause is an aside in it, not a boundary
    assert len(list(parse("My grandfather - he is 91 - has gout").sents)) == 1


def test_a_cousins_divorce_is_not_needed_for_a_limerick_about_a_coworker(rewriter: QueryRewriter) -> None:
    assert "divorced" not in rewriter.rewrite("yo My cousin is divorced. Anyway, could you write a limerick about my coworker Priya?").text


def test_a_span_re_detected_across_a_cut_is_no_new_content_and_the_query_is_not_refused(rewriter: QueryRewriter) -> None:
    greeting = rewriter.rewrite("yo My cousin is divorced. Anyway, could you write a limerick about my coworker Priya?")
    assert "limerick about my coworker [PERSON_1]" in greeting.text and greeting.placeholders == {"[PERSON_1]": "Priya"}  # "Yo Anyway" is no new name
    run_on = rewriter.rewrite("hiya i get treated for OCD also my aunt's SSN is 512-44-9031 can u pls suggest some ideas for a stressful week?")
    assert "512-44-9031" not in run_on.text and "ideas for a stressful week" in run_on.text
    # a word the query never held is still new content
    assert rewriter.failure("Hiya, my SSN is 123-45-6789", "Hiya, can you help?", [], []) == "a sensitive value appears that the query did not hold"


def test_addressing_the_assistant_is_no_occupation(policy: Policy) -> None:
    detector = AttributeDetector(Analyzer(policy), builtin_vocabulary())
    for query in ("dear assistant describe my aunt Mirela as a pirate queen", "hi chatbot write a sea shanty about my uncle Bram"):
        assert not [s.value(query) for s in detector.find(query) if s.attribute == "employment"]
    assert [s.value("My brother is a dental assistant.") for s in detector.find("My brother is a dental assistant.") if s.attribute == "employment"]


def test_a_person_named_through_another_is_the_possessed_person() -> None:
    from enforcers.query_rewrite.subjects import subject_of

    def about(text: str) -> str:
        return subject_of(text, len(text) - 5, len(text))

    assert about("My niece's piano teacher is a Rastafarian") == "third_party"
    assert about("My roommate's mother has lupus") == "third_party"
    assert about("My aunt's husband had a stroke") == "family"
    assert about("My husband's passport number is X1234567") == "family"  # a thing, not a person, is possessed


def test_a_texted_lower_case_i_is_the_user_but_an_option_label_is_not() -> None:
    from enforcers.query_rewrite.subjects import mentions, subject_of

    text = "write a toast for my uncle Jorge uh i am Maltese by background"
    assert subject_of(text, text.index("i am"), len(text)) == "self"
    assert all(kind != "self" for _, kind in mentions("Which fits? i) gout ii) lupus", 30))


def test_a_courtesy_closer_is_no_request_and_kindly_opens_one(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = "Dear team,\nMy brother-in-law is a Jain.\nKindly draft a packing list for a week of hill trekking.\nPlease revert at the earliest. Thanking you."
    assert request_text(parse(query)).startswith("Kindly draft a packing list"), request_text(parse(query))
    out = rewriter.rewrite(query).text
    assert "packing list for a week of hill trekking" in out and "Jain" not in out, out
    # "like" before a clause that ends on its verb compares, it is no filler
    assert len(list(parse("could you advise me on talking to my team like a mentor would?").sents)) == 1


def test_a_handle_the_request_is_put_to_is_no_person_and_an_eponym_is_no_name(policy: Policy) -> None:
    detector = AttributeDetector(Analyzer(policy), builtin_vocabulary())
    names = lambda q: [s.value(q) for s in detector.find(q) if s.attribute == "name"]  # noqa: E731
    assert names("hey @wordsmith_ai can you fix the commas in my essay?") == []
    assert names("My neighbour has Hashimoto's disease.") == []
    assert names("Could you write a poem for my neighbour Hashimoto?") == ["Hashimoto"]


def test_a_line_left_without_words_goes_with_its_markers(rewriter: QueryRewriter) -> None:
    query = "Long story, bear with me (1/3)\nMy landlord is a Scientologist. (2/3)\n@AskBot could you recommend a beginner sourdough recipe? #LifeUpdate (3/3)"
    out = rewriter.rewrite(query).text
    assert "Scientologist" not in out and "sourdough recipe" in out, out
    assert "(2/3)" not in out and "(3/3)" in out, out


def test_a_labelled_or_addressed_request_is_found_and_hashtags_are_no_names(rewriter: QueryRewriter, policy: Policy) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    labelled = "Long week. My flatmate is a Rosicrucian. I work nights at a bakery.\nTL;DR: suggest a few board games for two players"
    assert request_text(parse(labelled)).startswith("TL;DR: suggest a few board games"), request_text(parse(labelled))
    assert "Rosicrucian" not in rewriter.rewrite(labelled).text
    addressed = "My uncle is a Rosicrucian. (1/2)\n@PaperBot please write a regex that matches dates! (2/2)"
    assert request_text(parse(addressed)).startswith("@PaperBot please write a regex"), request_text(parse(addressed))
    detector = AttributeDetector(Analyzer(policy), builtin_vocabulary())
    tagged = "I practise yoga daily. #SundayReset #Maureen"
    assert not [s for s in detector.find(tagged) if s.attribute == "name"]


@pytest.mark.xfail(strict=True, reason="issue 30 classes 1 and 3, still wrong: the presented patient is read as a third party the request is not about, so her findings (the context the diagnosis stands on) are dropped")
def test_a_diagnosis_asked_about_a_presented_patient_keeps_the_patients_findings(rewriter: QueryRewriter) -> None:
    query = (
        "Practising my case presentation for tomorrow's ward round:\n"
        "This is Odile Marchetti, a 47-year-old female presenting with fever and a stiff neck, which started yesterday.\n"
        "In terms of past history, she has asthma.\nSocially, she plays the accordion in a folk band.\n"
        "If the consultant asks for my leading diagnosis, which should I give? (i) meningitis (ii) gout (iii) migraine (iv) appendicitis"
    )
    out = rewriter.rewrite(query).text
    for finding in ("47-year-old female", "fever and a stiff neck", "asthma", "(i) meningitis"):
        assert finding in out, out
    assert "Odile" not in out and "accordion" not in out, out


def test_questions_the_message_answers_itself_are_no_request() -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = (
        "Q: Who is writing?\nA: A night-shift baker who has had psoriasis since school.\n"
        "Q: What's going on?\nA: My cousin Teodor owes the bank a small fortune.\n"
        "Q: And the favour?\nA: Simply this - sketch a weekly menu for a family of four on a budget."
    )
    assert request_text(parse(query)).endswith("sketch a weekly menu for a family of four on a budget.")


def test_a_question_of_function_words_leaves_the_task_to_the_sentence_that_names_it(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = "Dear helpdesk,\nMy flatmate Lorcan has been in rehab for gambling.\nWhat should I do about it all? I was hoping you could recommend three board games for a rainy weekend.\n- Soggy in Sligo"
    assert request_text(parse(query)).startswith("I was hoping you could recommend three board games")
    result = rewriter.rewrite(query)
    assert "gambling" not in result.text and "Lorcan" not in result.text
    assert "recommend three board games for a rainy weekend" in result.text


def test_a_postscript_with_no_request_before_it_is_the_request() -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    letter = "Hello from the coast!\nI have honestly been shattered lately.\nMy landlord is on dialysis now.\nLove to all.\nPS - could you list five easy houseplants for a dark flat?"
    assert request_text(parse(letter)) == "PS - could you list five easy houseplants for a dark flat?"
    second = "Could you list five easy houseplants for a dark flat? P.S. what is the capital of Chile?"
    assert request_text(parse(second)) == "Could you list five easy houseplants for a dark flat?"


def test_answer_options_are_the_requests_material_and_name_a_diagnosis(rewriter: QueryRewriter) -> None:
    query = (
        "Voicemail from my 71-year-old uncle Desmond: for two days he's had a pounding headache and jaw pain when chewing, "
        "and the surgery rang to say his ESR came back at 96. He keeps racing pigeons and lives on Quarry Lane. "
        "Which of these do you think it is? (i) temporal arteritis (ii) migraine (iii) sinusitis (iv) tension headache"
    )
    result = rewriter.rewrite(query)
    for finding in ("pounding headache", "jaw pain when chewing", "ESR came back at 96", "71-year-old"):
        assert finding in result.text, result.text
    assert "(i) temporal arteritis (ii) migraine (iii) sinusitis (iv) tension headache" in result.text
    assert "Desmond" not in result.text and "Quarry Lane" not in result.text


@pytest.mark.xfail(strict=True, reason="issue 30 class 4, still a leak: the side sentence after the answer options is scored needed by the CAPID-fitted necessity model for a geography question")
def test_a_disclosure_after_the_last_answer_option_is_still_removed(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite("Which river is longest? 1) Thames 2) Nile 3) Rhine 4) Danube Just so you know, I am in recovery from bulimia.")
    assert "bulimia" not in result.text
    assert "Which river is longest? 1) Thames 2) Nile 3) Rhine 4) Danube" in result.text


def test_a_person_named_by_role_discloses_no_occupation(rewriter: QueryRewriter) -> None:
    query = (
        "My daughter is 9 and since Friday she has had a barking cough and a hoarse voice. "
        "The school nurse phoned about her: stridor when she cries. What's the most likely diagnosis?"
    )
    result = rewriter.rewrite(query)
    assert "stridor when she cries" in result.text, result.text
    assert not any(d.span.attribute == "employment" for d in result.decisions)


def test_lines_stay_lines_and_a_heading_left_without_its_section_goes(rewriter: QueryRewriter) -> None:
    query = (
        "# Before you answer\n## Background\nMy cousin Brendan is on methadone.\n### Where I live\nI live at 14 Ferry Road.\n"
        "## The ask\nCould you write a one-page checklist for repotting a cactus?"
    )
    result = rewriter.rewrite(query)
    assert result.text.splitlines()[-2:] == ["## The ask", "Could you write a one-page checklist for repotting a cactus?"], result.text
    assert "methadone" not in result.text and "Ferry Road" not in result.text
    assert "Where I live" not in result.text  # its section lost its only line


def test_a_removed_value_inside_a_longer_kept_word_does_not_refuse_the_query(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite("My nephew turns six on Fri 6 Mar. Can you summarise the plot of Hamlet in two sentences?")
    assert result.text == "Can you summarise the plot of Hamlet in two sentences?", result.text


@pytest.mark.xfail(strict=True, reason="issue 30 classes 4 and 6, still a leak: a sister's medication is scored needed by the CAPID-fitted necessity model for a film-night theme")
def test_a_capitalized_word_naming_a_kind_of_thing_is_no_person(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite("I only watch Tamil action films and my sister is on Zoloft. Could you suggest a film night theme for my birthday?")
    assert "Tamil action films" in result.text and "someone" not in result.text, result.text
    assert "Zoloft" not in result.text
    assert "films. Could you" in result.text  # the cut clause's full stop still ends the sentence


def test_a_field_label_in_markdown_emphasis_still_opens_the_request(rewriter: QueryRewriter) -> None:
    query = (
        "**Background:** My stepdad Oswin has gout.\n**Request:** Translate 'where is the ferry terminal' into Greek.\n"
        "**Expected:** short and plain, nothing fancy.\n**Priority:** low"
    )
    result = rewriter.rewrite(query)
    assert "Translate 'where is the ferry terminal' into Greek." in result.text, result.text
    assert "gout" not in result.text and "Oswin" not in result.text


def test_a_whole_clause_the_parse_hangs_on_the_root_is_dropped_not_generalized(rewriter: QueryRewriter) -> None:
    query = "Could you explain the basics of a spring cleaning plan? A few facts first: I cook arepas whenever possible; my lodger reacts badly to celery."
    result = rewriter.rewrite(query)
    assert "celery" not in result.text and "an allergy" not in result.text, result.text
    assert not any(d.span.attribute == "employment" for d in result.decisions)  # "I cook" is no occupation


def test_an_account_or_membership_number_goes_with_its_cue_words(rewriter: QueryRewriter) -> None:
    query = "Club member, membership no. 5529031, age 61, collapsed with crushing chest pain at practice. What is the most likely diagnosis?"
    result = rewriter.rewrite(query)
    assert "5529031" not in result.text and "membership" not in result.text, result.text
    assert "crushing chest pain" in result.text and "61" in result.text


def test_a_question_putting_a_name_to_it_asks_for_a_diagnosis(rewriter: QueryRewriter) -> None:
    query = (
        "My daughter is 11 and since the weekend she has had nosebleeds that will not stop.\n"
        "She bruises easily, and there is von Willebrand disease on her dad's side. She collects vintage stamps.\n"
        "Is it leukaemia, a bleeding disorder or just the heat?"
    )
    result = rewriter.rewrite(query)
    for finding in ("nosebleeds that will not stop", "bruises easily", "von Willebrand disease"):
        assert finding in result.text, result.text
    assert "stamps" not in result.text


def test_a_cut_statements_full_stop_replaces_the_comma_left_hanging() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "She is 11, bruises easily, and there is von Willebrand disease on her dad's side.\nIs it leukaemia or the heat?"
    start = text.index("there is")
    assert edit(text, [Edit(start, text.index(" side.") + 5)], []).splitlines()[0] == "She is 11, bruises easily."


@pytest.mark.parametrize(
    ("text", "value", "kept", "expected"),
    [
        ("I faced a bankruptcy filing in 2019 and emerged stronger.", "2019", "bankruptcy filing", "I faced a bankruptcy filing and emerged stronger."),
        ("I'm HIV positive and get my care at Mercy Clinic.", "Mercy Clinic", "HIV positive", "I'm HIV positive and get my care."),
        ("I'm happily married to Dana and love my job as a nurse.", "Dana", "married", "I'm happily married and love my job as a nurse."),
        ("At 35, I'm proud of what I have built as a welder.", "35", "welder", "I'm proud of what I have built as a welder."),
        ("At 64 years old, I live on a pension as a retired welder.", "64 years old", "welder", "I live on a pension as a retired welder."),
        ("I had an abortion two years ago and never told anyone.", "two years", "abortion", "I had an abortion and never told anyone."),
        ("I moved to Canada six months ago for a job as a welder.", "six months", "welder", "I moved to Canada for a job as a welder."),
    ],
)
def test_a_removed_name_date_or_measure_takes_the_word_it_completes(text: str, value: str, kept: str, expected: str) -> None:
    """A preposition's lone object takes the preposition, an adverb's lone measure the adverb ("I had an abortion ago." was
    left; class 3)."""
    from enforcers.query_rewrite.cuts import Edit, edit

    question = " What should I do next?"
    start, keep = text.index(value), text.index(kept)
    out = edit(text + question, [Edit(start, start + len(value), tight=True)], [(keep, keep + len(kept))])
    assert out == expected + question


def test_an_object_the_parse_detached_from_its_preposition_takes_its_clause() -> None:
    """"I pull in | SAR 12,500/month": the parse leaves "in" with no object; without the amount the clause says nothing, so
    it goes whole, not as "I pull in I actually know ..." (class 3)."""
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "I pull in SAR 12,500/month, and unlike most people, I actually know how to manage my finances. Should I change jobs?"
    amount, kept = text.index("12,500"), text.index("I actually")
    out = edit(text, [Edit(amount, amount + 6, tight=True)], [(kept, text.index(" Should"))])
    assert out == "Unlike most people, I actually know how to manage my finances. Should I change jobs?", out


@pytest.mark.parametrize(
    ("cut", "original", "expected"),
    [
        ("I ended up as a advocate at my hospital.", "I ended up as a patient advocate at my hospital.", "I ended up as an advocate at my hospital."),
        ("I married an woman from Haifa.", "I married an Israeli woman from Haifa.", "I married a woman from Haifa."),
        ("I'm a one-off case, an hour late for an MRI.", "I'm a rare one-off case, an entire hour late for an urgent MRI.", "I'm a one-off case, an hour late for an MRI."),
    ],
)
def test_an_article_agrees_with_the_word_a_cut_brings_next_to_it(cut: str, original: str, expected: str) -> None:
    """"a patient advocate" without "patient" reads "an advocate" (class 3); what the writer wrote, and a word whose first
    letter does not settle its sound, stay as written."""
    from enforcers.query_rewrite.repair import repair

    assert repair(cut, original) == expected


def test_a_generic_phrase_with_its_own_article_replaces_the_determiner_and_modifiers_too() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "I've got an adult daughter who moved to Leeds for work. Should I retire at 60?"
    start, kept = text.index("daughter"), text.index("Leeds")
    out = edit(text, [Edit(start, start + 8, "a family member", tight=True)], [(kept, kept + 5)])
    assert out == "I've got a family member who moved to Leeds for work. Should I retire at 60?", out


def test_a_generic_phrase_leaves_its_article_to_a_noun_phrase_that_keeps_its_own() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    # a kept modifier holds the determiner in place: "an undocumented a person" read two articles (the protective
    # rewrite generalizes every span in place)
    text = "I'm an undocumented immigrant working nights in a warehouse. Can my landlord evict me without notice?"
    start, kept = text.index("immigrant"), text.index("undocumented")
    out = edit(text, [Edit(start, start + 9, "a person", tight=True)], [(kept, kept + 12)], protective=True)
    assert out.startswith("I'm an undocumented person working nights"), out


def test_an_occupation_said_of_a_person_generalizes_to_a_person(rewriter: QueryRewriter) -> None:
    # "a data analyst" generalized as the attribute's "a job" read "I'm a job in Leeds"
    out = rewriter.rewrite("At 41, I'm a data analyst in Leeds, married with two kids. Should I ask for a raise this year?").text
    assert "a job" not in out and "data analyst" not in out, out
    assert out.endswith("Should I ask for a raise this year?"), out


def test_a_generalized_amount_reads_as_an_amount_and_takes_its_currency_sign() -> None:
    # read "take home £a financial matter a month": the attribute's phrase names no amount and the sign stayed
    rules = [NecessityRule(task="personal_advice", non_essential=["financial_situation"], action="generalize")]
    policy = _policy(rules=rules, default_task="personal_advice", min_confidence=1.0)
    out = QueryRewriter(policy, Analyzer(policy)).rewrite("Can I rent alone in Leeds if I take home £2,300 a month?").text
    assert out == "Can I rent alone in Leeds if I take home a certain amount a month?", out


@pytest.mark.parametrize(
    ("text", "value", "attribute", "source", "phrase"),
    [
        ("I've got an adult daughter who calls me daily.", "adult daughter", "relationship_status", "unit", "a family member"),
        ("I'm happily married and live in Leeds.", "married", "relationship_status", "term", "a personal relationship"),
        ("At 41, I'm a data analyst in Leeds.", "data analyst", "employment", "detect:occupation", "a professional"),
        ("I take home £2,300 a month.", "2,300", "financial_situation", "detect:financial_amount", "a certain amount"),
        ("I've been sober for 18 months after years of drinking.", "18 months", "age", "unit", "some time"),
        ("My son is 18 months and has a fever.", "18 months", "age", "unit", "a certain age"),
        ("My physical therapist advised me to rest.", "physical therapist", "physical_health", "unit", "a professional"),
        ("I'm a nurse who happens to live with schizophrenia.", "nurse", "mental_health", "unit", "a professional"),
    ],
)
def test_a_generic_phrase_names_a_person_an_amount_or_a_time_where_the_span_does(text: str, value: str, attribute: str, source: str, phrase: str) -> None:
    from enforcers.query_rewrite.generic import generic_phrase
    from enforcers.query_rewrite.spans import AttributeSpan

    start = text.index(value)
    assert generic_phrase(AttributeSpan(attribute, "", start, start + len(value), source=source), text) == phrase


def test_a_clause_left_with_no_complement_goes_whole() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "Look, I'm a teacher in Leeds, and yes, I'm bisexual, so I worry. What should I tell my principal?"
    start, kept = text.index("bisexual"), text.index("teacher")
    out = edit(text, [Edit(start, start + 8, tight=True)], [(kept, kept + 7)])
    assert "bisexual" not in out and "I'm," not in out and "I'm so" not in out, out
    assert out.startswith("Look, I'm a teacher in Leeds") and out.endswith("What should I tell my principal?"), out


@pytest.mark.parametrize(
    ("text", "cut", "kept", "expected"),
    [
        # a copula left with no complement goes with it, up to the clause conjoined after it
        ("I'm Jewish, and my partner's family is Hindu, so holidays get complicated. How do we plan December?", "Jewish", "Hindu",
         "My partner's family is Hindu, so holidays get complicated. How do we plan December?"),
        # the clause conjoined after it takes the cut clause's place, after the writer's dash
        ("Honesty matters to me – I'm Catholic, and I never lie to my friends. How do I turn down a job offer politely?", "Catholic", "never lie",
         "Honesty matters to me – I never lie to my friends. How do I turn down a job offer politely?"),
        # the copula keeps its next complement, without the comma the cut left after it
        ("Look, I'm 41 years old, a single father working nights at a warehouse. How can I sleep better during the day?", "41 years old", "single father",
         "Look, I'm a single father working nights at a warehouse. How can I sleep better during the day?"),
        # unchanged: a comma the writer put after the verb, a clause with a complement left, a conjoined clause kept
        ("There I am, 62 years old, pushing papers in a bank. How do I change careers?", "62 years old", "pushing papers",
         "There I am pushing papers in a bank. How do I change careers?"),
        ("I have diabetes and my son has asthma. What snacks can we share on a hike?", "diabetes", "asthma",
         "My son has asthma. What snacks can we share on a hike?"),
        ("My husband is diabetic, and I'm vegan, so dinners are tricky. Any recipe ideas?", "diabetic", "vegan",
         "I'm vegan, so dinners are tricky. Any recipe ideas?"),
        # a predicate conjoined after it that shares its subject takes the verb's place
        ("My sister is 34 and was just diagnosed with lupus. What jobs are easier on the joints?", "34", "lupus",
         "My sister was just diagnosed with lupus. What jobs are easier on the joints?"),
    ],
)
def test_a_verb_left_with_no_complement_leaves_no_comma_or_copula_behind(text: str, cut: str, kept: str, expected: str) -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    start, keep = text.index(cut), text.index(kept)
    assert edit(text, [Edit(start, start + len(cut))], [(keep, keep + len(kept))]) == expected


def test_a_sentence_dropped_whole_leaves_no_full_stop_behind() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "I work as a janitor in Cedar Rapids, and I take pride in my work. As an American, I love fireworks. What should I bring to a July picnic?"
    pride, american, kept = text.index("I take pride"), text.index("American"), text.index("janitor")
    out = edit(text, [Edit(pride, text.index("my work") + 7), Edit(american, american + 8)], [(kept, kept + 7)])
    assert out == "I work as a janitor in Cedar Rapids. What should I bring to a July picnic?"


@pytest.mark.xfail(strict=True, reason="issue 30 item 3, still wrong: the splitter starts a statement at 'I' after a noun even in a punctuated sentence ('I figured out | I'm bisexual, which ...'), so 'I figured out.' is left; not making that split where the writer punctuates (stop 53, R5) made the generator-trained task classifier misread one development request and lose a needed span")
def test_a_context_sentence_left_as_a_fragment_goes_whole() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "I figured out I'm bisexual, which has been an adventure. I teach maths at a high school. How do I plan a lesson on probability?"
    start, kept = text.index("bisexual"), text.index("teach maths")
    out = edit(text, [Edit(start, start + 8)], [(kept, kept + 11)])
    assert out == "I teach maths at a high school. How do I plan a lesson on probability?"


def test_a_word_after_a_cut_keeps_its_space_from_a_placeholder_token() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "I'm a teacher living in Makati City, and yes, I'm bisexual – figured I should say so. What should I tell my principal?"
    place, start, kept = text.index("Makati City"), text.index("bisexual"), text.index("teacher")
    out = edit(text, [Edit(place, place + 11, "[PLACE_1]", in_place=True), Edit(start, start + 8, tight=True)], [(kept, kept + 7)])
    assert "[PLACE_1] figured" in out and "bisexual" not in out, out


def test_a_value_that_goes_goes_everywhere_and_a_shouted_line_label_is_no_name(rewriter: QueryRewriter) -> None:
    query = (
        "Title: quick one\nA regular at my cafe named Wendy still smokes kretek cigarettes.\n"
        "EDIT: Wendy says she will quit.\nEDIT 2: can you summarise how the stock market works in simple terms?"
    )
    result = rewriter.rewrite(query)
    assert "Wendy" not in result.text and "kretek" not in result.text, result.text
    assert "EDIT 2: can you summarise how the stock market works in simple terms?" in result.text
    assert not any(d.span.attribute == "name" and d.span.value(query) == "EDIT" for d in result.decisions)


def test_a_shouted_label_opens_no_request_and_an_occupation_modifying_a_noun_is_none(rewriter: QueryRewriter) -> None:
    from enforcers.query_rewrite.request_roles import request_text
    from enforcers.query_rewrite.sentence_starts import parse

    query = (
        "Title: advice wanted\nI am paying off a student loan in default.\n"
        "EDIT: forgot to mention that my benefits card number is 31-7730218-4.\n"
        "So asking you here: could you make this sound more polite: 'send me the rota now'"
    )
    assert not request_text(parse(query)).startswith("EDIT"), request_text(parse(query))
    result = rewriter.rewrite(query)
    assert "31-7730218-4" not in result.text, result.text
    assert not any(d.span.attribute == "employment" for d in result.decisions)


def test_a_needed_span_inside_a_removed_clause_goes_with_it_unless_the_owner_keeps_it() -> None:
    """Who decided is a field of the decision, not read from its reason text: a model-kept span inside a removed clause
    leaves with the clause, a policy-kept one stays, whatever its basis says."""
    from enforcers.query_rewrite.necessity import Decision, with_containers
    from enforcers.query_rewrite.settings import NecessityAction
    from enforcers.query_rewrite.spans import AttributeSpan

    clause = Decision(AttributeSpan("employment", "work", 0, 40), False, NecessityAction.REMOVE, "the question does not need it", origin="model")
    inner = AttributeSpan("address", "location", 10, 17)
    by_model = Decision(inner, True, NecessityAction.REMOVE, "the question needs it", origin="model", probability=0.8)
    by_owner = Decision(inner, True, NecessityAction.REMOVE, "kept for the clinic", origin="policy")
    assert [d.essential for d in with_containers([clause, by_model])] == [False, False]
    assert with_containers([clause, by_model])[1] == Decision(inner, False, NecessityAction.REMOVE, "goes with the clause that holds it", probability=0.8)
    assert [d.essential for d in with_containers([clause, by_owner])] == [False, True]


@pytest.mark.xfail(strict=True, reason="issue 30 classes 2 and 8, still wrong: the parser ends a sentence after 'Can a single mom' (no punctuation there), so the request's opening is cut as a context unit and verification forwards 'Like me get help with daycare costs in Ohio?'")
def test_a_request_the_parser_splits_keeps_its_opening_under_a_generalize_rule() -> None:
    rules = [NecessityRule(task="personal_advice", non_essential=["relationship_status"], action="generalize")]
    policy = _policy(rules=rules, default_task="personal_advice", min_confidence=1.0)
    out = QueryRewriter(policy, Analyzer(policy)).rewrite("Can a single mom like me get help with daycare costs in Ohio?").text
    assert out.startswith("Can ") and out.endswith("get help with daycare costs in Ohio?"), out


def test_a_labelled_clause_is_never_replaced_by_a_generic_phrase() -> None:
    """Class 5: a clause the tagger labelled is a statement, not a value; where it must go from a line that stays (it holds
    a needed value), its own words go, and no "a habit" or "a job" stands in for it."""
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "Experience: Transcriptionist/Team Leader/Night Shift Supervisor · Proficient in Word and Excel. Make this sound better."
    start, kept = text.index("Team Leader"), text.index("Transcriptionist")
    clause = Edit(start, start + len("Team Leader/Night Shift Supervisor"), "a job", tight=True, clause=True)
    out = edit(text, [clause], [(kept, kept + len("Transcriptionist"))])
    assert "a job" not in out and "Team Leader" not in out and "Transcriptionist" in out and "Proficient in Word" in out, out


def test_a_clause_that_opened_its_sentence_takes_its_comma() -> None:
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "Nothing beats painting on a Sunday. I keep a strict vegan diet, a 58-year-old with stage 3 cancer. Should I appeal the insurance denial?"
    start, kept = text.index("I keep"), text.index("58-year-old")
    out = edit(text, [Edit(start, start + len("I keep a strict vegan diet"), "a particular diet", tight=True, clause=True)], [(kept, text.index("cancer") + 6)])
    assert "diet" not in out and "Sunday. A 58-year-old with stage 3 cancer." in out, out


def test_the_subject_before_a_bracketed_aside_is_not_dropped_as_a_sentence() -> None:
    """Class 3: an aside is a unit of its own, so the parse cuts "My son" off as a sentence; it is a piece of the statement
    that goes on after the aside and keeps a needed value, so it is edited as part of it, never dropped whole."""
    from enforcers.query_rewrite.cuts import Edit, edit

    text = "My son (he's 7) has been wetting the bed again since his dad moved out. Is this a sign of stress?"
    start, kept = text.index("My son"), text.index("has been")
    out = edit(text, [Edit(start, start + len("My son"), "a family member", tight=True)], [(kept, text.index(" out.") + 4)])
    assert not out.startswith("(") and "has been wetting the bed" in out, out
