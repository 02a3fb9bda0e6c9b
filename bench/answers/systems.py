"""The three answerers of the PrivacyLens bench, each timed per case.

* ``none``: no protection, the answer model over the raw observations (the
  same prompt and decoding as ``ask``; nothing redacted, no grounding check);
* ``ask``: :meth:`Engine.ask_passages` under the bench policy (redaction, then
  the answer model over the sanitized context, then ``grounding``, which
  quotes the most relevant context sentences when nothing the model wrote is
  supported: counted as ``quoted``);
* ``ask --dp``: the same engine with ``dp_decoding`` added, as the CLI's
  ``ask --dp`` builds it (PEARL writes the answer; ``grounding`` then checks it).

The engine's own ``grounding`` enforcer is wrapped by :class:`DraftRecorder`
so the bench can show which sentences it cut; the real enforcer decides.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from answers.cases import Case
from enforcers.grounding.support import ground
from policy_engine.engine.context_assembly import render_context
from policy_engine.engine.runtime import Engine
from policy_engine.llm.degeneration import DegenerateOutput
from policy_engine.llm.generation import answer_length, complete
from policy_engine.llm.prompts import ANSWER_SYSTEM, SanitizedContext, answer_prompt
from policy_engine.nlp.embedding import Embedder
from policy_engine.policy.model import Constraint


@dataclass
class DraftRecorder:
    """Wraps the engine's ``grounding`` enforcer: remembers the answer it was handed, the passages the answerer was
    given (sanitized, withheld ones left out) and its evidence (those passages and the request), then lets it decide."""

    inner: Any
    drafts: list[str | None] = field(default_factory=list)
    given: list[list[str]] = field(default_factory=list)
    evidence: list[list[str]] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def apply(self, context: Any) -> Any:
        self.drafts.append(context.answer)
        self.given.append([p.text for p in context.passages if not p.withheld])
        self.evidence.append([*self.given[-1], *([context.query] if context.query else [])])
        return self.inner.apply(context)


def recording(engine: Engine) -> DraftRecorder:
    """Put a :class:`DraftRecorder` in place of ``engine``'s grounding enforcer and return it."""
    recorder: DraftRecorder | None = None
    wrapped = []
    for enforcer in engine.pipeline.enforcers:
        if enforcer.name == "grounding":
            recorder = DraftRecorder(enforcer)
            wrapped.append(recorder)
        else:
            wrapped.append(enforcer)
    if recorder is None:
        raise RuntimeError("the engine runs no grounding enforcer")
    engine.pipeline.enforcers = tuple(wrapped)
    return recorder


@dataclass(frozen=True)
class Answered:
    """One system's answer to one case: the released text (None when withheld), why withheld, the grounding counts
    and the passages the answerer was ``given`` (raw for ``none``, sanitized for ``ask``)."""

    case: str
    system: str
    answer: str | None
    outcome: str
    refusal: str | None
    seconds: float
    sentences: int | None
    kept: int | None
    draft: str | None = None
    quoted: int = 0
    given: tuple[str, ...] = ()


def unprotected(engine: Engine, case: Case, embedder: Embedder) -> Answered:
    """The answer model over the raw observations (no redaction, no grounding); sentences counted as grounding would judge them."""
    started = time.perf_counter()
    prompt = answer_prompt(case.request, SanitizedContext(render_context(case.passages)))  # deliberately raw: the baseline
    try:
        text: str | None = complete(engine.model, prompt, answer_length(case.request))
        refusal = None
    except DegenerateOutput as exc:
        text, refusal = None, str(exc)
    seconds = time.perf_counter() - started
    judged = ground(text, [*case.observations, case.request], embedder, ANSWER_SYSTEM) if text else None
    sentences = len(judged.sentences) if judged else None
    kept = sentences - len(judged.cut) if judged and sentences is not None else None
    return Answered(case.name, "none", text, "answered" if text else "abstained", refusal, seconds, sentences, kept, given=case.observations)


def protected(
    engine: Engine, recorder: DraftRecorder, case: Case, system: str, principal: str | None = None, constraints: Sequence[Constraint] | None = None
) -> Answered:
    """``engine.ask_passages`` on the case (one decision record; ``constraints``: those applied instead of the policy's);
    the grounding counts from its record."""
    before = len(recorder.drafts)
    started = time.perf_counter()
    asked = engine.ask_passages(case.request, case.passages, constraints, principal=principal)
    seconds = time.perf_counter() - started
    section = asked.protected.decision.enforcement.get("grounding") or {}
    recorded = len(recorder.drafts) > before
    return Answered(
        case.name, system, asked.answer, asked.outcome.value, asked.refusal, seconds, section.get("sentences"), section.get("kept"),
        recorder.drafts[-1] if recorded else None, section.get("quoted", 0), tuple(recorder.given[-1]) if recorded else (),
    )
