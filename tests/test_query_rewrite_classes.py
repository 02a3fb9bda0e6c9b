"""query_rewrite against the eight failure classes of issue 30, on queries written for these tests (no corpus needed).

Real spaCy, the real embedder, the shipped necessity model (fitted on CAPID's development part) and the engine.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from enforcers.query_rewrite.placeholders import Placeholders, token_type
from enforcers.query_rewrite.rewriter import QueryRefused, QueryRewriter
from enforcers.query_rewrite.settings import NecessityRule, NecessitySettings
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import restore_placeholders
from policy_engine.engine.runtime import Engine
from policy_engine.policy.model import Metadata, Policy
from tests.retrieval_support import RecordingRetriever

ROOT = Path(__file__).resolve().parents[1]
#: Class 1: the context a vague question stands on.
HIP = "My dad is 74 and had a hip replacement in March. Is it safe for him to fly long-haul next month?"
#: Class 2: the request names a health matter itself.
LITHIUM = "I work as a barista in Leeds. Can I drink coffee while taking lithium for bipolar disorder?"
#: Class 3: the duration the question turns on sits in the clause it needs.
COUGH = "I've had a dry cough for six weeks. Should I get a chest X-ray?"
#: Class 4: a bracketed aside and a postscript.
RUNNING = "What's a good beginner running plan for a 5k? (btw I'm getting divorced from my wife Carla.) P.S. I live on Harbour Street."
#: Class 5: material to proofread, a name repeated in it.
NOTE = "Please proofread this note: Hi Jorge, the invoice is attached and Jorge should sign it by Friday. Thanks, Mei"
#: Class 6: a belief the question is about.
FASTING = "I'm Muslim and I fast during Ramadan. What can I eat before dawn to keep my energy up?"
#: Class 7: a clause about e-mail is no e-mail address.
INBOX = "I have three children and an email inbox full of school newsletters. How do I set up filters so they go into one folder?"

#: An amount written without thousands separators, which the question turns on.
SAVINGS = "My savings account holds £126088 and I'm 58. Is that enough to retire early in the UK?"

#: A request naming an occupation, which the task classifier reads as a task needing no personal attribute.
CHOIR = "I'm a married woman and I sing with the Harbor Group on Sundays. Am I earning the same amount as an average choir director?"
#: An organization spaCy reads with its article ("the Green Group") where the recognizer reads it without.
VOLUNTEER = "As a divorced dad, I volunteer with the Green Group on weekends. Do I pay the same tax as a single person?"


@pytest.fixture(scope="module")
def policy() -> Policy:
    return Policy(metadata=Metadata(name="classes-test"))


@pytest.fixture(scope="module")
def rewriter(policy: Policy) -> QueryRewriter:
    return QueryRewriter(policy, Analyzer(policy))


def test_class_1_the_context_a_question_stands_on_is_kept(rewriter: QueryRewriter) -> None:
    out = rewriter.rewrite(HIP).text
    assert "hip replacement" in out and out.endswith("Is it safe for him to fly long-haul next month?"), out


def test_class_2_the_request_is_forwarded_whole_and_only_a_carried_name_changes(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(LITHIUM)
    assert "Can I drink coffee while taking lithium for bipolar disorder?" in result.text, result.text
    assert "Leeds" not in result.text and result.placeholders == {"[PLACE_1]": "Leeds"}


def test_class_2_what_the_request_names_stays_whatever_kind_of_task_it_is_classified(rewriter: QueryRewriter) -> None:
    # read as a task needing no personal attribute, the request's own occupation was generalized ("... as a job?") and
    # the query refused for a lost request
    result = rewriter.rewrite(CHOIR)
    assert result.text.endswith("Am I earning the same amount as an average choir director?"), result.text
    assert "married" not in result.text


def test_class_3_the_duration_stays_with_the_finding(rewriter: QueryRewriter) -> None:
    out = rewriter.rewrite(COUGH).text
    assert "dry cough for six weeks" in out and out.endswith("Should I get a chest X-ray?"), out


def test_class_4_an_aside_and_a_postscript_go_as_units(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(RUNNING)
    assert result.text == "What's a good beginner running plan for a 5k?", result.text


def test_class_5_material_gets_consistent_placeholders_restored_locally(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(NOTE)
    assert "Jorge" not in result.text and "Mei" not in result.text and "someone" not in result.text, result.text
    assert result.text.count("[PERSON_1]") == 2, result.text  # the same person is the same token
    assert "the invoice is attached" in result.text and "by Friday" in result.text
    assert restore_placeholders(result.text, result.placeholders) == NOTE
    outcomes = {s.outcome for s in result.section(NOTE).spans}
    assert outcomes == {"placeholder"} and "Jorge" not in result.section(NOTE).model_dump_json()


def test_class_6_a_sensitive_attribute_the_question_is_about_is_kept(rewriter: QueryRewriter) -> None:
    out = rewriter.rewrite(FASTING).text
    assert "Ramadan" in out and "before dawn" in out, out


def test_class_7_a_clause_about_email_is_no_address_and_is_kept_when_needed(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(INBOX)
    assert "email inbox" in result.text and "[EMAIL" not in result.text, result.text
    assert result.text.endswith("How do I set up filters so they go into one folder?")
    assert token_type("email", "tagger") is None and token_type("email", "detect:contact") == "EMAIL"


@pytest.mark.parametrize(
    ("query", "task", "company"),
    [
        ("Please revise my CV below: Led the sales team at Harbourline Logistics for six years and opened the Rotterdam office.", "text_editing", "Harbourline Logistics"),
        ("make this shorter: Our team at Brightwater Analytics spent the last quarter rebuilding the billing dashboard for the Oslo branch.", "text_editing", "Brightwater Analytics"),
    ],
)
def test_class_7_pasted_text_to_rework_is_read_as_an_edit_and_its_company_travels_as_a_placeholder(rewriter: QueryRewriter, query: str, task: str, company: str) -> None:
    """A short instruction before pasted text ("revise my CV below:", "make this shorter:") asks for an edit, as real
    users write it; the classifier read them as a comparison and a problem to solve, and the company went out raw."""
    result = rewriter.rewrite(query)
    assert result.task == task, result.task
    assert company not in result.text and "[ORG_1]" in result.text, result.text


def test_class_8_over_removal_is_caught_both_ways_and_refused_with_the_reason(rewriter: QueryRewriter, policy: Policy) -> None:
    result = rewriter.rewrite(COUGH)
    requests = [(COUGH.index("Should"), len(COUGH))]
    assert rewriter.failure(result.text, COUGH, result.decisions, requests) is None
    assert rewriter.failure("I've had a dry cough for six weeks.", COUGH, result.decisions, requests) == "the request was lost"
    essential = next(d for d in result.decisions if d.essential)
    lost = result.text.replace(essential.span.value(COUGH), "")
    assert rewriter.failure(lost, COUGH, result.decisions, requests) == "an essential value was lost"

    class _LosesTheRequest(QueryRewriter):
        def failure(self, text: str, original: str, decisions: object, requests: object) -> str | None:
            return "the request was lost"

    with pytest.raises(QueryRefused, match="the request was lost") as refused:
        _LosesTheRequest(policy, Analyzer(policy)).rewrite(COUGH)
    assert "cough" not in str(refused.value)


def test_an_amount_without_thousands_separators_is_one_value_kept_whole(rewriter: QueryRewriter) -> None:
    # read as "£126" plus a stray fragment, the kept value was no whole word of any rewrite and the query was refused
    out = rewriter.rewrite(SAVINGS).text
    assert "£126088" in out and out.endswith("Is that enough to retire early in the UK?"), out


def test_an_article_is_never_a_placeholder_of_its_own(rewriter: QueryRewriter) -> None:
    # the article left over from spaCy's ORG around the recognizer's organization was a value of its own, and its
    # placeholder took every "the" of the rewrite ("Do I pay [ORG_1] same tax ...")
    out = rewriter.rewrite(VOLUNTEER).text
    assert out.endswith("Do I pay the same tax as a single person?") and not re.search(r"\[ORG_\d+\] same", out), out


def test_placeholder_tokens_are_stable_per_value_and_typed() -> None:
    tokens = Placeholders()
    assert tokens.token("PERSON", "Ana Ruiz") == "[PERSON_1]" == tokens.token("PERSON", "ana  ruiz")
    assert tokens.token("PERSON", "Bo") == "[PERSON_2]" and tokens.token("ORG", "Acme") == "[ORG_1]"
    assert restore_placeholders("[PERSON_2] met [PERSON_1] at [ORG_1]; [PLACE_9] stays", tokens.mapping) == "Bo met Ana Ruiz at Acme; [PLACE_9] stays"


def test_the_engine_retrieves_with_the_values_and_records_only_the_tokens() -> None:
    rules = [NecessityRule(task="text_editing", essential=[], non_essential=["health"], action="remove")]
    base = Policy(metadata=Metadata(name="classes-engine"), necessity=NecessitySettings(rules=rules))
    policy = base.model_copy(update={"enforcement": base.enforcement.model_copy(update={"order": ["query_rewrite", "redaction"]})})
    retriever = RecordingRetriever()
    engine = Engine(policy, retriever=retriever)
    protected = engine.protect(NOTE)
    assert protected.query is not None and "[PERSON_1]" in protected.query and "Jorge" not in protected.query
    assert retriever.queries == [restore_placeholders(protected.query, protected.placeholders)] and "Jorge" in retriever.queries[0]
    recorded = json.dumps(protected.decision.model_dump(mode="json"))
    assert "Jorge" not in recorded and "Mei" not in recorded
    engine.close()


def test_no_scikit_learn_at_run_time() -> None:
    script = (
        "import sys\n"
        "from enforcers.query_rewrite.rewriter import rewrite_query\n"
        "from policy_engine.policy.model import Metadata, Policy\n"
        "rewrite_query('I have asthma. Which houseplants are safe for me?', Policy(metadata=Metadata(name='x')))\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'sklearn'], 'scikit-learn was imported'\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, timeout=600)


#: A cover letter only repeats the firm back; a recommendation reasons about the place it names.
COVER = "Write a cover letter for a risk analyst job at Hallbrook Bank."
ADVICE = "Which part of Manchester is best for a family with two small children?"
#: A kept clause holding a carried name, and a name written twice, once in the request.
MANAGER = "My manager Tobias Wrenfield books our team meetings at 7am and I am exhausted. How do I ask Tobias Wrenfield for later meetings?"


def test_a_name_a_composed_text_only_repeats_travels_as_a_placeholder(rewriter: QueryRewriter) -> None:
    out = rewriter.rewrite(COVER).text
    assert "Hallbrook" not in out and "cover letter for a risk analyst job at [ORG_1]" in out, out
    assert "Manchester" in rewriter.rewrite(ADVICE).text  # the answer reasons about the place: it stays


def test_a_carried_name_inside_a_kept_span_and_in_the_request_becomes_its_token(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(MANAGER)
    assert "Wrenfield" not in result.text and "7am" in result.text and "later meetings" in result.text, result.text
    assert list(result.placeholders.values()).count("Tobias Wrenfield") == 1 and result.text.count("[PERSON_1]") == 2, result.text


def test_a_contact_detail_the_owner_makes_essential_still_travels_as_its_token() -> None:
    """The owner's rule says a reminder needs the phone number; the remote model needs a stand-in, not the digits."""
    rules = [NecessityRule(task="communication_generation", essential=["name", "phone_number"], non_essential=["health"], action="remove")]
    policy = Policy(metadata=Metadata(name="essential-contact"), necessity=NecessitySettings(rules=rules, default_task="communication_generation", min_confidence=1.0))
    query = "Please text 617-253-1000 a reminder that the clinic moved the appointment to Tuesday."
    result = QueryRewriter(policy, Analyzer(policy)).rewrite(query)
    assert "617-253-1000" not in result.text and "[PHONE_1]" in result.text, result.text
    assert result.placeholders == {"[PHONE_1]": "617-253-1000"} and "reminder" in result.text


def test_a_name_the_sentence_splitter_breaks_after_its_title_leaves_whole(rewriter: QueryRewriter) -> None:
    """A name written right after a title's full stop ("mr.Kowalczyk") is read as a sentence end after "mr."; the name is
    one value, so the whole of it becomes the placeholder and no part of it is forwarded."""
    query = "Please write a polite email to my landlord explaining that I have tried to speak with mr.Kowalczyk about the broken heating since Monday."
    result = rewriter.rewrite(query)
    assert "Kowalczyk" not in result.text, result.text
    assert "broken heating" in result.text and "[PERSON_1]" in result.text, result.text


def test_a_title_before_a_name_ends_no_sentence(rewriter: QueryRewriter) -> None:
    """"dr.Okafor": the title's full stop is no sentence end, so "I could not reach dr" is no clause of its own that the
    placeholder then breaks (the query was refused); the name goes whole, the request stays."""
    query = "I could not reach dr.Okafor on the phone, my number is 555.301.2299. How do I complain to the clinic?"
    out = rewriter.rewrite(query).text
    assert "Okafor" not in out and "555.301.2299" not in out, out
    assert out.endswith("How do I complain to the clinic?"), out


@pytest.mark.xfail(strict=True, reason="issue 30 classes 2 and 7, still wrong: a carried name replaces every case-blind occurrence, so the detector's 'Order' of 'Market Order' turns the request's 'an order' into a placeholder; matching only name-shaped occurrences (stop 53, R6) let two development rewrites pass verification that then forwarded a value never proposed, so it is not shipped")
def test_a_carried_name_does_not_stand_for_the_common_word_written_in_lower_case(rewriter: QueryRewriter) -> None:
    """Class 2 and 7: title-case answer options read as names ("Market Order") must not turn the request's own noun into a
    placeholder ("places an [PERSON_2]"); the person named stays carried."""
    query = "If Dana places an order to buy 20 shares at $4.10 and the order is cancelled at once, what kind of order was it? Pick one: Limit Order, Market Order, Fill or Kill Order, Stop Order"
    out = rewriter.rewrite(query).text
    assert "Dana" not in out
    assert "places an order to buy 20 shares" in out and "the order is cancelled at once, what kind of order was it?" in out, out
