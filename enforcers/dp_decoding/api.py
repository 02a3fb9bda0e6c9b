"""``generate_private``: PEARL answer generation paid for from the budget ledger.

Flow (PEARL Algorithm 1 end to end, Sections 4.1-4.2):

1. reserve the answer's (epsilon, delta) from the scope's ledger entry — an
   exhausted budget returns a refusal, never a non-private answer;
2. solve the zCDP budget (:func:`plan_budget`) and decode a DP draft;
3. segment the draft and privately select PII-bearing / hallucination-prone
   sentences (or pick them at random, or skip, per ``decoding.refill``);
4. release keywords privately from the remaining budget and refill (a
   selection that would remove every sentence refills instead); the text is
   then checked for loops and a sentence cut by the length limit is dropped;
5. commit the epsilon actually spent, or release the reservation on error
   (the error propagates; no text is returned); an attempt the pipeline
   abandons on a timeout is committed with what it spent until then.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from audit.errors import BudgetExhausted
from audit.records import PrivacySpend
from enforcers.dp_decoding.accounting import PrivacyAccountant, exponential_epsilon_for
from enforcers.dp_decoding.attempts import Attempt, Attempts
from enforcers.dp_decoding.budget import BudgetPlan, plan_budget
from enforcers.dp_decoding.config import DPDecodingSettings, DPSettings
from enforcers.dp_decoding.decoder import EnsembleDecoder
from enforcers.dp_decoding.keywords import candidate_keywords, release_keywords
from enforcers.dp_decoding.noise import noise_generator
from enforcers.dp_decoding.partition import (
    RetrievedDocument,
    fresh_partition_key,
    partition_documents,
    partition_key_from_secret,
)
from enforcers.dp_decoding.refill import assemble, refill_sentence
from enforcers.dp_decoding.sentences import (
    Sentence,
    SentenceSelection,
    refill_rather_than_empty,
    segment,
    select_private_topk,
    select_random,
    select_sparse_vector,
)
from policy_engine.llm.degeneration import check_output, without_cut_sentence
from policy_engine.llm.runtime import ModelHandle, load_default_model

__all__ = ["BudgetPlan", "PrivateAnswer", "budget_scope", "generate_private", "plan_budget"]


class BudgetLedgerLike(Protocol):
    """The part of ``audit.ledger.BudgetLedger`` this module uses."""

    def ensure_budget(self, scope: str, epsilon: float, delta: float, window_seconds: Any) -> Any: ...
    def reserve(self, scope: str, epsilon: float, delta: float, decision_id: str) -> Any: ...
    def commit(self, reservation: Any, epsilon: float | None = None, delta: float | None = None) -> Any: ...
    def release(self, reservation: Any) -> Any: ...
    def remaining(self, scope: str) -> Any: ...


@dataclass
class PrivateAnswer:
    """Result of :func:`generate_private`.

    ``text`` is safe to release.  ``cg_trace`` (per-token confidence gap of
    the draft) is computed from non-private distributions: it is for local
    diagnostics only and must not be logged or shown to the requester.
    ``selection`` holds the indices (into the draft's sentences) that were
    redacted and refilled.  ``refusal`` is set, and ``text`` empty, when the
    budget did not allow an answer.
    """

    text: str
    epsilon_spent: float
    delta_spent: float
    scope: str
    decision_id: str
    cg_trace: list[float] = field(default_factory=list, repr=False)
    selection: SentenceSelection = field(default_factory=lambda: SentenceSelection((), ()))
    keywords: list[str] = field(default_factory=list)
    stop_reason: str = ""
    epsilon_step: float = 0.0
    tokens_generated: int = 0
    tokens_paid: int = 0
    refusal: str | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    def privacy_spend(self) -> PrivacySpend:
        """The privacy spend for a decision record (scope and numbers; no content, no CG values)."""
        return PrivacySpend(scope=self.scope, epsilon_spent=self.epsilon_spent, delta_spent=self.delta_spent)


def budget_scope(settings: DPSettings, principal: str, policy_id: str, documents: Sequence[RetrievedDocument]) -> str:
    """Ledger scope key for the policy's ``differential_privacy.scope``."""
    if settings.scope == "principal":
        return f"principal:{principal}"
    if settings.scope == "policy":
        return f"policy:{policy_id}"
    digest = hashlib.sha256("\n".join(sorted(d.id for d in documents)).encode()).hexdigest()[:16]
    return f"document_set:{digest}"


def generate_private(
    query: str,
    documents: Sequence[RetrievedDocument],
    *,
    principal: str,
    settings: DPSettings,
    ledger: BudgetLedgerLike,
    model: ModelHandle | None = None,
    policy_id: str = "default",
    decision_id: str | None = None,
    public_vocabulary: Sequence[str] = (),
    partition_secret: bytes | None = None,
    attempts: Attempts | None = None,
    deadline: float | None = None,
) -> PrivateAnswer:
    """Answer ``query`` over ``documents`` with document-level (epsilon, delta)-DP.

    Reserves ``settings.per_answer`` from the ledger scope chosen by
    ``settings.scope``; returns a refusal when that budget is exhausted.
    ``public_vocabulary`` extends the public keyword universe of the refill.
    ``partition_secret`` is the operator's key material for the document
    partition (a fresh random key per request when ``None``).  The noise of
    every mechanism comes from :func:`enforcers.dp_decoding.noise.noise_generator`:
    a fresh CSPRNG-seeded generator per call.  The ledger is charged what the
    accountant actually spent, also when the released text is empty.
    ``attempts`` (the enforcer's) holds the attempt under ``decision_id``
    while it decodes, so the pipeline can settle it when it gives up on a
    timeout (:mod:`enforcers.dp_decoding.attempts`).  ``deadline`` (a
    :func:`time.monotonic` instant) ends sampling before the step that would
    overrun it; the draft so far is then released without sentence selection
    or refill (no time is left for them), charged only for what was sampled.
    """
    decision_id = decision_id or uuid.uuid4().hex
    scope = budget_scope(settings, principal, policy_id, documents)
    epsilon, delta = settings.per_answer
    ledger.ensure_budget(scope, settings.epsilon, settings.delta, settings.window_seconds)
    try:
        reservation = ledger.reserve(scope, epsilon, delta, decision_id)
    except BudgetExhausted as exhausted:
        return PrivateAnswer(
            text="",
            epsilon_spent=0.0,
            delta_spent=0.0,
            scope=scope,
            decision_id=decision_id,
            refusal=f"privacy budget exhausted for {scope}: {exhausted}",
        )
    attempt = Attempt(ledger, reservation, PrivacyAccountant(epsilon, delta), scope, epsilon)
    try:
        if attempts is not None:
            attempts.open(decision_id, attempt)
        answer = _generate(query, documents, attempt.accountant, settings.decoding, model, public_vocabulary, partition_secret, deadline)
        settled = attempt.settle()
    except BaseException:
        attempt.release()
        raise
    finally:
        if attempts is not None:
            attempts.close(decision_id)
    answer.epsilon_spent, answer.delta_spent = settled.epsilon_spent, settled.delta_spent
    answer.scope, answer.decision_id = scope, decision_id
    return answer


def _generate(
    query: str,
    documents: Sequence[RetrievedDocument],
    accountant: PrivacyAccountant,
    decoding: DPDecodingSettings,
    model: ModelHandle | None,
    public_vocabulary: Sequence[str],
    partition_secret: bytes | None,
    deadline: float | None = None,
) -> PrivateAnswer:
    handle = model or load_default_model()
    plan = plan_budget(accountant.epsilon, accountant.delta, decoding)
    testing_seed = decoding.insecure_seed_for_testing
    generator = noise_generator(testing_seed)
    if partition_secret is not None:
        key = partition_key_from_secret(partition_secret)
    elif testing_seed is not None:
        key = partition_key_from_secret(f"insecure-testing-seed/{testing_seed}".encode())
    else:
        key = fresh_partition_key()
    parts = partition_documents(documents, decoding.subsets, key)
    draft = EnsembleDecoder(handle, decoding).generate(
        query, parts, plan.epsilon_step, accountant, generator, rho_ceiling=plan.rho_generation, deadline=deadline, epsilon_test=plan.epsilon_test
    )
    text, selection, keywords = draft.text, SentenceSelection((), ()), []
    if decoding.refill != "none" and draft.stop_reason != "deadline":
        sentences = segment(handle.tokenizer, draft.token_ids, draft.cg_trace)
        selection = refill_rather_than_empty(_select(sentences, decoding, plan, accountant, generator), len(sentences), decoding.refill_sentences)
        if selection.hallucination and accountant.rho_remaining > 0 and decoding.keywords > 0:
            universe = candidate_keywords([query, draft.text], public_vocabulary)
            epsilon_keyword = exponential_epsilon_for(accountant.rho_remaining, decoding.keywords)
            keywords = release_keywords(documents, universe, decoding.keywords, epsilon_keyword, accountant, generator)

        def _refill(masked: str) -> str:
            return refill_sentence(handle, query, masked, keywords, decoding.refill_max_new_tokens)

        text, _ = assemble(sentences, selection, _refill)
    text = _releasable(text, draft.stop_reason)
    spent = accountant.epsilon_spent()
    return PrivateAnswer(
        text=text,
        epsilon_spent=spent,
        delta_spent=accountant.delta if spent > 0 else 0.0,
        scope="",
        decision_id="",
        cg_trace=draft.cg_trace,
        selection=selection,
        keywords=keywords,
        stop_reason=draft.stop_reason,
        epsilon_step=plan.epsilon_step,
        tokens_generated=len(draft.token_ids),
        tokens_paid=draft.paid,
    )


def _releasable(text: str, stop_reason: str) -> str:
    """The DP text as released: a loop cut at its last good sentence (or nothing), a sentence the
    length limit or the deadline cut off dropped.  Post-processing of DP output: no privacy cost."""
    verdict = check_output(text)
    return without_cut_sentence(verdict.text) if stop_reason in ("max_tokens", "deadline") else verdict.text


def _select(
    sentences: Sequence[Sentence],
    decoding: DPDecodingSettings,
    plan: BudgetPlan,
    accountant: PrivacyAccountant,
    generator: torch.Generator,
) -> SentenceSelection:
    """Sentence selection per ``decoding.refill`` / ``decoding.selection`` (Algorithm 1, lines 14-18)."""
    if decoding.refill == "random":
        return select_random(sentences, decoding.pii_sentences, decoding.refill_sentences, generator)
    if decoding.selection == "svt":
        return select_sparse_vector(
            sentences,
            decoding.pii_sentences,
            decoding.refill_sentences,
            decoding.svt_thresholds,
            plan.epsilon_selection,
            decoding.cg_clip,
            decoding.subsets,
            accountant,
            generator,
        )
    return select_private_topk(
        sentences,
        decoding.pii_sentences,
        decoding.refill_sentences,
        plan.epsilon_selection,
        decoding.cg_clip,
        decoding.subsets,
        accountant,
        generator,
    )
