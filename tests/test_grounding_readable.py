"""Plain answers a reader can read: lead-ins dropped, structured passages quoted as sentences of their values.

Hand-written cases (issue 35, item 1), written before the rules: a lead-in
sentence states no fact; a quotation of a JSON, table or ``Key: value``
passage reads as text; the bench's independent judge shares no code with the
enforcer it scores.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from enforcers.grounding.enforcer import GroundingEnforcer
from enforcers.grounding.quoting import LABEL
from enforcers.grounding.readable import readable_sentences
from enforcers.grounding.support import ground
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.llm.prompts import ANSWER_SYSTEM
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings

ROOT = Path(__file__).resolve().parents[1]
NOTE = "Mrs [PATIENT_NAME_1] was started on lisinopril 10 mg once daily for high blood pressure. She is to return to the clinic in four weeks."
QUESTION = "Which medication was started for high blood pressure?"

#: A tool result as an agent sees it: keys, ids, escapes, redacted values (hand-written).
MESSAGES = """{
  "messages": [
    {"message_id": "msg_001", "sender_id": "[CONTACT_1]", "time": "in 2022",
     "message": "Hi Tom,\\n\\nThe pharmacy confirmed that the lisinopril refill is ready for collection on Friday.\\n\\nBest,\\nAnna"},
    {"message_id": "msg_002", "sender_id": "[CONTACT_2]", "time": "in 2022",
     "message": "The garden club meets in the library hall next Tuesday evening."}
  ]
}"""
#: The same record after a redactor broke its syntax (an unescaped quote in a value).
BROKEN = '{"title": "Refill notice", "content": "The lisinopril refill for "[PATIENT_NAME_1]" is ready at the pharmacy counter.", "id": "77"}'
TABLE = """| drug | dose | frequency |
|---|---|---|
| lisinopril | 10 mg | once daily |
| aspirin | 75 mg | |"""
KEY_VALUES = "Name: [PATIENT_NAME_1]\nMedication: lisinopril 10 mg\nReview: in four weeks"


@pytest.fixture(scope="module")
def enforcer() -> GroundingEnforcer:
    return GroundingEnforcer(load_embedder(EmbeddingSettings()))


def _context(answer: str, *passages: str, query: str = QUESTION) -> EnforcementContext:
    return EnforcementContext(passages=tuple(Passage.of(f"p#{i}", text) for i, text in enumerate(passages or (NOTE,))), constraints=(), query=query, answer=answer)


@pytest.mark.parametrize("lead_in", ["Here is my response:", "Here are the medications that she was started on:", "The clinic note says the following:", "Dear Mrs [PATIENT_NAME_1],"])
def test_a_lead_in_states_no_fact_and_is_dropped(enforcer: GroundingEnforcer, lead_in: str) -> None:
    (judged,) = ground(lead_in, [NOTE, QUESTION], enforcer.embedder, ANSWER_SYSTEM).sentences
    assert not judged.informative
    out = enforcer.apply(_context(f"{lead_in}\n\nShe was started on lisinopril 10 mg once daily."))
    assert out.answer == "She was started on lisinopril 10 mg once daily."
    assert "dropped 1 sentence(s) that state no fact" in out.notes[-1]


@pytest.mark.parametrize("answer", ["One medication was started: lisinopril 10 mg once daily.", "Lisinopril, once daily, for high blood pressure."])
def test_a_sentence_with_a_colon_or_comma_inside_still_states_its_fact(enforcer: GroundingEnforcer, answer: str) -> None:
    assert enforcer.apply(_context(answer)).answer == answer


def test_an_answer_of_only_a_lead_in_is_not_released_as_an_answer(enforcer: GroundingEnforcer) -> None:
    out = enforcer.apply(_context("Here is my response:"))
    assert out.answer is not None and out.answer.startswith(LABEL) and "lisinopril" in out.answer


def test_courtesies_are_dropped_beside_a_supported_fact(enforcer: GroundingEnforcer) -> None:
    assert enforcer.apply(_context("She was started on lisinopril. I hope this helps.")).answer == "She was started on lisinopril."


def test_json_is_read_as_the_sentences_of_its_values() -> None:
    read = readable_sentences(MESSAGES)
    assert "The pharmacy confirmed that the lisinopril refill is ready for collection on Friday." in read
    assert "The garden club meets in the library hall next Tuesday evening." in read
    assert not any(re.search(r'[{}"]|\\n|message_id|sender_id', s) for s in read), read


def test_json_a_redactor_broke_is_read_by_its_string_values() -> None:
    read = readable_sentences(BROKEN)
    assert "Refill notice" in read and not any(s.startswith(("title", "content", "{")) or '"id"' in s for s in read), read
    assert any("is ready at the pharmacy counter." in s for s in read)


def test_a_table_is_read_row_by_row_and_key_value_lines_line_by_line() -> None:
    assert readable_sentences(TABLE) == ["drug: lisinopril; dose: 10 mg; frequency: once daily.", "drug: aspirin; dose: 75 mg."]
    assert readable_sentences(KEY_VALUES) == ["Name: [PATIENT_NAME_1].", "Medication: lisinopril 10 mg.", "Review: in four weeks."]


def test_prose_is_split_as_before() -> None:
    assert readable_sentences(NOTE) == [NOTE.split(". ")[0] + ".", NOTE.split(". ")[1]]


def test_a_quotation_of_a_structured_passage_reads_as_text(enforcer: GroundingEnforcer) -> None:
    out = enforcer.apply(_context("The refill is dispensed by Walgreens in Ohio.", MESSAGES, query="Is the lisinopril refill ready?"))
    assert out.answer is not None and out.answer.startswith(LABEL)
    quoted = re.findall(r'"([^"]+)"', out.answer)
    assert "The pharmacy confirmed that the lisinopril refill is ready for collection on Friday." in quoted
    assert not re.search(r"[{}]|\\n|message_id", out.answer), out.answer


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return found | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}


def test_the_bench_judge_shares_no_code_with_the_enforcer_it_scores() -> None:
    seen: set[str] = set()
    todo = ["answers.judge"]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = ROOT / "bench" / (module.replace(".", "/") + ".py")
        if path.is_file():
            todo.extend(m for m in _imports(path) if m.startswith("answers."))
    everything = set().union(*(_imports(ROOT / "bench" / (m.replace(".", "/") + ".py")) for m in seen))
    assert seen >= {"answers.judge", "answers.cases"}
    assert not any(m.startswith("enforcers") for m in everything), sorted(everything)
