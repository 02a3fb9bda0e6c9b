"""A question the user asks of themselves inside the disclosure is context, not the request (issue 30, class 2).

"My salary? Barely enough for rent." asks nothing of the assistant: taken for a request, its details count as asked
(forwarded whatever the question needs) and a cut of the sentence refuses the whole query.  The real question stays a
request, and so does every genuine question of a query that asks several.  Queries written for these tests.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.request_roles import request_sentences
from enforcers.query_rewrite.sentence_starts import parse


def _requests(query: str) -> list[str]:
    return [s.text.strip() for s in request_sentences(parse(query))]


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        (
            "Honestly, who has time for breakfast? I'm a night-shift nurse with type 1 diabetes and my sugar crashes at 4am. "
            "What snack should I eat before my shift?",
            "What snack should I eat before my shift?",
        ),
        (
            "My salary? Barely enough for rent in Leeds. I work as a hospital porter. Can I deduct my uniform costs from my taxes?",
            "Can I deduct my uniform costs from my taxes?",
        ),
        (
            "I'm 44, divorced, and raising twins on my own. And the weekends? Pure chaos. Which budgeting app works best for a single parent?",
            "Which budgeting app works best for a single parent?",
        ),
    ],
)
def test_a_question_of_the_disclosure_is_no_request(query: str, asked: str) -> None:
    assert _requests(query) == [asked]


def test_every_genuine_question_of_a_query_stays_a_request() -> None:
    query = "I take warfarin after a valve replacement. Is ibuprofen safe with it? How long should I wait between doses of paracetamol?"
    assert _requests(query) == ["Is ibuprofen safe with it?", "How long should I wait between doses of paracetamol?"]


def test_a_lone_question_is_the_request() -> None:
    assert _requests("Why does my cat sneeze every morning?") == ["Why does my cat sneeze every morning?"]
