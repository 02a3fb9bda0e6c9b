"""Prompt builders that obey SD-RAG's prompt sanitization principle.

Principle (SD-RAG Section III-B): a prompt whose output reaches an untrusted
user must not contain both unfiltered data and the unfiltered user query.
The builders make that structural:

* :func:`paraphrase_prompt` (constraint application, Section III-C2) takes
  constraints and passage text and has **no parameter for a query**;
* :func:`answer_prompt` takes the query and a :class:`SanitizedContext`, a
  type only the runtime creates from the output of the enforcement pipeline,
  and refuses a plain string;
* :func:`refill_prompt` (PEARL's refill) takes the query with DP outputs
  only: the masked private draft and the privately released keywords;
* :func:`rewrite_prompt` (Need-to-Know query rewriting) takes a query that
  the deterministic rewriter already stripped of non-essential spans, and
  asks only for fluency; its output is verified like any rewrite;
* :func:`monolithic_prompt` is the baseline the paper compares against
  (constraints + unredacted context + query in one prompt, the "RCQA"
  prompt of its reference [11]); it exists for the benchmark only and is
  marked as violating the principle.

Every :class:`Prompt` says what it holds (``holds_query``,
``holds_unfiltered_data``) so callers and tests can check the principle on
the prompts actually built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from policy_engine.policy.model import Constraint

PromptPurpose = Literal["paraphrase", "answer", "refill", "monolithic", "rewrite"]


@dataclass(frozen=True)
class SanitizedContext:
    """Context text that has been through the enforcement pipeline (build only in the runtime)."""

    text: str


@dataclass(frozen=True)
class Prompt:
    """A chat prompt and what kinds of input it contains."""

    purpose: PromptPurpose
    messages: tuple[dict[str, str], ...]
    holds_query: bool
    holds_unfiltered_data: bool

    @property
    def violates_sanitization_principle(self) -> bool:
        return self.holds_query and self.holds_unfiltered_data

    def text(self) -> str:
        """All message contents joined (for inspection and tests)."""
        return "\n".join(m["content"] for m in self.messages)


def _constraint_list(constraints: Sequence[Constraint]) -> str:
    return "\n".join(f"- {c.statement}" for c in constraints)


_PARAPHRASE_SYSTEM = (
    "You rewrite text so that it follows privacy constraints. Keep every fact the constraints "
    "do not protect. Replace protected details with general descriptions (a role instead of a "
    "name, a month instead of a date, a range instead of a number). Output only the rewritten text."
)
_PARAPHRASE_EXAMPLE = (
    "Constraints:\n- Hide the names of patients\n- Do not reveal exact dates\n\n"
    "Text:\nJohn Carter was admitted on 3 May 2021 with chest pain.",
    "The patient was admitted in May 2021 with chest pain.",
)


def paraphrase_prompt(constraints: Sequence[Constraint], text: str) -> Prompt:
    """Few-shot prompt rewriting ``text`` under ``constraints`` (periphrastic redaction, Eq. 7).

    Takes no query by design: its input is retrieved data only.
    """
    example_in, example_out = _PARAPHRASE_EXAMPLE
    messages = (
        {"role": "system", "content": _PARAPHRASE_SYSTEM},
        {"role": "user", "content": example_in},
        {"role": "assistant", "content": example_out},
        {"role": "user", "content": f"Constraints:\n{_constraint_list(constraints)}\n\nText:\n{text}"},
    )
    return Prompt("paraphrase", messages, holds_query=False, holds_unfiltered_data=True)


ANSWER_SYSTEM = (
    "Answer the question in one to three sentences, using only the context. Some details of the "
    "context were withheld on purpose. A bracketed placeholder such as [PATIENT_NAME_1] stands for "
    "one withheld value (the same placeholder is the same value): write it exactly as it is. "
    "General phrases such as 'a prescribed dose', 'the patient' or 'in her forties' replace exact "
    "values: repeat them as they are. Never guess or invent a withheld value. If the context does "
    "not hold the answer, say so."
)


def answer_prompt(query: str, context: SanitizedContext) -> Prompt:
    """The question-answering prompt: the query plus context that was already sanitized."""
    if not isinstance(context, SanitizedContext):
        raise TypeError("answer_prompt needs a SanitizedContext from the enforcement pipeline, not raw text")
    messages = (
        {"role": "system", "content": ANSWER_SYSTEM},
        {"role": "user", "content": f"Context:\n{context.text}\n\nQuestion: {query}"},
    )
    return Prompt("answer", messages, holds_query=True, holds_unfiltered_data=False)


_REWRITE_SYSTEM = (
    "Rewrite the user's request so it reads naturally as one clear request. Keep every detail it contains; "
    "do not add any personal detail, name, number, condition or preference that is not in it. Reply with the request only."
)


def rewrite_prompt(stripped_query: str) -> Prompt:
    """Fluency pass over a query whose non-essential spans are already gone (Need-to-Know Section 4.1)."""
    messages = ({"role": "system", "content": _REWRITE_SYSTEM}, {"role": "user", "content": stripped_query})
    return Prompt("rewrite", messages, holds_query=True, holds_unfiltered_data=False)


_REFILL_SYSTEM = (
    "Write one short sentence that continues the answer to the question, using the keywords. "
    "Do not include names, dates, numbers or contact details."
)


def refill_prompt(query: str, draft_before_mask: str, keywords: Sequence[str]) -> Prompt:
    """PEARL's refill prompt (Algorithm 1, lines 19-28): the query, the DP draft up to the mask, the DP keywords.

    Both the draft and the keywords are outputs of DP mechanisms, so the
    prompt holds no unfiltered data and the refill is post-processing.
    """
    lines = [f"Question: {query}"]
    if draft_before_mask:
        lines.append(f"Answer so far: {draft_before_mask}")
    if keywords:
        lines.append(f"Keywords: {', '.join(keywords)}")
    lines.append("Next sentence:")
    messages = ({"role": "system", "content": _REFILL_SYSTEM}, {"role": "user", "content": "\n".join(lines)})
    return Prompt("refill", messages, holds_query=True, holds_unfiltered_data=False)


def monolithic_prompt(constraints: Sequence[Constraint], context: str, query: str) -> Prompt:
    """The paper's baseline: constraints, unredacted context and the query in one prompt.

    Violates the sanitization principle on purpose; used by ``bench/rcqa`` to
    measure what an injected model leaks under this design.
    """
    messages = (
        {
            "role": "system",
            "content": "Answer the question from the context while obeying these constraints:\n" + _constraint_list(constraints),
        },
        {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {query}"},
    )
    return Prompt("monolithic", messages, holds_query=True, holds_unfiltered_data=True)
