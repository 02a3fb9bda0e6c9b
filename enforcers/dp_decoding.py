"""PEARL differentially private decoding as an answer-stage enforcer.

Generates the answer itself under document-level (epsilon, delta)-DP over
the passages it is given, paid for from the privacy-budget ledger (PEARL,
Sections 2-5).  Implements :class:`policy_engine.enforcement.base.Enforcer` at
:attr:`Stage.ANSWER`; :meth:`DPDecodingEnforcer.answer` is the same
operation for callers that hold documents rather than a pipeline context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.errors import BudgetExhausted
from policy_engine.policy.model import Policy

if TYPE_CHECKING:  # the DP stack (torch) loads when an engine builds this enforcer, not when lint lists it
    from policy_engine.dp.api import BudgetLedgerLike, PrivateAnswer
    from policy_engine.dp.config import DPSettings
    from policy_engine.dp.partition import RetrievedDocument
    from policy_engine.model_runtime import ModelHandle


@register_enforcer
@dataclass(frozen=True)
class DPDecodingEnforcer:
    """Answer generation with the PEARL DP decoder.

    The budget is charged to the context's ``principal`` (``apply``), or to
    the ``principal`` given here for :meth:`answer` and contexts without one.

    ``apply`` sets the context's ``answer`` to the DP text and records the
    privacy spend in ``notes`` (numbers and scope only, never text).  An
    exhausted budget raises :class:`~policy_engine.errors.BudgetExhausted`, which the
    pipeline turns into a denial — never a non-private answer.  Any other
    error propagates after the ledger reservation has been released.
    """

    settings: DPSettings
    ledger: BudgetLedgerLike
    principal: str | None = None
    model: ModelHandle | None = None
    policy_id: str = "default"

    name = "dp_decoding"
    version = "1"
    stage = Stage.ANSWER

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return policy.differential_privacy is not None

    @classmethod
    def from_parts(cls, parts: EngineParts) -> DPDecodingEnforcer:
        """PEARL over the sanitized context, charged to the policy's ledger (same base directory as the audit log)."""
        from audit.ledger import BudgetLedger
        from policy_engine.dp.config import settings_from_policy
        from policy_engine.model_runtime import default_model_dir, load_model

        policy = parts.policy
        if policy.differential_privacy is None:
            raise ValueError(f"policy {policy.metadata.name!r} has no differential_privacy section: dp_decoding has no budget to spend")
        model = parts.model
        if model is None:
            model = load_model(parts.resolve(policy.model.path) if policy.model.path else default_model_dir())
        ledger = BudgetLedger(parts.resolve(policy.audit.ledger))
        return cls(settings_from_policy(policy.differential_privacy), ledger, model=model, policy_id=policy.metadata.name)

    def answer(
        self,
        query: str,
        documents: Sequence[RetrievedDocument],
        decision_id: str | None = None,
        principal: str | None = None,
    ) -> PrivateAnswer:
        """The DP answer (or a refusal) for ``query`` over ``documents``."""
        from policy_engine.dp.api import generate_private

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
        from policy_engine.dp.partition import RetrievedDocument

        documents = [RetrievedDocument(p.chunk_id, p.text) for p in context.passages if not p.withheld]
        result = self.answer(context.query, documents, principal=context.principal)
        if result.refused:
            raise BudgetExhausted(f"privacy budget exhausted for {result.scope}")
        spend = result.privacy_spend()
        note = f"dp_decoding: epsilon={spend.epsilon_spent:.6g} delta={spend.delta_spent:.3g} scope={spend.scope} decision={result.decision_id}"
        return context.evolve(answer=result.text, privacy=spend).noted(note)
