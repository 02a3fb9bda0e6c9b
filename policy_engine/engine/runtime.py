"""The enforcement runtime: open a compiled bundle once, then protect and answer requests.

SD-RAG (Sections III-C, IV): the retrieved context is redacted according to
the constraints bound to it *before* any model answers, by prompts that never
hold the user's query.  Per request, :meth:`Engine.protect`

1. runs query-stage enforcers (query rewriting, when installed) on the query,
2. retrieves chunks and ranks the constraints bound to them (the bundle),
3. runs the context-stage enforcers in the policy's ``enforcement.order``
   (redaction ...) through the fail-closed :class:`EnforcementPipeline`,
4. writes one decision record to the policy's audit sink, and
5. returns a :class:`ProtectResult`: the sanitized context, the redaction
   table (offsets into the original chunks, never the raw values), the
   constraints applied and not applied with reasons, the decision record and
   the outcome.

A question, passage, principal or purpose over the limits of
:mod:`policy_engine.engine.bounds` raises ``InputRejected`` before anything
runs or is recorded.  Any failure on the way (retrieval, an enforcer, the
audit write) denies the request: no context is returned.  :meth:`Engine.ask` additionally answers
with the local model when the policy configures one for ``answer``; one
question is one decision record, the answer stage a section of it.

An :class:`Engine` holds no per-request state; one instance serves
concurrent requests from many threads (models load once per process).

The result types live in :mod:`policy_engine.engine.results`, decision-record
assembly in :mod:`policy_engine.engine.decisions`, and the pipeline a policy asks
for (fail closed on a missing enforcer) in
:mod:`policy_engine.enforcement.plan`; they are re-exported here.  The
module stays a little over 400 lines because the request paths (protect,
protect_passages, ask, ask_passages) share private steps that deciding
whether to write the record now or after the answer stage threads through;
splitting them would scatter one request's control flow over modules.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.records import ConstraintOutcome, DecisionRecord, Outcome
from audit.records import RetrievedChunk as AuditChunk
from audit.sinks import open_policy_sink
from policy_engine.enforcement.base import EnforcementContext, Passage, PipelineResult, SpanDetector, Stage, restore_placeholders
from policy_engine.enforcement.placeholders import fallen_back
from policy_engine.enforcement.plan import PipelinePlan, build_pipeline, require_installed
from policy_engine.enforcement.registry import EngineParts
from policy_engine.engine.bounds import check_passages, check_request
from policy_engine.engine.context_assembly import assemble, render_context
from policy_engine.engine.decisions import add_answer_latency, denied_copy, finish_record, record_answer, record_stage, stamp
from policy_engine.engine.gate import ResolutionGate, UnresolvedStatementError
from policy_engine.engine.id_redaction import with_shown_ids
from policy_engine.engine.results import AskResult, ProtectResult, SanitizedChunk
from policy_engine.engine.retriever import RetrieverLike
from policy_engine.errors import EngineError
from policy_engine.llm.degeneration import DegenerateOutput
from policy_engine.llm.generation import ModelParaphraser, PromptObserver, answer_length, complete
from policy_engine.llm.prompts import Prompt, answer_prompt
from policy_engine.nlp.animacy import remember_probabilities
from policy_engine.nlp.pipeline import ParseStore, forget_stored_parses, use_stored_parses
from policy_engine.policy.model import Constraint, Policy, RedactionMode

if TYPE_CHECKING:
    from policy_engine.bundle.meanings import Meanings

__all__ = ["AskResult", "Engine", "EngineError", "PipelinePlan", "ProtectResult", "SanitizedChunk", "build_pipeline"]


def _default_detector(policy: Policy, meanings: Meanings | None) -> SpanDetector:
    """The policy's analyzer; its resolver takes the statement and description vectors a bundle stored instead of embedding them."""
    try:
        from policy_engine.detect.analyzer import Analyzer
        from policy_engine.detect.category_resolver import CategoryResolver
    except ImportError as exc:  # pragma: no cover - only while the detection layer is missing
        raise EngineError(f"the detection layer is not available ({exc}); install the engine: pip install 'policy-engine[engine]'") from exc
    return Analyzer(policy, resolver=CategoryResolver.for_policy(policy, known=meanings.vectors if meanings else None).resolve)


def answer_order(order: Sequence[str], extra_enforcers: Sequence[str] = ()) -> list[str]:
    """The enforcement order an engine runs: the policy's ``order``, then ``extra_enforcers`` (e.g. ``ask --dp``'s
    ``dp_decoding``) and ``grounding`` (every released answer is checked against its context), both before ``output_guard``."""
    order = list(order)
    last = order.index("output_guard") if "output_guard" in order else len(order)
    order[last:last] = [n for n in (*extra_enforcers, "grounding") if n not in order]
    return order


class Engine:
    """Protects retrieved context for one policy; thread-safe, open once per process.

    Build with :meth:`open` (a compiled bundle: retrieval + constraint
    ranking) or :meth:`for_policy` (no corpus: call :meth:`protect_passages`
    with chunks your own retriever found).  Both raise :class:`EngineError`
    when ``enforcement.order`` names an enforcer that is not installed;
    ``allow_missing_enforcers=True`` serves anyway, for development only
    (logged, and labelled ``missing_enforcers`` in every decision record).
    """

    def __init__(
        self,
        policy: Policy,
        *,
        retriever: RetrieverLike | None = None,
        detector: SpanDetector | None = None,
        audit_sink: Any | None = None,
        redaction_mode: RedactionMode | None = None,
        prompt_observer: PromptObserver | None = None,
        bundle_digest: str | None = None,
        allow_missing_enforcers: bool = False,
        answer_model: str | Path | None = None,
        extra_enforcers: Sequence[str] = (),
        meanings: Meanings | None = None,
    ) -> None:
        """``meanings``: what a bundle's compiler computed for opening (:mod:`policy_engine.bundle.meanings`)."""
        if meanings is not None:
            remember_probabilities(meanings.animacy)  # the eraser's P(person) of the policy's entities: no forward pass
        order = answer_order(policy.enforcement.order, extra_enforcers)
        if order != list(policy.enforcement.order):
            policy = policy.model_copy(update={"enforcement": policy.enforcement.model_copy(update={"order": order})})
        require_installed(policy, allow_missing_enforcers=allow_missing_enforcers)  # refuse before loading any model
        self.policy = policy
        try:  # a statement that resolves to nothing would be reported applied while its values pass through
            self.gate = ResolutionGate.check(policy, strict=True)  # a constraint no installed detector can serve is a refusal too
        except UnresolvedStatementError as exc:
            raise EngineError(str(exc)) from None
        self.retriever = retriever
        self.detector = detector if detector is not None else _default_detector(policy, meanings)
        self.audit_sink = audit_sink
        self.prompt_observer = prompt_observer
        self.bundle_digest = bundle_digest
        self.stored_parses: tuple[str, ParseStore] | None = None  # (key, store) registered by :meth:`open`
        answers = answer_model is not None or (policy.model.path is not None and "answer" in policy.model.use_for)
        self.model = self._load_model(answer_model) if answer_model is not None or (policy.model.path and set(policy.model.use_for) & {"answer", "paraphrase", "rewrite"}) else None
        paraphraser = (
            ModelParaphraser(self.model, observer=prompt_observer)
            if self.model is not None and "paraphrase" in policy.model.use_for
            else None
        )
        parts = EngineParts(policy, self.detector, paraphraser, redaction_mode, self.model)
        self.plan = build_pipeline(parts, allow_missing_enforcers=allow_missing_enforcers)
        self.pipeline = self.plan.pipeline
        # an answer-stage enforcer that writes the answer itself (dp_decoding) is the generator: no draft to discard
        self.drafts = answers and not any(getattr(e, "writes_answer", False) for e in self.pipeline.enforcers if e.stage is Stage.ANSWER)

    # ------------------------------------------------------------ constructors

    @classmethod
    def open(cls, bundle_path: str | Path, *, audit: bool = True, **options: Any) -> Engine:
        """Open a compiled bundle (see ``policy-engine compile``) for serving requests."""
        from policy_engine.bundle.reader import Bundle

        path = Path(bundle_path)
        if not path.exists():
            raise EngineError(f"{path}: no such bundle; build one with `policy-engine compile POLICY -o {path}`")
        bundle = Bundle.open(path)
        policy = bundle.policy
        require_installed(policy, allow_missing_enforcers=options.get("allow_missing_enforcers", False))  # before any file is opened
        sink = open_policy_sink(policy) if audit else None
        digest = bundle.manifest.get("content_digest")
        bundle.embedder.embed(["warm-up"])  # weights read and the first forward pass run now, not in the first request
        engine = cls(policy, retriever=bundle, audit_sink=sink, bundle_digest=digest, meanings=bundle.meanings(), **options)
        parses = bundle.stored_parses()
        if parses is not None:  # a retrieved passage is not parsed again (read on first use), until the engine closes
            engine.stored_parses = (str(path.resolve()), parses)
            use_stored_parses(*engine.stored_parses)
        return engine

    @classmethod
    def for_policy(cls, policy: Policy, *, audit: bool = True, **options: Any) -> Engine:
        """An engine without a corpus: protect chunks you retrieved yourself."""
        require_installed(policy, allow_missing_enforcers=options.get("allow_missing_enforcers", False))  # before any file is opened
        return cls(policy, audit_sink=open_policy_sink(policy) if audit else None, **options)

    def _load_model(self, override: str | Path | None) -> Any:
        """The policy's local model, or ``override`` (a model directory; ``"default"``: the pulled SmolLM2; an
        ``http://127.0.0.1:PORT/v1#MODEL`` URL: an OpenAI-compatible server on this machine, :mod:`policy_engine.llm.server`)."""
        from policy_engine.llm.runtime import load_model
        from policy_engine.llm.server import open_server
        from policy_engine.llm.source import model_source

        path = override if override is not None else self.policy.model.path
        assert path is not None
        source = model_source(path, self.policy.resolve_path if override is None else lambda given: Path(given).expanduser())
        return open_server(source) if isinstance(source, str) else load_model(source)

    # --------------------------------------------------------------- requests

    def protect(self, query: str, *, principal: str | None = None, purpose: str | None = None, trace_id: str | None = None) -> ProtectResult:
        """Retrieve context for ``query``, sanitize it and record the decision (see :meth:`_protect`)."""
        return self._protect(query, principal=principal, purpose=purpose, trace_id=trace_id, write=True)

    def _protect(self, query: str, *, principal: str | None, purpose: str | None, trace_id: str | None, write: bool) -> ProtectResult:
        """Retrieve context for ``query`` and return it sanitized by the policy's constraints.

        The constraints the bundle ranks into the top K (SD-RAG III-C1) are
        applied to every retrieved chunk, not only to the chunks they are bound
        to (applying a constraint more widely can only redact more).  With
        ``retrieval.enforce_unranked`` (the default) the constraints the ranking
        cut or the binding left out are enforced too, since the detectors, not
        the ranking, decide where a constraint bites; with it off, they are
        reported as not applied, as in SD-RAG.
        """
        if self.retriever is None:
            raise EngineError("this engine has no corpus: open a compiled bundle with Engine.open, or call protect_passages")
        check_request(query, principal, purpose)  # InputRejected before anything runs or is recorded
        started = time.perf_counter()
        record = DecisionRecord(outcome=Outcome.denied, principal=principal, purpose=purpose, trace_id=trace_id)
        query_stage = self.pipeline.run(
            Stage.QUERY, EnforcementContext(passages=(), constraints=tuple(self.policy.constraints), query=query, principal=principal, purpose=purpose)
        )
        record_stage(record, query_stage)
        if query_stage.failure is not None:  # refused: the query is neither searched nor recorded
            interrupted = query_stage.interrupt is not None  # recorded now, then propagated
            return _reraise(query_stage, self._finish(record, None, None, (), [], [], started, error=query_stage.failure.reason, write=write or interrupted))
        query = query_stage.context.query if query_stage.context.query is not None else query
        placeholders = query_stage.context.placeholders
        search = restore_placeholders(query, placeholders)  # retrieval is local: it searches with the values, not the tokens
        try:
            retrieved = list(self.retriever.retrieve(search))
            ranking = self.retriever.rank_constraints(search, retrieved)
        except Exception as exc:  # noqa: BLE001 - retrieval failure denies the request
            return self._finish(record, query, None, (), [], [], started, error=f"retrieval failed ({type(exc).__name__})", write=write)
        kept = [(rc.constraint, rc.score, tuple(rc.chunk_ids)) for rc in ranking.kept]
        applied = [
            ConstraintOutcome(constraint_id=rc.constraint.id, applied=True, reason=f"bound to {', '.join(rc.chunk_ids) or 'retrieved chunks'}; kept: {rc.kept_because}", score=float(rc.score))
            for rc in ranking.kept
        ]
        considered = {c.id for c, _, _ in kept} | {d.constraint.id for d in ranking.dropped}
        left_out = [(d.constraint, str(d.reason), None if d.score is None else float(d.score)) for d in ranking.dropped]
        left_out += [(c, "bound to none of the retrieved chunks", None) for c in self.policy.constraints if c.id not in considered]
        enforced = [c for c, _, _ in kept]
        if self.policy.corpus.retrieval.enforce_unranked:  # recall first: detectors decide where it bites
            enforced += [c for c, _, _ in left_out]
            applied += [
                ConstraintOutcome(constraint_id=c.id, applied=True, reason=f"{reason}; enforced anyway (retrieval.enforce_unranked)", score=score)
                for c, reason, score in left_out
            ]
            not_applied: list[ConstraintOutcome] = []
        else:
            not_applied = [ConstraintOutcome(constraint_id=c.id, applied=False, reason=reason, score=score) for c, reason, score in left_out]
        assembled = assemble([(r.chunk.chunk_id, r.chunk.text, float(r.score)) for r in retrieved], self.policy.corpus.retrieval.context_tokens)
        passages = tuple(Passage.of(p.chunk_id, p.text) for p in assembled)
        scores = {p.chunk_id: p.score for p in assembled if p.score is not None}
        protected = self._enforce(record, query, passages, tuple(enforced), applied, not_applied, scores, started, write=write)
        return dataclasses.replace(protected, placeholders=placeholders) if placeholders else protected

    def protect_passages(
        self,
        passages: Iterable[tuple[str, str]],
        constraints: Sequence[Constraint] | None = None,
        *,
        query: str | None = None,
        principal: str | None = None,
        purpose: str | None = None,
        trace_id: str | None = None,
    ) -> ProtectResult:
        """Sanitize ``(chunk_id, text)`` pairs under ``constraints`` (default: all of the policy's) and record the decision.

        ``query`` is only recorded (masked) in the audit log; it never reaches an enforcer.
        """
        return self._protect_passages(passages, constraints, query=query, principal=principal, purpose=purpose, trace_id=trace_id, write=True)

    def _protect_passages(
        self,
        passages: Iterable[tuple[str, str]],
        constraints: Sequence[Constraint] | None,
        *,
        query: str | None,
        principal: str | None,
        purpose: str | None,
        trace_id: str | None,
        write: bool,
    ) -> ProtectResult:
        check_request(query, principal, purpose)
        started = time.perf_counter()
        record = DecisionRecord(outcome=Outcome.denied, principal=principal, purpose=purpose, trace_id=trace_id)
        chosen = tuple(self.policy.constraints if constraints is None else constraints)
        applied = [ConstraintOutcome(constraint_id=c.id, applied=True, reason="given by the caller") for c in chosen]
        items = tuple(Passage.of(chunk_id, text) for chunk_id, text in check_passages(passages))
        return self._enforce(record, query, items, chosen, applied, [], {}, started, write=write)

    def ask(self, query: str, *, principal: str | None = None, purpose: str | None = None, trace_id: str | None = None) -> AskResult:
        """Retrieve, protect, then answer: one question, one decision record (the answer stage is a section of it)."""
        protected = self._protect(query, principal=principal, purpose=purpose, trace_id=trace_id, write=False)
        return self._record_question(protected, *self._answer(query, protected))

    def ask_passages(
        self,
        query: str,
        passages: Iterable[tuple[str, str]],
        constraints: Sequence[Constraint] | None = None,
        *,
        principal: str | None = None,
        purpose: str | None = None,
        trace_id: str | None = None,
    ) -> AskResult:
        """:meth:`ask` over chunks your own retriever found: protect them, answer, record one decision."""
        protected = self._protect_passages(passages, constraints, query=query, principal=principal, purpose=purpose, trace_id=trace_id, write=False)
        return self._record_question(protected, *self._answer(query, protected))

    def _answer(self, query: str, protected: ProtectResult) -> tuple[AskResult, BaseException | None]:
        """:meth:`_answer_stage`, its latency added to the record (``answer``, and to ``total``, so the breakdown sums)."""
        started = time.perf_counter()
        try:
            return self._answer_stage(query, protected)
        finally:
            add_answer_latency(protected.decision, (time.perf_counter() - started) * 1000.0)

    def _answer_stage(self, query: str, protected: ProtectResult) -> tuple[AskResult, BaseException | None]:
        """Answer ``query`` from an already protected context (never from unredacted text); records nothing.

        Answer-stage enforcers (output guard, DP decoding) then see the query,
        the sanitized chunks (as their "original") and the draft answer (none
        when one of them writes the answer itself, as DP decoding does); any
        failure among them withholds the answer, and a refusal they decide
        (:attr:`EnforcementContext.refusal`) withholds it with its outcome.
        Also returns a SystemExit/KeyboardInterrupt an enforcer raised, to
        propagate once the decision is recorded.
        """
        if protected.denied:
            return AskResult(answer=None, answered_by=None, protected=protected, outcome=Outcome.denied), None
        query = protected.query if protected.query is not None else query  # the rewritten question, when query_rewrite ran
        text, answered_by = None, None
        if self.model is not None and self.drafts:
            prompt = answer_prompt(query, protected.sanitized)
            self._observe(prompt)
            try:
                text, answered_by = complete(self.model, prompt, answer_length(query)), str(self.model.source)
            except DegenerateOutput as exc:  # a looping answer is refused, never returned
                return AskResult(None, None, protected, Outcome.abstained, refusal=str(exc)), None
        sanitized = tuple(Passage(c.chunk_id, c.text, c.text, c.withheld) for c in protected.chunks)
        decision = protected.decision
        context = EnforcementContext(
            passages=sanitized, constraints=(), query=query, answer=text, principal=decision.principal, purpose=decision.purpose, decision_id=decision.decision_id
        )
        stage = self.pipeline.run(Stage.ANSWER, context)
        record_stage(decision, stage)
        privacy = stage.context.privacy
        if stage.failure is not None:
            return AskResult(None, None, protected, Outcome.denied, refusal=stage.failure.reason, privacy=privacy), stage.interrupt
        if stage.context.refusal is not None:
            refusal = stage.context.refusal
            return AskResult(None, None, protected, Outcome(refusal.outcome), refusal=refusal.reason, privacy=privacy), None
        answer = restore_placeholders(stage.context.answer, protected.placeholders) if stage.context.answer is not None else None
        by = (answered_by if stage.context.answer == text else "answer-stage enforcers") if answer is not None else None
        return AskResult(answer, by, protected, protected.outcome, privacy=privacy), None

    def _record_question(self, protected: ProtectResult, asked: AskResult, interrupt: BaseException | None = None) -> AskResult:
        """Write the question's one decision record (context and answer stage); an unrecorded answer is withheld.

        An enforcer's SystemExit/KeyboardInterrupt (``interrupt``) propagates once the record is written.
        """
        record = protected.decision
        if not protected.denied:
            record_answer(record, outcome=asked.outcome, refusal=asked.refusal, answered_by=asked.answered_by, answered=asked.answer is not None, privacy=asked.privacy)
        try:
            self._write(record)
        except Exception as exc:  # noqa: BLE001 - an unrecorded decision releases nothing
            reason = f"audit write failed ({type(exc).__name__})"
            denied = ProtectResult("", (), (), protected.applied, protected.not_applied, denied_copy(record, reason), Outcome.denied, protected.notes + (reason,))
            asked = AskResult(None, None, denied, Outcome.denied, refusal=reason)
        if interrupt is not None:
            raise interrupt
        return asked

    def _write(self, record: DecisionRecord) -> None:
        if self.audit_sink is not None:
            self.audit_sink.write(record)

    def close(self) -> None:
        if self.stored_parses is not None:
            forget_stored_parses(*self.stored_parses)
        self.pipeline.close()
        if self.audit_sink is not None:
            self.audit_sink.close()

    # -------------------------------------------------------------- internals

    def _observe(self, prompt: Prompt) -> None:
        if self.prompt_observer is not None:
            self.prompt_observer(prompt)

    def _enforce(
        self,
        record: DecisionRecord,
        query: str | None,
        passages: tuple[Passage, ...],
        constraints: tuple[Constraint, ...],
        applied: list[ConstraintOutcome],
        not_applied: list[ConstraintOutcome],
        chunk_scores: dict[str, float],
        started: float,
        *,
        write: bool = True,
    ) -> ProtectResult:
        applied, not_applied = self.gate.partition(applied, not_applied)
        constraints = self.gate.enforced(constraints)
        record.retrieved = [AuditChunk(chunk_id=p.chunk_id, score=chunk_scores.get(p.chunk_id)) for p in passages]
        context = EnforcementContext(passages=passages, constraints=constraints, principal=record.principal, purpose=record.purpose)
        result = self.pipeline.run(Stage.CONTEXT, context)
        record_stage(record, result)
        error = result.failure.reason if result.failure else None
        interrupted = result.interrupt is not None  # recorded now, then propagated
        finished = self._finish(record, query, result.context if not result.denied else None, result.context.notes, applied, not_applied, started, error=error, write=write or interrupted)
        return _reraise(result, finished)

    def _finish(
        self,
        record: DecisionRecord,
        query: str | None,
        context: EnforcementContext | None,
        notes: tuple[str, ...],
        applied: list[ConstraintOutcome],
        not_applied: list[ConstraintOutcome],
        started: float,
        *,
        error: str | None,
        write: bool = True,
    ) -> ProtectResult:
        """Complete ``record`` and the result; with ``write``, write the record (a failed write denies)."""
        chunks = tuple(SanitizedChunk(p.chunk_id, p.text, p.withheld) for p in context.passages) if context else ()
        text = render_context([(c.chunk_id, c.text) for c in chunks], fallen_back(notes))
        stamp(record, self.policy, self.bundle_digest, self.plan.labels())
        finish_record(record, query=query, context=context, text=text, constraints=applied + not_applied, started=started, error=error)
        try:
            if write:
                self._write(record)
        except Exception as exc:  # noqa: BLE001 - an unrecorded decision releases nothing
            reason = f"audit write failed ({type(exc).__name__})"
            return ProtectResult("", (), (), tuple(applied), tuple(not_applied), denied_copy(record, reason), Outcome.denied, notes + (reason,))
        redactions = tuple(record.redactions)
        result = ProtectResult(text, chunks, redactions, tuple(applied), tuple(not_applied), record, record.outcome, notes, query=query)
        return with_shown_ids(result, self.detector, self.policy.constraints)


def _reraise(stage: PipelineResult, finished: ProtectResult) -> ProtectResult:
    """``finished``, unless an enforcer raised SystemExit/KeyboardInterrupt: that propagates, after the denial was recorded."""
    if stage.interrupt is not None:
        raise stage.interrupt
    return finished
