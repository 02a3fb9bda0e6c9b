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

Any failure on the way (retrieval, an enforcer, the audit write) denies the
request: no context is returned.  :meth:`Engine.ask` additionally answers
with the local model when the policy configures one for ``answer``.

An :class:`Engine` holds no per-request state; one instance serves
concurrent requests from many threads (models load once per process).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence

from audit.records import ConstraintOutcome, DecisionRecord, EnforcerRun, Outcome, PrivacySpend
from audit.records import Redaction as AuditRedaction
from audit.records import RetrievedChunk as AuditChunk
from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Enforcer, Passage, PipelineResult, RedactionSpan, SpanDetector, Stage
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.context_assembly import assemble, render_context
from policy_engine.degeneration import DegenerateOutput
from policy_engine.generation import ModelParaphraser, PromptObserver, answer_length, complete
from policy_engine.policy.model import Constraint, Policy, RedactionMode
from policy_engine.prompts import Prompt, SanitizedContext, answer_prompt

__all__ = ["AskResult", "Engine", "EngineError", "ProtectResult", "SanitizedChunk"]


class EngineError(RuntimeError):
    """The engine cannot be opened or used as asked (message says what to do)."""


# --------------------------------------------------------------------- results


@dataclass(frozen=True)
class SanitizedChunk:
    """One retrieved chunk after enforcement."""

    chunk_id: str
    text: str
    withheld: bool = False


@dataclass(frozen=True)
class ProtectResult:
    """What :meth:`Engine.protect` returns.

    ``context`` is the text to hand to any LLM ("" when denied); ``redactions``
    locate replaced spans in the original chunks and hold no raw values.
    """

    context: str
    chunks: tuple[SanitizedChunk, ...]
    redactions: tuple[RedactionSpan, ...]
    applied: tuple[ConstraintOutcome, ...]
    not_applied: tuple[ConstraintOutcome, ...]
    decision: DecisionRecord
    outcome: Outcome
    notes: tuple[str, ...] = ()

    @property
    def denied(self) -> bool:
        return self.outcome is Outcome.denied

    @property
    def sanitized(self) -> SanitizedContext:
        """The context as a :class:`SanitizedContext`, the only input :func:`answer_prompt` accepts."""
        return SanitizedContext(self.context)


@dataclass(frozen=True)
class AskResult:
    """What :meth:`Engine.ask` returns: the answer (``None`` without a model or when denied)."""

    answer: str | None
    answered_by: str | None
    protected: ProtectResult
    refusal: str | None = None  # why the answer stage withheld the answer (e.g. privacy budget exhausted)


# ------------------------------------------------------------ bundle protocol


class ChunkLike(Protocol):
    chunk_id: str
    text: str


class RetrievedLike(Protocol):
    chunk: ChunkLike
    score: float


class RetrieverLike(Protocol):
    """What the engine needs from a compiled bundle (``policy_engine.bundle.Bundle``)."""

    policy: Policy

    def retrieve(self, query: str, k: int | None = None) -> Sequence[RetrievedLike]: ...

    def rank_constraints(self, query: str, retrieved: Sequence[RetrievedLike]) -> Any: ...


# ------------------------------------------------------------ pipeline plan


#: Policy sections that give work to enforcers not yet shipped (until each registers itself).
_WORK_OF_UNINSTALLED: dict[str, Callable[[Policy], bool]] = {
    "kg_erasure": lambda policy: bool(policy.private_knowledge.private_triples()),
    "query_rewrite": lambda policy: bool(policy.necessity.rules),
    "output_guard": lambda policy: policy.quasi_identifiers is not None,
}


@dataclass(frozen=True)
class PipelinePlan:
    """The pipeline built for a policy and the ordered enforcers that are not installed.

    ``missing`` have work to do under the policy (their protections are *not*
    applied; every result says so); ``idle`` have nothing to enforce.
    """

    pipeline: EnforcementPipeline
    missing: tuple[str, ...]
    idle: tuple[str, ...]

    def notes(self) -> tuple[str, ...]:
        return tuple(f"enforcer {n!r} is in enforcement.order but not installed: its protections were NOT applied" for n in self.missing) + tuple(
            f"enforcer {n!r} skipped: the policy gives it nothing to enforce" for n in self.idle
        )


def build_pipeline(parts: EngineParts, *, strict: bool = False) -> PipelinePlan:
    """The pipeline for ``parts.policy.enforcement`` in its declared order.

    With ``strict``, an enforcer that the order names and the policy gives
    work to, but that is not installed, is an :class:`EngineError` (refuse to
    serve rather than serve with a protection missing).
    """
    settings = parts.policy.enforcement
    enforcers: list[Enforcer] = []
    missing: list[str] = []
    idle: list[str] = []
    available = registered()
    for name in settings.order:
        enforcer_class = available.get(name)
        if enforcer_class is not None:
            try:
                enforcers.append(enforcer_class.from_parts(parts))
            except (ValueError, OSError) as exc:  # a policy the enforcer cannot serve: refuse to open, say why
                raise EngineError(f"enforcer {name!r} cannot serve policy {parts.policy.metadata.name!r}: {exc}") from exc
        elif name in _WORK_OF_UNINSTALLED and _WORK_OF_UNINSTALLED[name](parts.policy):
            missing.append(name)
        else:
            idle.append(name)
    if strict and missing:
        raise EngineError(
            f"policy {parts.policy.metadata.name!r}: enforcement.order names {', '.join(map(repr, missing))}, not installed in this "
            f"engine (available: {', '.join(sorted(available))}); install them or remove them from enforcement.order"
        )
    pipeline = EnforcementPipeline(enforcers, on_error=settings.on_error, timeout_s=settings.timeout_s)
    return PipelinePlan(pipeline, tuple(missing), tuple(idle))


# ---------------------------------------------------------------------- engine


def _resolve(root_dir: str, path: str) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else Path(root_dir) / candidate


def _open_audit_sink(policy: Policy) -> Any:
    from audit.sinks import open_sink

    log = _resolve(policy.root_dir, policy.audit.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    return open_sink(policy.audit.model_copy(update={"log": str(log)}))


def _default_detector(policy: Policy) -> SpanDetector:
    try:
        from policy_engine.detect.analyzer import Analyzer
    except ImportError as exc:  # pragma: no cover - only while the detection layer is missing
        raise EngineError(f"the detection layer is not available ({exc}); reinstall policy-engine") from exc
    return Analyzer(policy)


class Engine:
    """Protects retrieved context for one policy; thread-safe, open once per process.

    Build with :meth:`open` (a compiled bundle: retrieval + constraint
    ranking) or :meth:`for_policy` (no corpus: call :meth:`protect_passages`
    with chunks your own retriever found).
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
        strict: bool = False,
        answer_model: str | Path | None = None,
        extra_enforcers: Sequence[str] = (),
    ) -> None:
        if extra_enforcers:  # e.g. ``ask --dp``: enforcers this engine runs beyond the policy's order
            order = list(policy.enforcement.order) + [n for n in extra_enforcers if n not in policy.enforcement.order]
            policy = policy.model_copy(update={"enforcement": policy.enforcement.model_copy(update={"order": order})})
        self.policy = policy
        self.retriever = retriever
        self.detector = detector if detector is not None else _default_detector(policy)
        self.audit_sink = audit_sink
        self.prompt_observer = prompt_observer
        self.bundle_digest = bundle_digest
        self.answers = answer_model is not None or (policy.model.path is not None and "answer" in policy.model.use_for)
        self.model = self._load_model(answer_model) if answer_model is not None or (policy.model.path and set(policy.model.use_for) & {"answer", "paraphrase"}) else None
        paraphraser = (
            ModelParaphraser(self.model, observer=prompt_observer)
            if self.model is not None and "paraphrase" in policy.model.use_for
            else None
        )
        self.plan = build_pipeline(EngineParts(policy, self.detector, paraphraser, redaction_mode, self.model), strict=strict)
        self.pipeline = self.plan.pipeline

    # ------------------------------------------------------------ constructors

    @classmethod
    def open(cls, bundle_path: str | Path, *, audit: bool = True, **options: Any) -> "Engine":
        """Open a compiled bundle (see ``policy-engine compile``) for serving requests."""
        from policy_engine.bundle import Bundle

        path = Path(bundle_path)
        if not path.exists():
            raise EngineError(f"{path}: no such bundle; build one with `policy-engine compile POLICY -o {path}`")
        bundle = Bundle.open(path)
        policy = bundle.policy
        sink = _open_audit_sink(policy) if audit else None
        digest = bundle.manifest.get("content_digest")
        return cls(policy, retriever=bundle, audit_sink=sink, bundle_digest=digest, **options)

    @classmethod
    def for_policy(cls, policy: Policy, *, audit: bool = True, **options: Any) -> "Engine":
        """An engine without a corpus: protect chunks you retrieved yourself."""
        return cls(policy, audit_sink=_open_audit_sink(policy) if audit else None, **options)

    def _load_model(self, override: str | Path | None) -> Any:
        """The policy's local model, or ``override`` (a model directory; ``"default"``: the pulled SmolLM2)."""
        from policy_engine.model_runtime import default_model_dir, load_model

        path = override if override is not None else self.policy.model.path
        assert path is not None
        if str(path) == "default":
            return load_model(default_model_dir())
        return load_model(_resolve(self.policy.root_dir, str(path)) if override is None else Path(path).expanduser())

    # --------------------------------------------------------------- requests

    def protect(self, query: str, *, principal: str | None = None, purpose: str | None = None, trace_id: str | None = None) -> ProtectResult:
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
        started = time.perf_counter()
        record = DecisionRecord(outcome=Outcome.denied, principal=principal, purpose=purpose, trace_id=trace_id)
        query_stage = self.pipeline.run(
            Stage.QUERY, EnforcementContext(passages=(), constraints=tuple(self.policy.constraints), query=query, principal=principal, purpose=purpose)
        )
        self._record_stage(record, query_stage)
        if query_stage.failure is not None:
            return self._finish(record, query, None, (), [], [], started, error=query_stage.failure.reason)
        search = query_stage.context.query or query
        try:
            retrieved = list(self.retriever.retrieve(search))
            ranking = self.retriever.rank_constraints(search, retrieved)
        except Exception as exc:  # noqa: BLE001 - retrieval failure denies the request
            return self._finish(record, query, None, (), [], [], started, error=f"retrieval failed ({type(exc).__name__})")
        kept = [(rc.constraint, rc.score, tuple(rc.chunk_ids)) for rc in ranking.kept]
        applied = [
            ConstraintOutcome(constraint_id=c.id, applied=True, reason=f"bound to {', '.join(ids) or 'retrieved chunks'}; ranked in top {len(kept)}", score=float(s))
            for c, s, ids in kept
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
        return self._enforce(record, query, passages, tuple(enforced), applied, not_applied, scores, started)

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
        """Sanitize ``(chunk_id, text)`` pairs under ``constraints`` (default: all of the policy's).

        ``query`` is only recorded (masked) in the audit log; it never reaches an enforcer.
        """
        started = time.perf_counter()
        record = DecisionRecord(outcome=Outcome.denied, principal=principal, purpose=purpose, trace_id=trace_id)
        chosen = tuple(self.policy.constraints if constraints is None else constraints)
        applied = [ConstraintOutcome(constraint_id=c.id, applied=True, reason="given by the caller") for c in chosen]
        items = tuple(Passage.of(chunk_id, text) for chunk_id, text in passages)
        return self._enforce(record, query, items, chosen, applied, [], {}, started)

    def ask(self, query: str, *, principal: str | None = None, purpose: str | None = None, trace_id: str | None = None) -> AskResult:
        """Protect, then answer with the local model when one is configured for ``answer``."""
        protected = self.protect(query, principal=principal, purpose=purpose, trace_id=trace_id)
        return self.answer(query, protected)

    def answer(self, query: str, protected: ProtectResult) -> AskResult:
        """Answer ``query`` from an already protected context (never from unredacted text).

        Answer-stage enforcers (output guard, DP decoding) then see the query,
        the sanitized chunks (as their "original") and the draft answer; any
        failure among them withholds the answer.
        """
        if protected.denied:
            return AskResult(answer=None, answered_by=None, protected=protected)
        text, answered_by = None, None
        if self.model is not None and self.answers:
            prompt = answer_prompt(query, protected.sanitized)
            self._observe(prompt)
            try:
                text, answered_by = complete(self.model, prompt, answer_length(query)), str(self.model.source)
            except DegenerateOutput as exc:  # a looping answer is refused, never returned
                return AskResult(answer=None, answered_by=None, protected=protected, refusal=str(exc))
        sanitized = tuple(Passage(c.chunk_id, c.text, c.text, c.withheld) for c in protected.chunks)
        decision = protected.decision
        context = EnforcementContext(passages=sanitized, constraints=(), query=query, answer=text, principal=decision.principal, purpose=decision.purpose)
        stage = self.pipeline.run(Stage.ANSWER, context)
        if stage.ran or stage.failure is not None:
            self._record_answer(decision, stage)
        if stage.failure is not None:
            return AskResult(answer=None, answered_by=None, protected=protected, refusal=stage.failure.reason)
        return AskResult(answer=stage.context.answer, answered_by=answered_by if stage.context.answer == text else "answer-stage enforcers", protected=protected)

    def _record_answer(self, protected: DecisionRecord, stage: PipelineResult) -> None:
        """One more record for the answer stage (DP spend, failures), linked by trace id; never the answer text."""
        record = DecisionRecord(
            outcome=Outcome.denied if stage.failure is not None else Outcome.allowed,
            principal=protected.principal,
            purpose=protected.purpose,
            trace_id=protected.trace_id or protected.decision_id,
            policy_name=self.policy.metadata.name,
            policy_revision=self.policy.revision or None,
            bundle_digest=self.bundle_digest,
            error=stage.failure.reason if stage.failure is not None else None,
            labels={"stage": "answer", "protect_decision": protected.decision_id},
        )
        self._record_stage(record, stage)
        spend = stage.context.privacy
        if spend:
            record.privacy = PrivacySpend(scope=str(spend["scope"]), epsilon_spent=float(spend["epsilon"]), delta_spent=float(spend["delta"]))
        if self.audit_sink is not None:
            self.audit_sink.write(record)

    def close(self) -> None:
        self.pipeline.close()
        if self.audit_sink is not None:
            self.audit_sink.close()

    # -------------------------------------------------------------- internals

    @staticmethod
    def _record_stage(record: DecisionRecord, result: PipelineResult) -> None:
        record.enforcers = record.enforcers + [EnforcerRun(name=n, version=v) for n, v in result.ran]
        record.stages = {**record.stages, **{f"enforce.{name}": ms for name, ms in result.timings_ms.items()}}

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
    ) -> ProtectResult:
        record.retrieved = [AuditChunk(chunk_id=p.chunk_id, score=chunk_scores.get(p.chunk_id)) for p in passages]
        context = EnforcementContext(passages=passages, constraints=constraints, principal=record.principal, purpose=record.purpose)
        result = self.pipeline.run(Stage.CONTEXT, context)
        self._record_stage(record, result)
        error = result.failure.reason if result.failure else None
        notes = result.context.notes + self.plan.notes()
        if self.plan.missing:
            record.labels = {**record.labels, "missing_enforcers": ",".join(self.plan.missing)}
        return self._finish(record, query, result.context if not result.denied else None, notes, applied, not_applied, started, error=error)

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
    ) -> ProtectResult:
        chunks = tuple(SanitizedChunk(p.chunk_id, p.text, p.withheld) for p in context.passages) if context else ()
        redactions = context.redactions if context else ()
        text = render_context([(c.chunk_id, c.text) for c in chunks])
        if context is None:
            outcome = Outcome.denied
        elif redactions or any(c.withheld for c in chunks):
            outcome = Outcome.redacted
        else:
            outcome = Outcome.allowed
        record.policy_name = self.policy.metadata.name
        record.policy_revision = self.policy.revision or None
        record.bundle_digest = self.bundle_digest
        record.constraints = list(applied) + list(not_applied)
        record.redactions = [
            AuditRedaction(constraint_id=r.constraint_id, category=r.category, chunk_id=r.chunk_id, start=r.start, end=r.end, replacement=r.replacement)
            for r in redactions
        ]
        record.outcome = outcome
        record.error = error
        record.input = {"query": query, "context": text} if query is not None else {"context": text}
        record.stages = {**record.stages, "total": (time.perf_counter() - started) * 1000.0}
        if self.audit_sink is not None:
            try:
                self.audit_sink.write(record)
            except Exception as exc:  # noqa: BLE001 - an unrecorded decision releases nothing
                denied = self._denied_copy(record, applied, not_applied, f"audit write failed ({type(exc).__name__})")
                return dataclasses.replace(denied, notes=notes + denied.notes)
        return ProtectResult(text, chunks, tuple(redactions), tuple(applied), tuple(not_applied), record, outcome, notes)

    @staticmethod
    def _denied_copy(record: DecisionRecord, applied: list[ConstraintOutcome], not_applied: list[ConstraintOutcome], reason: str) -> ProtectResult:
        denied = record.model_copy(update={"outcome": Outcome.denied, "error": reason, "redactions": [], "input": {}})
        return ProtectResult("", (), (), tuple(applied), tuple(not_applied), denied, Outcome.denied, (reason,))
