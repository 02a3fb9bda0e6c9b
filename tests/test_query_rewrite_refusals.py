"""query_rewrite refuses only what cannot be forwarded safely: the two refusal classes of issue 30, the task
classifier's abstention, and verification's false alarms (a placeholder token read as a new value, a kept value split
inside a number, carried values overlapping a kept span), on queries written for these tests before the fixes (no
corpus needed).

Real spaCy, the real embedder, the shipped models.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.necessity import Decision
from enforcers.query_rewrite.rewriter import QueryRewriter
from enforcers.query_rewrite.settings import NecessityAction
from enforcers.query_rewrite.spans import AttributeSpan
from enforcers.query_rewrite.task import shared_classifier
from enforcers.query_rewrite.words import without
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.model import Metadata, Policy

#: "Request lost": the request is written in another language than the material it asks about.
SPANISH = (
    "Dear Mr. Okafor, thank you for the quote for the kitchen at 14 Elm Road. We accept it and will pay the deposit "
    "on Monday.\nPor favor, traduce este correo al español."
)
CHINESE = "Hi Wei, the shipment to our Shenzhen warehouse left on May 3 and Daniel Cho will call you tomorrow.\n请帮我把这段话改得更礼貌一些。"
GERMAN = "Bitte fasse diesen Text kurz zusammen: Our team lead Priya Raman moved the launch to June because the vendor in Leeds was late."
#: "Essential value lost": a number that is a fragment of another value ("500" of "$5,500").
AMOUNTS = "I take home $5,500 a month and my rent is $1,500. Can I afford a $500 monthly car payment?"
DOSE = "My doctor raised my metformin from 500 mg to 1500 mg last week. Is 1500 mg a day a normal dose?"
#: The demo's question: a medical question with no answer options.
DEMO = "My name is Dana Whitfield and I'm going through a divorce. I take metformin for my type 2 diabetes. Which side effects of metformin should I watch for?"


@pytest.fixture(scope="module")
def rewriter() -> QueryRewriter:
    policy = Policy(metadata=Metadata(name="refusals-test"))
    return QueryRewriter(policy, Analyzer(policy))


@pytest.mark.parametrize(("query", "asked"), [
    pytest.param(
        SPANISH, "Por favor, traduce este correo al español.",
        marks=pytest.mark.xfail(strict=True, reason="refusal class 'request lost', forwarded but the request is edited: the detector reads 'al español' as a place and, with no abstention and the CAPID-fitted necessity model, it travels as a placeholder inside the request"),
    ), pytest.param(
        CHINESE, "请帮我把这段话改得更礼貌一些。",
    ),
    pytest.param(
        GERMAN, "Bitte fasse diesen Text kurz zusammen",
        marks=pytest.mark.xfail(strict=True, reason="refusal class 'request lost', still refused without abstention: the request is found as the English clause, classified information retrieval (p 0.25), so the tagger's span holding the German instruction is dropped as a task needing no personal attribute"),
    ),
])
def test_a_request_in_another_language_than_its_material_is_forwarded_not_refused(rewriter: QueryRewriter, query: str, asked: str) -> None:
    result = rewriter.rewrite(query)
    assert asked in result.text, result.text
    for name in ("Okafor", "Daniel Cho", "Priya Raman"):
        assert name not in result.text
    for material in ("the kitchen", "the shipment", "the launch"):
        assert material not in query or material in result.text, result.text


#: Material written before its request, with no colon or line break after the request (issue 30 class 5).
MATERIAL_BEFORE = (
    "The pilot study enrolled 40 patients across three hospitals and found no serious adverse events; Dr. Helen Park "
    "led it. 请把这段话翻译成中文"
)


def test_the_material_of_a_rework_request_may_come_before_it(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(MATERIAL_BEFORE)
    assert result.text.endswith("请把这段话翻译成中文"), result.text
    for material in ("40 patients", "three hospitals", "no serious adverse events"):
        assert material in result.text, result.text
    assert "Helen Park" not in result.text


def test_a_full_width_colon_introduces_the_material(rewriter: QueryRewriter) -> None:
    query = "帮我润色一下：I have worked at Northwind Bank for six years. My manager Tom Reyes says I am ready for promotion. I am 41 and recently divorced."
    result = rewriter.rewrite(query)
    assert result.text.startswith("帮我润色一下："), result.text
    for material in ("for six years", "ready for promotion", "I am 41 and recently divorced"):
        assert material in result.text, result.text
    assert "Northwind" not in result.text and "Tom Reyes" not in result.text


@pytest.mark.parametrize(("query", "kept", "gone"), [
    # a request glued to a name by a full-width colon: the name's placeholder does not take the request with it
    ("翻译成英文：Zhang Wei,the new chairman of Harbor Bank,said rates will stay low this year.", "翻译成英文：", "Zhang Wei"),
    # ... and the English entity recognizer's name does not take the CJK request before it
    ("翻译成中文：Lena Fischer,the new head of Harbor Bank,said rates will stay low this year.", "翻译成中文：", "Lena Fischer"),
    # names inside a URL: each leaves as its token, the URL's other words stay
    ("Summarise the page https://example.com/stories/kitchen-remodel-for-maria-lopez-in-austin/ in two sentences.",
     "https://example.com/stories/kitchen-remodel-for-", "maria-lopez"),
])
def test_a_placeholder_takes_only_its_own_words_of_a_token(rewriter: QueryRewriter, query: str, kept: str, gone: str) -> None:
    result = rewriter.rewrite(query)
    assert kept in result.text and gone not in result.text, result.text


def test_a_one_word_sentence_the_query_wrote_is_no_cut_debris() -> None:
    """Repair drops what a cut leaves ("And."), not a short sentence the query wrote ("Why?") nor a CJK sentence."""
    from enforcers.query_rewrite.repair import repair

    original = "My manager moved my shifts again. Why? And I worked there for years.\n请帮我写一封邮件"
    assert repair("Why? And.\n请帮我写一封邮件", original) == "Why?\n请帮我写一封邮件"
    assert repair("My manager moved my shifts again. And.", original) == "My manager moved my shifts again."


@pytest.mark.parametrize(("query", "needed"), [(AMOUNTS, ("$5,500", "$1,500", "$500")), (DOSE, ("500 mg", "1500 mg", "metformin"))])
def test_a_value_that_is_a_fragment_of_another_does_not_refuse_the_query(rewriter: QueryRewriter, query: str, needed: tuple[str, ...]) -> None:
    result = rewriter.rewrite(query)
    for value in needed:
        assert value in result.text, result.text


ABSTAINED = pytest.mark.xfail(strict=True, reason="issue 30, withdrawn: the task classifier no longer abstains; with the CAPID-fitted necessity model an abstaining classifier (below 0.62) forwarded 155 of PUPA's 331 development units against 88 without it (diagnose.py, 118 development queries)")


@ABSTAINED
def test_the_task_classifier_abstains_on_a_question_with_no_answer_options() -> None:
    prediction = shared_classifier().predict("Which side effects of metformin should I watch for?")
    assert prediction.task != "multiple_choice_qa"
    assert prediction.task == "general" and 0.0 < prediction.kind_confidence <= 1.0


@ABSTAINED
def test_an_abstained_task_leaves_necessity_to_the_question(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(DEMO)
    assert result.task == "general" and result.task_source == "classifier"
    assert "metformin" in result.text and "type 2 diabetes" in result.text, result.text
    assert "Which side effects of metformin should I watch for?" in result.text
    assert "Dana Whitfield" not in result.text and "divorce" not in result.text


@pytest.mark.parametrize(("text", "value", "found"), [
    ("电话13800138000谢谢", "13800138000", True),  # a value beside characters of an unspaced script is still found
    ("请联系王伟医生", "王伟", True),
    ("Please summarise it", "mar", False),
    ("a dose of 5.15 mg", "5", False),
])
def test_verification_finds_a_value_as_whole_words_in_every_script(text: str, value: str, found: bool) -> None:
    """The check that no removed value survives a rewrite must not miss one written beside CJK text (fail closed)."""
    from enforcers.query_rewrite.words import contains

    assert contains(text, value) is found


#: "A sensitive value appears": a detector reads the inside of a placeholder token ("ORG_2" of "[ORG_2]") as a new name.
CV_SKILLS = (
    "Improve this CV section: Skills & abilities: Microsoft Excel, Bilingual in English and Polish. "
    "Diploma of Business, Holmesglen Institute, Melbourne 2019 - 2020."
)
#: "An essential value was lost": amounts written with three decimals, split by the detectors inside the number.
DIVIDENDS = "Check my numbers: we paid dividends of $12.500 in March and $8.250 in June, and the fund returned 4.125% for the year. Is the total right?"


def test_a_placeholder_token_in_the_rewrite_is_no_new_value(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(CV_SKILLS)
    assert "Holmesglen" not in result.text and "[ORG_" in result.text, result.text


def test_an_essential_value_forwarded_verbatim_is_not_lost(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(DIVIDENDS)
    for value in ("$12.500", "$8.250", "4.125%", "Is the total right?"):
        assert value in result.text, result.text


#: "An essential value was lost": carried values overlapping a kept span ("Keyword" and "Laguna Hills Keyword" both carried,
#: "Expert Avionique" kept inside the carried job title "Ingénieur - Expert Avionique").
KEYWORDS = "Write a post with these keywords. Keyword 1: Managed IT Services Laguna Hills Keyword 2: IT support Tustin"
JOB = "Écrivez une lettre de motivation pour le poste Ingénieur - Expert Avionique chez Safran Nacelles, s'il vous plaît."


def _decision(text: str, value: str, essential: bool, placeholder: str | None = None, after: int = 0) -> Decision:
    start = text.index(value, after)
    span = AttributeSpan("employment", "occupation", start, start + len(value), source="detect:employer" if placeholder else "")
    return Decision(span, essential, NecessityAction.REMOVE, "test", placeholder=placeholder)


def test_carried_values_are_taken_out_of_a_kept_span_longest_first(rewriter: QueryRewriter) -> None:
    """The longer carried value is taken out before a shorter one it holds, so neither is asked of the rewrite."""
    assert without("keyword 1: managed it services laguna hills keyword 2", ["keyword", "laguna hills keyword"]).split() == ["1:", "managed", "it", "services", "2"]
    kept = KEYWORDS[KEYWORDS.index("Keyword 1"):]
    decisions = [
        _decision(KEYWORDS, kept, True),
        _decision(KEYWORDS, "Keyword", False, "PERSON", after=KEYWORDS.index("Keyword 1")),
        _decision(KEYWORDS, "Laguna Hills Keyword", False, "PERSON"),
    ]
    rewrite = "Write a post with these keywords. [PERSON_1] 1: Managed IT Services [PERSON_2] 2: IT support Tustin"
    assert rewriter.failure(rewrite, KEYWORDS, decisions, []) is None


def test_a_kept_span_inside_a_carried_value_leaves_with_its_token(rewriter: QueryRewriter) -> None:
    decisions = [_decision(JOB, "Ingénieur - Expert Avionique", False, "ORG"), _decision(JOB, "Expert Avionique", True)]
    rewrite = "Écrivez une lettre de motivation pour le poste [ORG_1] chez Safran Nacelles, s'il vous plaît."
    assert rewriter.failure(rewrite, JOB, decisions, []) is None
    assert rewriter.failure("Écrivez une lettre de motivation, s'il vous plaît.", JOB, [_decision(JOB, "Expert Avionique", True)], []) == "an essential value was lost"


def test_a_new_name_that_is_part_of_a_queried_name_is_still_new(rewriter: QueryRewriter) -> None:
    """A detected value is new unless the query holds its whole words: "Anna" is not held by "Annabelle"."""
    query = "Please ask Annabelle to fix the grammar of this note: the meeting moves to Tuesday."
    assert rewriter.failure("Please ask Anna to fix the grammar of this note: the meeting moves to Tuesday.", query, [], []) == "a sensitive value appears that the query did not hold"
