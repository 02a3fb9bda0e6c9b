"""The degeneration check: loops are cut at the last good sentence or refused, never returned."""

from __future__ import annotations

import pytest
from tiny_lm import build_tiny_model

from policy_engine.llm.degeneration import DegenerateOutput, check_output, guarded
from policy_engine.llm.generation import Decoding, complete, raw_completion
from policy_engine.llm.prompts import Prompt
from policy_engine.llm.runtime import load_model

LOOP = (
    "The patient with type 2 diabetes was prescribed a medication a prescribed dose with meals; "
    + "a prescribed dose a prescribed medication; " * 12
)


def test_clean_answer_passes_unchanged() -> None:
    text = "The patient was prescribed a prescribed medication at a prescribed dose. It is taken with meals."
    verdict = check_output(text)
    assert not verdict.degenerate and verdict.text == text


def test_loop_is_cut_at_last_good_sentence() -> None:
    verdict = check_output(LOOP)
    assert verdict.degenerate
    assert verdict.text == "The patient with type 2 diabetes was prescribed a medication a prescribed dose with meals."
    assert "recurs" in (verdict.reason or "") or "repeats" in (verdict.reason or "")


def test_repeated_sentence_is_cut() -> None:
    text = "Metformin was prescribed. The dose is a prescribed dose. The dose is a prescribed dose. The dose is a prescribed dose."
    assert check_output(text).text == "Metformin was prescribed. The dose is a prescribed dose."


def test_a_sentence_restating_an_earlier_one_in_other_words_is_cut() -> None:
    text = (
        "The resident was given a weekly pill organiser by the community nurse. "
        "The resident was given a pill organiser weekly by the community nurse and a leaflet. "
        "Adherence will be reviewed next month."
    )
    verdict = check_output(text)
    assert verdict.degenerate and "restates" in (verdict.reason or "")
    assert verdict.text == "The resident was given a weekly pill organiser by the community nurse."
    distinct = "The patient takes metformin 500 mg twice daily. The patient takes lisinopril 10 mg each morning."
    assert check_output(distinct).text == distinct


def test_loop_from_the_start_is_refused() -> None:
    text = "yes yes yes yes yes yes yes yes yes yes yes yes yes yes"
    verdict = check_output(text)
    assert verdict.refused and "loops" in (verdict.reason or "")
    with pytest.raises(DegenerateOutput):
        guarded(text)


def test_placeholders_may_repeat_without_a_loop() -> None:
    text = "[PATIENT_NAME_1] was seen on Monday. The nurse called [PATIENT_NAME_1] about the result."
    assert not check_output(text).degenerate


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return load_model(build_tiny_model(tmp_path_factory.mktemp("tiny-loop"), seed=0, init_std=0.02))  # greedy decoding of it loops


def _prompt() -> Prompt:
    return Prompt("answer", ({"role": "user", "content": "the patient has a fever"},), holds_query=True, holds_unfiltered_data=False)


def test_forced_loop_from_tiny_model_is_never_returned(tiny) -> None:
    """Plain greedy decoding of the random tiny model loops; the checked completion cuts or refuses it."""
    raw, _ = raw_completion(tiny, _prompt(), Decoding(max_new_tokens=120).unguarded())
    assert check_output(raw).degenerate, raw  # the forced loop is detected
    try:
        answer = complete(tiny, _prompt(), decoding=Decoding(max_new_tokens=120).unguarded())
    except DegenerateOutput:
        return
    assert answer != raw.strip() and not check_output(answer).degenerate


def test_loop_controls_change_greedy_output(tiny) -> None:
    """The generated-token penalty and n-gram ban act: the guarded decoding differs from plain greedy."""
    plain, _ = raw_completion(tiny, _prompt(), Decoding(max_new_tokens=60).unguarded())
    controlled, _ = raw_completion(tiny, _prompt(), Decoding(max_new_tokens=60, stop_strings=()))
    assert plain != controlled
    words = controlled.split()
    grams = [tuple(words[i : i + 16]) for i in range(len(words) - 15)]
    assert len(grams) == len(set(grams))


def test_a_sentence_cut_by_the_length_limit_is_dropped_unless_it_is_all_there_is():
    from policy_engine.llm.degeneration import without_cut_sentence

    assert without_cut_sentence("The dose was lowered. IgE is a type of immune response that") == "The dose was lowered."
    assert without_cut_sentence("The dose was lowered.") == "The dose was lowered."
    assert without_cut_sentence("an answer with no end mark") == "an answer with no end mark"


def test_a_list_marker_ends_no_sentence():
    """A numbered draft cut by the length limit released "1." alone: the marker's full stop is no sentence end."""
    from policy_engine.llm.degeneration import without_cut_sentence

    cut = "1. An ultrasound and a fine needle aspiration biopsy may be"
    assert without_cut_sentence(cut) == cut
    assert without_cut_sentence("1. An ultrasound is needed. 2. A biopsy of the") == "1. An ultrasound is needed."
