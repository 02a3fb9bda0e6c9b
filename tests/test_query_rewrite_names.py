"""Person names written in lower case or all caps, as people type them in chat, and words spaCy's NER wrongly takes for
names (real MiniLM, the shipped name model, the real rewriter).

The queries below were written for these tests, from the failure classes (PUPA TNB's undetected lower-case and
all-caps names; a language or an ordinary lower-case word hidden as [PERSON_n]), before the fixes; none is taken from
a corpus.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.rewriter import QueryRewriter
from policy_engine.detect.analyzer import Analyzer
from policy_engine.nlp.name_tagger import shared_name_tagger
from policy_engine.policy.model import Metadata, Policy


@pytest.fixture(scope="module")
def rewriter() -> QueryRewriter:
    policy = Policy(metadata=Metadata(name="names"))
    return QueryRewriter(policy, Analyzer(policy))


NAMED = [
    ("my sister jenna keeps borrowing my car without asking. how do i tell her to stop?", "jenna"),
    ("can you write a short birthday message for my friend carlos, he turns 30 next week", "carlos"),
    ("HELP my manager DEREK yelled at me in front of everyone again, what should i do", "DEREK"),
    ("i think priya from accounting is upset with me, how should i bring it up with her?", "priya"),
]
ORDINARY = [
    "i will mark the papers tomorrow, can you suggest a grading rubric for a 10th grade essay?",
    "the rose bush in my garden has black spots on the leaves, what should i spray it with?",
    "HOW DO I CHANGE THE OIL IN A 2015 HONDA CIVIC",
    "can you explain how a bill becomes law in the united states?",
    "what is the best way to grow basil and sage on a windowsill?",
]


@pytest.mark.parametrize(("query", "name"), NAMED)
def test_a_lower_case_or_all_caps_name_is_found(query: str, name: str) -> None:
    found = [query[s:e] for s, e in shared_name_tagger().names(query)]
    assert name in found


@pytest.mark.parametrize("query", ORDINARY)
def test_ordinary_words_are_not_taken_for_names(query: str) -> None:
    assert shared_name_tagger().names(query) == []


def test_the_rewrite_does_not_forward_a_lower_case_name(rewriter: QueryRewriter) -> None:
    result = rewriter.rewrite(NAMED[0][0])
    assert "jenna" not in result.text.lower()
    assert "car" in result.text


def test_a_span_read_in_the_question_context_depends_on_the_question() -> None:
    """The necessity model's contextual feature: the same span in the same sentence reads differently under two
    questions (attention conditions it on the question), and each row is a unit vector."""
    import numpy as np

    from enforcers.query_rewrite.need import span_in_question_context
    from enforcers.query_rewrite.task import EMBEDDING
    from policy_engine.nlp.embedding import load_embedder

    sentence, span = "I'm allergic to peanuts.", "allergic to peanuts"
    rows = span_in_question_context(load_embedder(EMBEDDING), ["What snacks should I pack?", "How do I rotate my tyres?"], [sentence] * 2, [span] * 2)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert 0.5 < float(rows[0] @ rows[1]) < 0.999


def test_the_tagger_scores_words_with_the_stored_weights() -> None:
    """The shared loader reads ``name_model.npz`` unchanged: each word's probability is the sigmoid of the stored
    coef and intercept over its feature, and the threshold is the stored one."""
    import numpy as np

    from policy_engine.nlp.name_tagger import MODEL, word_features

    tagger = shared_name_tagger()
    data = np.load(MODEL)
    query = NAMED[1][0]
    [(ranges, x)] = word_features(tagger.embedder, [query])
    expected = 1.0 / (1.0 + np.exp(-(x @ data["coef"].astype(np.float32) + float(data["intercept"]))))
    got = tagger.probabilities(query)
    assert [(s, e) for s, e, _ in got] == ranges
    assert np.allclose([p for _, _, p in got], expected, atol=1e-6)
    assert tagger.threshold == float(data["threshold"])


def test_a_name_past_the_encoders_cut_is_found() -> None:
    """A lower-case name after more than 256 tokens of ordinary chat is still read (the tagger windows long texts)."""
    filler = "we walked along the river and talked about the weather. " * 40
    query = filler + "can you write a short birthday message for my friend carlos, he turns 30 next week"
    found = [query[s:e] for s, e in shared_name_tagger().names(query)]
    assert "carlos" in found


@pytest.mark.xfail(strict=True, reason=(
    "issue 30 class 7: spaCy reads capitalised terms as persons; vetoing the words the name model reads as words "
    "(stop 61, R16b) hid 45 fewer non-names on WNUT-17/CAPID development texts for 1 name, but exposed values a false "
    "name had masked by accident (a country ending a street address, 'Indian Embassy', a URL): no ORG or place "
    "detector catches them once the name goes"
))
def test_capitalised_dictionary_words_the_name_model_reads_as_words_are_no_name(rewriter: QueryRewriter) -> None:
    """A capitalised term the detector takes for a person ("signs of Gender Dysphoria") is no name where the case-blind
    name model agrees its words are words and no name lexicon knows them: the condition stays in the rewrite, not a
    [PERSON_1] placeholder (issue 30, class 7)."""
    query = "I was told I show signs of Gender Dysphoria. Who can I talk to about it?"
    assert not [s for s in rewriter.spans(query)[2] if s.attribute == "name"]
    assert "[PERSON" not in rewriter.rewrite(query).text


def test_a_language_the_request_names_is_no_person(rewriter: QueryRewriter) -> None:
    """"Translate into French" keeps its target language (issue 30, class 2): a language's name the name model does
    not read as a person's is no name; the child's name in the material still leaves as a placeholder."""
    text = rewriter.rewrite("Translate into French: My son Leo (7) has a peanut allergy and must not eat the cake at the party.").text
    assert text.startswith("Translate into French:") and "Leo" not in text, text


def test_a_lower_case_verb_the_ner_calls_a_person_is_no_name(rewriter: QueryRewriter) -> None:
    """spaCy's NER reads "miss" in "I'll miss Thursday's standup" as a person; lower-case names are the case-blind name
    model's to find, and it reads the verb as a word (issue 30, class 7).  The names of the note still leave."""
    query = "Please proofread this: Hi Marek, my mum was admitted on Monday with pneumonia, so I'll miss Thursday's standup. Thanks, Olu"
    text = rewriter.rewrite(query).text
    assert "I'll miss Thursday's standup" in text and "Marek" not in text and "Olu" not in text, text


def test_lower_case_words_the_ner_calls_persons_stay_words(rewriter: QueryRewriter) -> None:
    """A list of ordinary lower-case words keeps them all: spaCy's NER calls "moon" and "jewel" persons here, and the
    case-blind name model, which finds lower-case names, reads them as words (issue 30, classes 5 and 7)."""
    query = "Sort these words alphabetically: kettle, moon, jewel, anchor, violin, lantern, harbor, velvet"
    assert rewriter.rewrite(query).text == query
    named = rewriter.rewrite("can you write a short birthday message for my friend carlos, he turns 30 next week").text
    assert "carlos" not in named
