"""Sentence stage: segmentation, private selection, keyword release, redact/refill."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from tiny_lm import build_tiny_model

from enforcers.dp_decoding.accounting import PrivacyAccountant
from enforcers.dp_decoding.keywords import candidate_keywords, document_votes, release_keywords
from enforcers.dp_decoding.partition import RetrievedDocument
from enforcers.dp_decoding.refill import SENTENCE_MASK, assemble, clean_refill
from enforcers.dp_decoding.sentences import (
    Sentence,
    SentenceSelection,
    refill_rather_than_empty,
    segment,
    select_private_topk,
    select_random,
    select_sparse_vector,
)
from policy_engine.llm.prompts import refill_prompt
from policy_engine.llm.runtime import load_model


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    return load_model(build_tiny_model(tmp_path_factory.mktemp("tiny-sent"))).tokenizer


def test_segment_attaches_every_token_cg_to_its_sentence(tokenizer):
    text = "the patient has fever . call the clinic soon . yes"
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    cgs = [float(i) for i in range(len(ids))]
    sentences = segment(tokenizer, ids, cgs)
    assert [s.text for s in sentences] == ["the patient has fever .", "call the clinic soon .", "yes"]
    assert [len(s.token_cgs) for s in sentences] == [5, 5, 1]
    assert sum((list(s.token_cgs) for s in sentences), []) == cgs


def test_scores_use_top5_mean_and_overall_mean():
    sentence = Sentence(0, "x", (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, -6.0))
    assert sentence.pii_score == pytest.approx(3.0)
    assert sentence.hallucination_score == pytest.approx(9.0 / 7)


SENTENCES = [
    Sentence(0, "grounded", (0.1, 0.2, 0.1)),
    Sentence(1, "regurgitated name", (0.2, 1.9, 1.8, 1.9)),
    Sentence(2, "neutral", (0.3, 0.3)),
    Sentence(3, "ungrounded", (-1.9, -1.8, -1.7)),
]


def test_private_topk_picks_pii_and_low_cg_sentences_at_high_epsilon():
    accountant = PrivacyAccountant(1e5, 1e-5)
    selection = select_private_topk(SENTENCES, 1, 1, 200.0, 2.0, 4, accountant, torch.Generator().manual_seed(0))
    assert selection == SentenceSelection((1,), (3,))
    assert accountant.applications == 2


def test_private_topk_is_noisy_at_low_epsilon():
    picks = Counter()
    for seed in range(200):
        selection = select_private_topk(
            SENTENCES, 1, 0, 0.05, 2.0, 4, PrivacyAccountant(1e5, 1e-5), torch.Generator().manual_seed(seed)
        )
        picks[selection.pii[0]] += 1
    assert len(picks) == 4 and max(picks.values()) < 100


def test_sparse_vector_reports_sentences_beyond_thresholds():
    accountant = PrivacyAccountant(1e5, 1e-5)
    selection = select_sparse_vector(
        SENTENCES, 1, 1, (1.0, -1.0), 200.0, 2.0, 4, accountant, torch.Generator().manual_seed(0)
    )
    assert selection == SentenceSelection((1,), (3,))
    assert accountant.applications == 2


def test_random_selection_is_disjoint_and_free():
    selection = select_random(SENTENCES, 1, 2, torch.Generator().manual_seed(1))
    assert len(selection.pii) == 1 and len(selection.hallucination) == 2
    assert not set(selection.pii) & set(selection.hallucination)


def test_assemble_redacts_pii_and_refills_masked_sentences():
    seen = []

    def refill(masked: str) -> str:
        seen.append(masked)
        return "A grounded replacement."

    text, replacements = assemble(SENTENCES, SentenceSelection((1,), (3,)), refill)
    assert text == "grounded neutral A grounded replacement."
    assert seen == [f"grounded neutral {SENTENCE_MASK}"]
    assert replacements == {3: "A grounded replacement."}
    assert assemble(SENTENCES, SentenceSelection((1,), (3,)), None)[0] == "grounded neutral"


DOCUMENTS = [
    RetrievedDocument("1", "Biopsy confirmed lymphoma. Patient Jane Doe."),
    RetrievedDocument("2", "An ultrasound and biopsy were ordered."),
    RetrievedDocument("3", "Biopsy results pending; ultrasound normal."),
]


def test_keyword_universe_is_public_text_only():
    universe = candidate_keywords(["Is a lump a sign of lymphoma? Maybe biopsy"], ["ultrasound"])
    assert universe == ["biopsy", "lump", "lymphoma", "maybe", "sign", "ultrasound"]
    assert "jane" not in universe  # a word found only in documents can never be released
    assert document_votes(DOCUMENTS, universe).tolist() == [3, 0, 1, 0, 0, 2]


def test_keyword_release_prefers_frequent_keywords_and_charges_each():
    universe = candidate_keywords(["lump lymphoma biopsy sign ultrasound maybe"])
    accountant = PrivacyAccountant(1e5, 1e-5)
    released = release_keywords(DOCUMENTS, universe, 2, 100.0, accountant, torch.Generator().manual_seed(0))
    assert released == ["biopsy", "ultrasound"]
    assert accountant.applications == 2


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("A biopsy gives the diagnosis. Then more text.", "A biopsy gives the diagnosis."),
        ("Draft: [SENT_MASK] Keywords: biopsy", ""),
        ("Keywords: lump, biopsy", ""),
        ("Yes.", ""),
        ("", ""),
    ],
)
def test_refill_output_is_cleaned(raw, expected):
    assert clean_refill(raw) == expected


def test_refill_prompt_holds_only_the_query_and_dp_outputs():
    prompt = refill_prompt("What did the patient take?", "The patient took a daily medication.", ["metformin", "dose"])
    assert prompt.purpose == "refill" and not prompt.holds_unfiltered_data and not prompt.violates_sanitization_principle
    user = prompt.messages[-1]["content"]
    assert user.splitlines() == ["Question: What did the patient take?", "Answer so far: The patient took a daily medication.",
                                 "Keywords: metformin, dose", "Next sentence:"]
    assert "Answer so far" not in refill_prompt("q?", "", []).text()  # nothing before the first mask


def test_a_selection_that_would_release_nothing_refills_instead():
    only_sentence_is_pii = SentenceSelection(pii=(0,), hallucination=())
    assert refill_rather_than_empty(only_sentence_is_pii, 1, 1) == SentenceSelection((), (0,))
    every_sentence_is_pii = SentenceSelection(pii=(0, 1), hallucination=())
    assert refill_rather_than_empty(every_sentence_is_pii, 2, 1) == SentenceSelection((1,), (0,))
    one_stands = SentenceSelection(pii=(0,), hallucination=())
    assert refill_rather_than_empty(one_stands, 2, 1) is one_stands
    already_refilling = SentenceSelection(pii=(0,), hallucination=(1,))
    assert refill_rather_than_empty(already_refilling, 2, 1) is already_refilling
    assert refill_rather_than_empty(only_sentence_is_pii, 1, 0) is only_sentence_is_pii  # no refill allowed: nothing released


def test_the_refill_of_a_removed_only_sentence_never_sees_it():
    sentences = [Sentence(0, "Jane Roe takes 20 mg of drug X.", (0.9,))]
    seen: list[str] = []
    text, _ = assemble(sentences, refill_rather_than_empty(SentenceSelection((0,), ()), 1, 1), lambda masked: seen.append(masked) or "A general answer.")
    assert text == "A general answer."
    assert seen == [SENTENCE_MASK]
