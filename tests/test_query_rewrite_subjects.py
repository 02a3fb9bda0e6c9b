"""Whom a disclosure is about, when the user describes themselves through a noun phrase (issue 30, class 7).

"I, a 71-year-old woman, ..." or "I am a member of a choir who ..." name the user, not another person: the noun
phrase is the user's apposition or predicate, or the role the user speaks in ("As a retired nurse, I ..."); a person
noun phrase that is no such thing stays another person.  Queries written for these tests.

Before stop 48 the subject finder read "a woman", "a member", "a ... person" as another person wherever they stood,
and the engine's third-party default then removed the user's own details.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.subjects import subject_of


def _subject(text: str, value: str) -> str:
    start = text.index(value)
    return subject_of(text, start, start + len(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I, a 71-year-old woman, was just prescribed warfarin. Is it safe with ibuprofen?", "warfarin"),
        ("I am a member of a Baptist congregation who identifies as bisexual. May I lead the youth group?", "bisexual"),
        ("As a single man living with epilepsy, I worry about driving. Can I keep my licence?", "epilepsy"),
        ("I am a freelance person with a yearly income of $41,000. Which pension plan suits me?", "$41,000"),
        ("My physical therapist advised me to do my stretches at 7am and 9pm. Should I still do them on rest days?", "7am"),
        ("I have MS and ended up as a patient advocate at my local hospital. Should I mention my diagnosis?", "advocate"),
        ("As a single mother from Leeds, my budget is tight every month. How can I save on food?", "Leeds"),
    ],
)
def test_a_noun_phrase_that_describes_the_user_is_the_user(text: str, value: str) -> None:
    assert _subject(text, value) == "self"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I met a woman at the gym who has epilepsy. What should I do if she has a seizure?", "epilepsy"),
        ("My neighbour, a retired nurse, has dementia. How can I help her?", "dementia"),
        ("I asked a stranger who was diabetic for directions. Was that rude?", "diabetic"),
        ("As a woman from Lagos, my wife finds the winters here hard. How can I help her?", "Lagos"),
    ],
)
def test_another_person_stays_another_person(text: str, value: str) -> None:
    assert _subject(text, value) != "self"
