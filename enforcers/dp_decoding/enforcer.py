"""PEARL differentially private decoding as an answer-stage enforcer.

Generates the answer itself under document-level (epsilon, delta)-DP over
the passages it is given, paid for from the privacy-budget ledger (PEARL,
Sections 2-5).  Implements :class:`policy_engine.enforcement.base.Enforcer` at
:attr:`Stage.ANSWER`; :meth:`DPDecodingEnforcer.answer` is the same
operation for callers that hold documents rather than a pipeline context.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel

from enforcers.dp_decoding.attempts import Attempts
from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import EngineParts, register_enforcer
from policy_engine.policy.model import Policy

if TYPE_CHECKING:  # the DP stack (torch) loads when an engine builds this enforcer, not when lint lists it
    from audit.records import PrivacySpend
    from enforcers.dp_decoding.api import BudgetLedgerLike, PrivateAnswer
    from enforcers.dp_decoding.config import DPSettings
    from enforcers.dp_decoding.partition import RetrievedDocument
    from enforcers.dp_decoding.timing import StepCost
    from policy_engine.llm.runtime import ModelHandle

#: Environment variable holding the secret the document partition is keyed with.
PARTITION_KEY_ENV = "POLICY_ENGINE_DP_PARTITION_KEY"


def partition_secret(policy: Policy) -> bytes | None:
    """The operator's secret for the PEARL document partition.

    ``POLICY_ENGINE_DP_PARTITION_KEY`` when set, else the active audit key
    (the partition key is derived from it under its own domain label, so it
    never equals a signing or masking key); ``None`` when neither is
    configured, and each request then draws a fresh random key.
    """
    from audit.keys import load_keyring

    configured = os.environ.get(PARTITION_KEY_ENV, "").strip()
    if configured:
        return configured.encode()
    active = load_keyring(policy.audit).active
    return active.secret if active is not None else None


def warm_up(model: ModelHandle, settings: DPSettings) -> StepCost:
    """Cold-start work done at engine start, outside the timed enforcer call: the sentence
    splitter's abbreviation table loads and the decoder's batched steps are timed (:func:`enforcers.dp_decoding.timing.measure`).

    The timing runs on a worker thread, as requests do (the pipeline's): OpenMP thread counts are
    per thread, and the serving thread's may differ (FAISS sets its own to one), so a timing taken
    there would not describe the decoding a request gets.
    """
    from concurrent.futures import ThreadPoolExecutor

    from enforcers.dp_decoding.timing import measure
    from policy_engine.nlp.sentences import sentence_spans

    sentence_spans("Warm up. Done.")
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="dp-warm-up") as worker:
        return worker.submit(measure, model, settings.decoding.subsets).result()


class DPDecodingSection(BaseModel):
    """The ``dp_decoding`` section of a decision record: the model that decoded (its directory's name) and, when the
    policy or the engine named an answer *server*, that server's ``URL#MODEL``: DP decoding needs the token
    distributions, so a server's model is replaced by a local one, and the record says so.  ``token_release`` and
    ``tokens``/``tokens_paid`` (drawn / drawn by the exponential mechanism) say how the spend in ``privacy`` was made."""

    model: str
    replaced_server: str | None = None
    token_release: str = "every"
    tokens: int = 0
    tokens_paid: int = 0


@register_enforcer
@dataclass(frozen=True)
class DPDecodingEnforcer:
    """Answer generation with the PEARL DP decoder.

    The budget is charged to the context's ``principal`` (``apply``), or to
    the ``principal`` given here for :meth:`answer` and contexts without one.
    ``timeout_s`` (set by :meth:`from_parts` after the warm-up) is the larger
    of the policy's ``enforcement.timeout_s`` and the time this machine was
    measured to need for ``max_new_tokens`` (:mod:`enforcers.dp_decoding.timing`);
    the pipeline gives the enforcer that long, and ``apply`` hands the decoder
    that deadline: it stops sampling before the token that would overrun it
    and releases what it has, so an answer out of time is charged for what it
    sampled in time, never for a whole budget sampled past the timeout.

    ``apply`` sets the context's ``answer`` to the DP text and records the
    privacy spend (numbers and scope only, never text) with what remains of
    the scope's budget.  An exhausted budget is a refusal with outcome
    ``denied``; a DP draft that leaves no text is a refusal with outcome
    ``abstained``, charged what the accountant actually spent — never a
    non-private answer.  Any other error propagates after the ledger
    reservation has been released (the pipeline fails closed).  The answer is
    reserved under the context's ``decision_id``; when the pipeline gives up on
    it (timeout), :meth:`abandon` commits what its mechanisms spent so far and
    stops it from spending more, and that spend goes into the decision record.
    """

    settings: DPSettings
    ledger: BudgetLedgerLike
    principal: str | None = None
    model: ModelHandle | None = None
    policy_id: str = "default"
    partition_secret: bytes | None = field(default=None, repr=False)
    timeout_s: float | None = None
    replaced_server: str | None = None
    attempts: Attempts = field(default_factory=Attempts, repr=False, compare=False)

    name = "dp_decoding"
    version = "2"
    stage = Stage.ANSWER
    writes_answer = True  # the DP decoder is the answer's generator: the engine drafts no non-private answer to discard

    @classmethod
    def has_work(cls, policy: Policy) -> bool:
        return policy.differential_privacy is not None

    @classmethod
    def from_parts(cls, parts: EngineParts) -> DPDecodingEnforcer:
        """PEARL over the sanitized context, charged to the policy's ledger (same base directory as the audit log)."""
        from audit.ledger import BudgetLedger
        from enforcers.dp_decoding.config import settings_from_policy
        from enforcers.dp_decoding.timing import answer_timeout
        from policy_engine.llm.runtime import ModelHandle, default_model_dir, load_model
        from policy_engine.llm.server import ChatServer
        from policy_engine.llm.source import model_source

        policy = parts.policy
        if policy.differential_privacy is None:
            raise ValueError(f"policy {policy.metadata.name!r} has no differential_privacy section: dp_decoding has no budget to spend")
        model = parts.model
        replaced = None
        if not isinstance(model, ModelHandle):  # DP decoding needs token distributions: a server's model is never used
            source = model_source(policy.model.path, parts.resolve)
            served = isinstance(source, str)
            replaced = model.source if isinstance(model, ChatServer) else (source if served else None)
            model = load_model(default_model_dir() if served else source)
        ledger = BudgetLedger(parts.resolve(policy.audit.ledger))
        settings = settings_from_policy(policy.differential_privacy)  # refuses a fixed noise seed
        timeout = answer_timeout(settings.decoding, warm_up(model, settings))
        return cls(
            settings, ledger, model=model, policy_id=policy.metadata.name, partition_secret=partition_secret(policy),
            timeout_s=max(policy.enforcement.timeout_s, timeout), replaced_server=replaced,
        )

    def answer(
        self,
        query: str,
        documents: Sequence[RetrievedDocument],
        decision_id: str | None = None,
        principal: str | None = None,
        deadline: float | None = None,
    ) -> PrivateAnswer:
        """The DP answer (or a refusal) for ``query`` over ``documents``."""
        from enforcers.dp_decoding.api import generate_private

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
            partition_secret=self.partition_secret,
            attempts=self.attempts,
            deadline=deadline,
        )

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        if context.query is None:
            raise ValueError("dp_decoding runs at the answer stage and needs the query")
        from enforcers.dp_decoding.partition import RetrievedDocument

        documents = [RetrievedDocument(p.chunk_id, p.text) for p in context.passages if not p.withheld]
        deadline = time.monotonic() + self.timeout_s if self.timeout_s is not None else None
        result = self.answer(context.query, documents, decision_id=context.decision_id, principal=context.principal, deadline=deadline)
        if result.refused:
            return context.with_section(self.name, self.section(result)).refused("denied", f"privacy budget exhausted for {result.scope}")
        spend = self._with_remaining(result.privacy_spend())
        note = f"dp_decoding: epsilon={spend.epsilon_spent:.6g} delta={spend.delta_spent:.3g} scope={spend.scope} decision={result.decision_id}"
        context = context.evolve(privacy=spend).noted(note).with_section(self.name, self.section(result))
        if not result.text.strip():
            return context.refused("abstained", f"the private decoder released no text (epsilon {spend.epsilon_spent:.3g} spent, {result.stop_reason or 'empty draft'})")
        return context.evolve(answer=result.text)

    def section(self, result: PrivateAnswer) -> DPDecodingSection:
        """This enforcer's decision-record section for ``result`` (which model decoded, the server it replaced, the tokens paid)."""
        return DPDecodingSection(
            model=self.model.source.name if self.model is not None else "none", replaced_server=self.replaced_server,
            token_release=self.settings.decoding.token_release, tokens=result.tokens_generated, tokens_paid=result.tokens_paid,
        )

    def abandon(self, context: EnforcementContext) -> PrivacySpend | None:
        """Settle the answer the pipeline gave up on (timeout): commit what it spent, stop it spending; ``None`` if none is in flight."""
        spend = self.attempts.abandon(context.decision_id)
        return self._with_remaining(spend) if spend is not None else None

    def _with_remaining(self, spend: PrivacySpend) -> PrivacySpend:
        remaining = self.ledger.remaining(spend.scope)
        return spend.model_copy(update={"epsilon_remaining": remaining.epsilon_remaining, "delta_remaining": remaining.delta_remaining})
