"""The problem a task-only question stands on stays with it (issue 30, class 1): "How do I fix it?" is no question
without what broke.  Values a task needs none of still go.

Real spaCy, the real embedder, the shipped tagger, task classifier and necessity model.  The queries were written
for these tests; none is taken from a corpus.
"""

from __future__ import annotations

import pytest

from enforcers.query_rewrite.rewriter import QueryRewriter
from policy_engine.detect.analyzer import Analyzer
from policy_engine.policy.model import Metadata, Policy


@pytest.fixture(scope="module")
def rewriter() -> QueryRewriter:
    policy = Policy(metadata=Metadata(name="task-context"))
    return QueryRewriter(policy, Analyzer(policy))


@pytest.mark.parametrize(("query", "problem"), [
    ("My laptop keeps freezing whenever I open a PDF. How do I fix it?", "freezing"),
    ("The spreadsheet for my shop's stock shows #REF errors after I delete a row. How do I stop that?", "#REF"),
])
def test_the_problem_a_question_stands_on_is_kept(rewriter: QueryRewriter, query: str, problem: str) -> None:
    text = rewriter.rewrite(query).text
    assert problem in text and text.endswith("?"), text


def test_personal_values_a_task_does_not_need_still_go(rewriter: QueryRewriter) -> None:
    text = rewriter.rewrite("I'm 52 and recently divorced from my wife Carla. Write a Python function that reverses a string.").text
    assert "52" not in text and "Carla" not in text and "reverses a string" in text, text
