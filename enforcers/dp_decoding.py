"""PEARL differentially private decoding as an answer-stage enforcer.

Generates the answer itself under document-level (epsilon, delta)-DP over
the passages it is given, paid for from the privacy-budget ledger (PEARL,
Sections 2-5).  Implements :class:`policy_engine.enforcement.base.Enforcer` at
:attr:`Stage.ANSWER`; :meth:`DPDecodingEnforcer.answer` is the same
operation for callers that hold documents rather than a pipeline context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.dp.api import BudgetLedgerLike, PrivateAnswer, generate_private
from policy_engine.dp.config import DPSettings, settings_from_policy
from policy_engine.dp.partition import RetrievedDocument
from policy_engine.dp.sentences import sentencizer
from policy_engine.answer_timing import StepCost, answer_timeout, measure
from policy_engine.model_runtime import ModelHandle, default_model_dir, load_model
from policy_engine.policy.model import Policy


class PrivacyBudgetRefused(RuntimeError):
    """The scope's privacy budget cannot pay for a DP answer: the request is refused."""


def warm_up(model: ModelHandle, settings: DPSettings) -> StepCost:
    """Cold-start work done at engine start, outside the timed enforcer call: the sentence
    splitter loads and the decoder's batched steps are timed (:func:`policy_engine.answer_timing.measure`)."""
    sentencizer()
    return measure(model, settings.decoding.subsets)


@register_enforcer
@dataclass(frozen=True)
class DPDecodingEnforcer:
    """Answer generation with the PEARL DP decoder.

    The budget is charged to the context's ``principal`` (``apply``), or to
    the ``principal`` given here for :meth:`answer` and contexts without one.
    ``timeout_s`` (set by :meth:`from_parts` after the warm-up) is the larger
    of the policy's ``enforcement.timeout_s`` and the time this machine was
    measured to need for ``max_new_tokens`` (:mod:`policy_engine.answer_timing`);
    the pipeline gives the enforcer that long.

    ``apply`` sets the context's ``answer`` to the DP text and records the
    privacy spend in ``notes`` (numbers and scope only, never text).  An
    exhausted budget raises :class:`PrivacyBudgetRefused`, which the
    pipeline turns into a denial — never a non-private answer.  Any other
    error propagates after the ledger reservation has been released.
    """

    settings: DPSettings
    ledger: BudgetLedgerLike
    principal: str | None = None
    model: ModelHandle | None = None
    policy_id: str = "default"
    timeout_s: float | None = None

    name = "dp_decoding"
    version = "1"
    stage = Stage.ANSWER

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return policy.differential_privacy is not None

    @classmethod
    def from_parts(cls, parts: EngineParts) -> "DPDecodingEnforcer":
        """PEARL over the sanitized context, charged to the policy's ledger (same base directory as the audit log)."""
        from audit.ledger import BudgetLedger

        policy = parts.policy
        if policy.differential_privacy is None:
            raise ValueError(f"policy {policy.metadata.name!r} has no differential_privacy section: dp_decoding has no budget to spend")
        model = parts.model
        if model is None:
            model = load_model(parts.resolve(policy.model.path) if policy.model.path else default_model_dir())
        ledger = BudgetLedger(parts.resolve(policy.audit.ledger))
        settings = settings_from_policy(policy.differential_privacy)
        timeout = answer_timeout(settings.decoding, warm_up(model, settings))
        return cls(settings, ledger, model=model, policy_id=policy.metadata.name, timeout_s=max(policy.enforcement.timeout_s, timeout))

    def answer(
        self,
        query: str,
        documents: Sequence[RetrievedDocument],
        decision_id: str | None = None,
        principal: str | None = None,
    ) -> PrivateAnswer:
        """The DP answer (or a refusal) for ``query`` over ``documents``."""
        payer = principal or self.principal
        if not payer:
            raise ValueError("dp_decoding needs a principal to charge the privacy budget to")
        return generate_private(
            query,
            documents,
            principal=payer,
            settings=self.settings,
            ledger=self.ledger,
            model=self.model,
            policy_id=self.policy_id,
            decision_id=decision_id,
        )

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if context.query is None:
            raise ValueError("dp_decoding runs at the answer stage and needs the query")
        documents = [RetrievedDocument(p.chunk_id, p.text) for p in context.passages if not p.withheld]
        result = self.answer(context.query, documents, principal=context.principal)
        if result.refused:
            raise PrivacyBudgetRefused(f"privacy budget exhausted for {result.scope}")
        spend = result.privacy_spend()
        note = (
            f"dp_decoding: epsilon={spend['epsilon']:.6g} delta={spend['delta']:.3g} "
            f"scope={spend['scope']} decision={spend['decision_id']}"
        )
        return context.evolve(answer=result.text, privacy=spend).noted(note)
