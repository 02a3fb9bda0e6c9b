"""Sentences that state nothing about the context: remarks between the answerer and the requester, and markup fragments.

Issue 35, item 2 (the plain-``ask`` misses by class, written before the rule):

* a remark the answerer ("I") addresses to the requester ("you") that names
  nothing from the context ("I'm here to help you with your health.", "I hope
  this message finds you well.") is about the conversation, not the documents:
  its nouns may all occur in the context, yet it states no fact of it;
* a verbless fragment of structured-data markup echoed from a tool result
  ('"content:" + {', '@family "content" :[') is not language and states nothing.

Both are *neutral* (dropped, never the support an answer is released on), and
a sentence of either shape that does name a context fact (a name, a number, a
placeholder) or states one with a verb is judged as before.  Real pipeline
(spaCy, the shared embedder).
"""

from __future__ import annotations

import pytest

from enforcers.grounding.support import ground
from policy_engine.llm.prompts import ANSWER_SYSTEM
from policy_engine.nlp.embedding import Embedder, load_embedder
from policy_engine.policy.model import EmbeddingSettings

CONTEXT = (
    '{"messages": [{"sender": "[NAME_1]", "content": "Our book club meets at the Grand Oak library on Friday. '
    'Your health and wellness matter to us, and this message is a reminder to bring the reading list."}]}'
)
QUESTION = "When does the book club meet? Please reply to my message."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_embedder(EmbeddingSettings())


def _judged(embedder: Embedder, sentence: str):  # type: ignore[no-untyped-def]
    (judged,) = ground(sentence, [CONTEXT, QUESTION], embedder, ANSWER_SYSTEM).sentences
    return judged


@pytest.mark.parametrize(
    "remark",
    [
        "I'm here to help you with your health and wellness.",
        "I hope this message finds you well.",
        "I am glad you asked about the book club.",
        "I will reply to your message about the reading list.",
    ],
)
def test_a_remark_between_answerer_and_requester_states_no_fact(embedder: Embedder, remark: str) -> None:
    assert not _judged(embedder, remark).informative


@pytest.mark.parametrize(
    "fact",
    [
        "I can tell you that the book club meets at the Grand Oak library on Friday.",  # names context facts
        "The book club meets at the library on Friday.",
        "You should bring the reading list to the library.",  # addressed to the requester, but no "I" remark
    ],
)
def test_a_sentence_naming_a_context_fact_is_still_informative(embedder: Embedder, fact: str) -> None:
    judged = _judged(embedder, fact)
    assert judged.informative and judged.supported


def test_an_invented_fact_in_a_remark_is_still_cut_when_it_names_something(embedder: Embedder) -> None:
    judged = _judged(embedder, "I can tell you that the club meets at the Boise Public Library in 2019.")
    assert not judged.supported


@pytest.mark.parametrize("fragment", ['"content:" + {', '@familyachievement @facebook.com/notion "content" :[', '{"title": "Book club",', "</div>"])
def test_a_verbless_markup_fragment_states_nothing(embedder: Embedder, fragment: str) -> None:
    assert not _judged(embedder, fragment).informative


def test_a_sentence_with_markup_and_a_verb_is_judged_as_before(embedder: Embedder) -> None:
    judged = _judged(embedder, '{"content": "Our book club meets at the Grand Oak library on Friday.')
    assert judged.informative and judged.supported


@pytest.mark.parametrize(
    "framed",
    ["I think you have diabetes.", "I can confirm that your landlord evicted you.", "I found that your tenant owes rent to you."],
)
def test_a_first_person_frame_around_an_invented_fact_is_cut_not_dropped(embedder: Embedder, framed: str) -> None:
    judged = _judged(embedder, framed)
    assert judged.checkable and not judged.supported


def test_a_first_person_frame_around_a_context_fact_is_kept(embedder: Embedder) -> None:
    judged = _judged(embedder, "I can confirm that your book club meets at the library.")
    assert judged.informative and judged.supported


@pytest.mark.parametrize("remark", ["I hope this message finds you well.", "I hope this helps you.", "I'm glad you asked."])
def test_a_frame_around_the_answer_itself_stays_a_remark(embedder: Embedder, remark: str) -> None:
    assert not _judged(embedder, remark).informative
