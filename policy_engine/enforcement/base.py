"""The enforcer protocol and the fail-closed pipeline that runs enforcers.

Every enforcer (redaction now; knowledge-graph erasure, query rewriting,
output guard and DP decoding later) is a small object with a ``name``, a
``version``, a ``stage`` and one method::

    def apply(self, context: EnforcementContext) -> EnforcementContext: ...

``apply`` returns a *new* context (contexts are immutable); it may raise, and
it may be slow: the :class:`EnforcementPipeline`, not the enforcer, turns
every failure into a safe outcome (fail closed, issue 4 item 5).

Stages carry the SD-RAG "prompt sanitization principle" (Section III-B): no
prompt whose output reaches the user may hold both unfiltered data and the
unfiltered query.  The pipeline therefore hands :attr:`Stage.CONTEXT`
enforcers (the ones that read retrieved text) a context whose ``query`` is
``None``, whatever the caller put there; only :attr:`Stage.QUERY` enforcers
(before retrieval) and :attr:`Stage.ANSWER` enforcers (after the context is
sanitized) see the query.

To add an enforcer: write one module in ``enforcers/`` with a class that has
the members above plus ``has_work`` and ``from_parts``, decorated with
:func:`policy_engine.enforcement.registry.register_enforcer`.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from audit.records import PrivacySpend, Redaction
from policy_engine.errors import PolicyEngineError
from policy_engine.policy.model import Constraint

#: Text that replaces a whole passage when the pipeline masks it after a failure.
WITHHELD_TEXT = "[WITHHELD]"


class Stage(str, enum.Enum):
    """When an enforcer runs, and therefore what it may see."""

    QUERY = "query"  # before retrieval: sees the query, no retrieved text
    CONTEXT = "context"  # on retrieved text: never sees the query
    ANSWER = "answer"  # after sanitization: sees the query, sanitized text and the answer


@dataclass(frozen=True)
class Passage:
    """One retrieved chunk on its way through the pipeline.

    ``original`` is the chunk as retrieved (offsets of redactions refer to
    it); ``text`` is its current, possibly redacted, form.
    """

    chunk_id: str
    original: str
    text: str
    withheld: bool = False

    @classmethod
    def of(cls, chunk_id: str, text: str) -> Passage:
        return cls(chunk_id=chunk_id, original=text, text=text)


#: A span of an original chunk that an enforcer replaced (offsets, replacement, mode; never the raw value).
#: The same type the decision record stores and the CLI prints: :class:`audit.records.Redaction`.
RedactionSpan = Redaction


class FindingLike(Protocol):
    constraint_id: str
    category: str
    start: int
    end: int
    score: float
    role: str | None
    entity_key: str | None


class SpanDetector(Protocol):
    """Finds the spans that ``constraints`` protect (``policy_engine.detect.Analyzer``).

    ``analyze_many`` returns one list of findings per text, with entity keys
    consistent across all the texts of one call (one retrieved context).
    """

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint]) -> Sequence[Sequence[FindingLike]]: ...


class Paraphraser(Protocol):
    """Rewrites ``text`` so that ``constraints`` hold (a model; never given the user's query)."""

    def paraphrase(self, text: str, constraints: Sequence[Constraint]) -> str: ...


@dataclass(frozen=True)
class Refusal:
    """An enforcer's decision to withhold the answer; ``reason`` names why and holds no raw data.

    ``outcome`` is the decision record's outcome: ``denied`` (a policy or
    budget forbids it) or ``abstained`` (the enforcer cannot judge it safe).
    """

    outcome: Literal["denied", "abstained"]
    reason: str


def restore_placeholders(text: str, placeholders: Mapping[str, str]) -> str:
    """``text`` with each placeholder token a query-stage enforcer put in the query replaced by the value it stands for."""
    for token, value in placeholders.items():
        text = text.replace(token, value)
    return text


@dataclass(frozen=True)
class EnforcementContext:
    """Everything an enforcer reads and returns (immutable; use :meth:`evolve`).

    ``notes`` are human-readable audit notes; by contract they never contain
    raw text from passages or the query.  ``principal`` and ``purpose`` say
    who asks and why (privacy budgets are per principal; necessity rules
    depend on the purpose).  ``decision_id`` is the id of the decision record
    the request will write (an enforcer that reserves budget reserves it
    under this id, so the pipeline can settle it on a timeout).
    """

    passages: tuple[Passage, ...]
    constraints: tuple[Constraint, ...]
    query: str | None = None
    principal: str | None = None
    purpose: str | None = None
    decision_id: str | None = None
    answer: str | None = None
    redactions: tuple[RedactionSpan, ...] = ()
    notes: tuple[str, ...] = ()
    privacy: PrivacySpend | None = None  # DP spend of an answer stage (scope and numbers only)
    refusal: Refusal | None = None
    sections: Mapping[str, Any] = field(default_factory=dict)  # enforcer name -> its typed decision-record section
    placeholders: Mapping[str, str] = field(default_factory=dict)  # token in ``query`` -> the value it stands for: local only, never recorded

    def evolve(self, **changes: object) -> EnforcementContext:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)

    def noted(self, *notes: str) -> EnforcementContext:
        return self.evolve(notes=self.notes + tuple(notes))

    def with_section(self, enforcer: str, section: Any) -> EnforcementContext:
        """A copy carrying ``enforcer``'s decision-record section (a pydantic model; no raw values)."""
        return self.evolve(sections={**self.sections, enforcer: section})

    def refused(self, outcome: Literal["denied", "abstained"], reason: str) -> EnforcementContext:
        """A copy whose answer is withheld for ``reason``."""
        return self.evolve(answer=None, refusal=Refusal(outcome, reason))


@runtime_checkable
class Enforcer(Protocol):
    """What every enforcer provides."""

    name: str
    version: str
    stage: Stage

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        """Enforce on ``context`` and return the new context; may raise (the pipeline fails closed)."""
        ...


@runtime_checkable
class Abandonable(Protocol):
    """An enforcer that spends privacy budget while it runs (dp_decoding) also has ``abandon``.

    The pipeline calls it, on its own thread, when it gives up on the
    enforcer's ``apply`` for ``context`` (a timeout): the enforcer settles
    what it has spent so far, stops spending, and returns that spend (or
    ``None``), which the failed context carries into the decision record.
    """

    def abandon(self, context: EnforcementContext) -> PrivacySpend | None: ...


@dataclass(frozen=True)
class EnforcerFailure:
    """Why the pipeline stopped: which enforcer, and the kind of failure (no message text, which may quote data)."""

    enforcer: str
    kind: str

    @property
    def reason(self) -> str:
        return f"enforcer {self.enforcer!r} failed ({self.kind}); failing closed"


@dataclass(frozen=True)
class PipelineResult:
    """The context after a stage, the enforcers that ran, and the failure if one occurred.

    When ``failure`` is set and the policy says ``deny``, ``denied`` is true and
    ``context.passages`` is empty; with ``mask`` every passage is withheld.
    """

    context: EnforcementContext
    ran: tuple[tuple[str, str], ...] = ()
    failure: EnforcerFailure | None = None
    denied: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    interrupt: BaseException | None = None  # SystemExit/KeyboardInterrupt: re-raise once the decision is recorded


OnError = Literal["deny", "mask"]


class EnforcementPipeline:
    """Runs enforcers in the declared order and fails closed.

    Contract: an exception, a timeout (``timeout_s`` per enforcer) or a
    malformed return value of any enforcer yields either a denial (no
    passages at all, ``on_error="deny"``) or every passage replaced by
    :data:`WITHHELD_TEXT` (``on_error="mask"``); the text that enforcer was
    given is never released.  Safe to call from many threads at once.
    """

    def __init__(self, enforcers: Sequence[Enforcer], on_error: OnError = "deny", timeout_s: float = 30.0, workers: int = 8) -> None:
        if on_error not in ("deny", "mask"):
            raise ValueError(f"on_error must be 'deny' or 'mask', not {on_error!r}")
        self.enforcers = tuple(enforcers)
        self.on_error: OnError = on_error
        self.timeout_s = timeout_s
        self._workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="enforcer")
            return self._executor

    def run(self, stage: Stage, context: EnforcementContext) -> PipelineResult:
        """Apply this pipeline's enforcers of ``stage`` to ``context``, in order."""
        ran: list[tuple[str, str]] = []
        timings: dict[str, float] = {}
        if stage is Stage.CONTEXT:
            context = context.evolve(query=None)
        for enforcer in (e for e in self.enforcers if e.stage is stage):
            started = time.perf_counter()
            try:
                future = self._pool().submit(enforcer.apply, context)
                # an enforcer may declare a longer timeout it measured it needs (dp_decoding)
                result = future.result(timeout=max(self.timeout_s, getattr(enforcer, "timeout_s", None) or 0.0))
                _check_result(context, result)
            except FutureTimeout:
                future.cancel()
                failed = self._failed(context, ran, timings, EnforcerFailure(enforcer.name, "timeout"))
                return _abandoned(enforcer, context, failed)
            except BaseException as exc:  # noqa: BLE001 - any failure, SystemExit included, must fail closed
                failed = self._failed(context, ran, timings, EnforcerFailure(enforcer.name, type(exc).__name__))
                return failed if isinstance(exc, Exception) else dataclasses.replace(failed, interrupt=exc)
            finally:
                timings[enforcer.name] = (time.perf_counter() - started) * 1000.0
            ran.append((enforcer.name, enforcer.version))
            context = result.evolve(query=None) if stage is Stage.CONTEXT else result
        return PipelineResult(context=context, ran=tuple(ran), timings_ms=timings)

    def _failed(
        self,
        context: EnforcementContext,
        ran: list[tuple[str, str]],
        timings: dict[str, float],
        failure: EnforcerFailure,
    ) -> PipelineResult:
        if self.on_error == "deny":
            safe = context.evolve(passages=(), answer=None, redactions=()).noted(failure.reason)
            return PipelineResult(context=safe, ran=tuple(ran), failure=failure, denied=True, timings_ms=timings)
        masked = tuple(dataclasses.replace(p, text=WITHHELD_TEXT, withheld=True) for p in context.passages)
        safe = context.evolve(passages=masked, answer=None).noted(failure.reason + ": all passages withheld")
        return PipelineResult(context=safe, ran=tuple(ran), failure=failure, denied=False, timings_ms=timings)

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None


def _abandoned(enforcer: Enforcer, context: EnforcementContext, failed: PipelineResult) -> PipelineResult:
    """``failed`` carrying what an :class:`Abandonable` enforcer spent before the pipeline gave up on it.

    A failure to settle leaves the spend out of the record (the ledger then still
    holds the open reservation, and the audit report shows the scope unreconciled).
    """
    if not isinstance(enforcer, Abandonable):
        return failed
    try:
        spend = enforcer.abandon(context)
    except Exception as exc:  # noqa: BLE001 - the request is already denied; say why the spend is missing
        return dataclasses.replace(failed, context=failed.context.noted(f"{enforcer.name}: its spend could not be settled ({type(exc).__name__})"))
    return dataclasses.replace(failed, context=failed.context.evolve(privacy=spend)) if spend is not None else failed


class MalformedEnforcerOutput(PolicyEngineError, RuntimeError):
    """An enforcer returned something other than a context over the same passages."""


def _check_result(before: EnforcementContext, after: object) -> None:
    if not isinstance(after, EnforcementContext):
        raise MalformedEnforcerOutput(f"expected EnforcementContext, got {type(after).__name__}")
    if tuple(p.chunk_id for p in after.passages) != tuple(p.chunk_id for p in before.passages):
        raise MalformedEnforcerOutput("an enforcer may not add, drop or reorder passages")
    if any(a.original != b.original for a, b in zip(after.passages, before.passages)):
        raise MalformedEnforcerOutput("an enforcer may not change a passage's original text")
