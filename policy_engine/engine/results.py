"""What the engine returns per request: :class:`ProtectResult` and :class:`AskResult`.

Results serialize themselves (:meth:`ProtectResult.to_dict`,
:meth:`AskResult.to_dict`), so the CLI and any service print the same shape.
Redactions are :class:`audit.records.Redaction` values, the type the decision
record stores: offsets into the original chunks, the replacement and the
redaction mode, never the raw value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from audit.records import ConstraintOutcome, DecisionRecord, Outcome, PrivacySpend, Redaction
from policy_engine.llm.prompts import SanitizedContext

__all__ = ["AskResult", "ProtectResult", "SanitizedChunk"]


@dataclass(frozen=True)
class SanitizedChunk:
    """One retrieved chunk after enforcement."""

    chunk_id: str
    text: str
    withheld: bool = False


def _outcome_dict(outcome: ConstraintOutcome) -> dict[str, Any]:
    return {"constraint_id": outcome.constraint_id, "score": outcome.score, "reason": outcome.reason}


@dataclass(frozen=True)
class ProtectResult:
    """What :meth:`Engine.protect` returns.

    ``context`` is the text to hand to any LLM ("" when denied); ``redactions``
    locate replaced spans in the original chunks and hold no raw values.
    From :meth:`Engine.protect_passages`, ``chunks`` hold one chunk per passage in the order given; their ids are the
    shown form (:func:`~policy_engine.engine.id_redaction.with_shown_ids`: an id that holds a name is redacted), so a
    caller matches them to its passages by position, never by id.
    """

    context: str
    chunks: tuple[SanitizedChunk, ...]
    redactions: tuple[Redaction, ...]
    applied: tuple[ConstraintOutcome, ...]
    not_applied: tuple[ConstraintOutcome, ...]
    decision: DecisionRecord
    outcome: Outcome
    notes: tuple[str, ...] = ()
    query: str | None = None  # the question retrieval and later stages saw (the query stage's rewrite, if any)
    placeholders: Mapping[str, str] = field(default_factory=dict)  # token in ``query`` -> its value: restored in the local answer, never recorded

    @property
    def denied(self) -> bool:
        return self.outcome is Outcome.denied

    @property
    def sanitized(self) -> SanitizedContext:
        """The context as a :class:`SanitizedContext`, the only input :func:`answer_prompt` accepts."""
        return SanitizedContext(self.context)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (what ``policy-engine protect -f json`` prints)."""
        return {
            "outcome": self.outcome.value,
            "decision_id": self.decision.decision_id,
            "context": self.context,
            "chunks": [{"chunk_id": c.chunk_id, "withheld": c.withheld} for c in self.chunks],
            "redactions": [r.model_dump(mode="json") for r in self.redactions],
            "applied": [_outcome_dict(c) for c in self.applied],
            "not_applied": [_outcome_dict(c) for c in self.not_applied],
            "error": self.decision.error,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class AskResult:
    """What :meth:`Engine.ask` returns: the answer (``None`` without a model, when denied or refused).

    ``outcome`` is the question's one decision outcome: the context's
    (``allowed``/``redacted``/``denied``) unless the answer stage refused
    (``denied``: e.g. privacy budget exhausted; ``abstained``: no safe answer),
    with ``refusal`` saying why.  ``privacy`` is the DP spend and what remains.
    """

    answer: str | None
    answered_by: str | None
    protected: ProtectResult
    outcome: Outcome
    refusal: str | None = None
    privacy: PrivacySpend | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (what ``policy-engine ask -f json`` prints): the answer and its outcome, then the protection."""
        return {
            **self.protected.to_dict(),
            "answer": self.answer,
            "answered_by": self.answered_by,
            "refusal": self.refusal,
            "outcome": self.outcome.value,
            "privacy": self.privacy.model_dump(mode="json") if self.privacy is not None else None,
        }
