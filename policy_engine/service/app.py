"""The FastAPI application: :func:`create_app` over :class:`ServedBundles` and a :class:`ServerConfig`.

Routes run the library's request paths unchanged (same fail-closed
semantics, one decision record per protect or ask, written before the
response), on the threadpool (the engine is thread-safe).  A decision that
denies is still a 200 with ``outcome: denied``: the service answered, the
policy refused.  HTTP errors are for the caller: 401/403 (authentication,
recorded in the server log with a key fingerprint, never the key, and as a
``denied`` decision record in every served bundle's audit log,
:mod:`policy_engine.service.refusals`), 404 (no
such bundle), 409 (the served policy cannot do what was asked, e.g. ``dp``
without a ``differential_privacy`` section), 413/429/503 (:mod:`policy_engine.service.admission`), 422
(a malformed body; the error never echoes the input), 500 (the exception's
type only).

``/v1/ask`` returns the whole answer, never a stream: the answer-stage
enforcers (grounding, always on; output_guard and dp_decoding when ordered)
judge the complete answer before any of it is released, so no enforcer
configuration allows streaming it.

Shutdown (uvicorn's SIGTERM/SIGINT handling) stops admitting, lets in-flight
requests finish, then the lifespan closes every engine, which flushes and
closes the audit logs.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.errors import EngineError
from policy_engine.service import models as m
from policy_engine.service.admission import Admission, AdmissionMiddleware
from policy_engine.service.bundles import NotServed, ServedBundle, ServedBundles
from policy_engine.service.config import ApiKey, Authenticator, AuthError, ServerConfig, fingerprint
from policy_engine.service.metrics import ServiceMetrics
from policy_engine.service.refusals import record_refusal, refusal_record

logger = logging.getLogger("policy_engine.service")

ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": m.ErrorBody} for code in (401, 403, 404, 409, 413, 422, 429, 503)}


class ServiceApp(FastAPI):
    """FastAPI with the server's parts attached (``bundles``, ``metrics``, ``admission``)."""

    bundles: ServedBundles
    metrics: ServiceMetrics
    auth: Authenticator
    admission: Admission

    def identify(self, key: str | None, route: str) -> ApiKey:
        """The entry of ``key``; a 401 is logged (key fingerprint only) and recorded as a decision, then raised."""
        try:
            return self.auth.identify(key)
        except AuthError as exc:
            tag = fingerprint(key) if key else None
            logger.warning("%d %s on %s (key %s)", exc.status, exc, route, tag or "none")
            record_refusal(self.bundles, refusal_record(exc.status, str(exc), route, None, tag))
            raise

    def authorize(self, key: ApiKey, purpose: str | None, route: str) -> str | None:
        """The purpose ``key`` runs under; a 403 is logged and recorded as a decision (no purpose text), then raised."""
        try:
            return self.auth.authorize(key, purpose)
        except AuthError as exc:
            logger.warning("%d %s on %s (principal %s, key %s)", exc.status, exc, route, key.principal, key.sha256[:12])
            record_refusal(self.bundles, refusal_record(exc.status, str(exc), route, key.principal, key.sha256[:12]))
            raise


def _error(status: int, message: str, details: list[dict[str, Any]] | None = None) -> JSONResponse:
    return JSONResponse(m.ErrorBody(status=status, error=message, details=details).model_dump(exclude_none=True), status_code=status)


def _chunks(result: Any) -> list[dict[str, Any]]:
    """Each sanitized chunk with its text (what a framework adapter hands on per document)."""
    return [{"chunk_id": c.chunk_id, "withheld": c.withheld, "text": "" if c.withheld else c.text} for c in result.chunks]


def _presented_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key") or None


def create_app(bundles: ServedBundles, config: ServerConfig, *, owns_bundles: bool = True) -> ServiceApp:
    """The application over ``bundles``.

    With ``owns_bundles`` (what ``serve`` does) the lifespan starts opening
    them (``/readyz`` says when done) and closes them at shutdown, after the
    in-flight requests finished; otherwise the caller opens and closes them.
    """

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if owns_bundles:
            bundles.open_in_background()
        try:
            yield
        finally:
            app.admission.draining = True
            if owns_bundles:
                await run_in_threadpool(bundles.close)
                logger.info("shut down: engines closed, audit logs flushed")

    app = ServiceApp(title="policy-engine", version="1", summary="Policy-as-code privacy enforcement for RAG, as a service.", lifespan=lifespan, responses=ERRORS)
    app.bundles, app.metrics, app.auth = bundles, ServiceMetrics(), Authenticator(config)
    app.admission = Admission(config.limits, app.metrics, bundles.ready.is_set)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()]  # no "input": it may be raw text
        return _error(422, "the request body does not match the schema", details)

    @app.exception_handler(AuthError)
    async def _unauthorized(request: Request, exc: AuthError) -> JSONResponse:
        app.metrics.rejected.labels(f"auth_{exc.status}").inc()
        return _error(exc.status, str(exc))

    @app.exception_handler(EngineError)
    async def _cannot_serve(_: Request, exc: EngineError) -> JSONResponse:
        return _error(409, str(exc))  # the served policy cannot do what was asked (e.g. dp without a differential_privacy section)

    @app.exception_handler(NotServed)
    async def _not_served(_: Request, exc: NotServed) -> JSONResponse:
        return _error(404, str(exc))

    def caller(request: Request) -> ApiKey:
        return app.identify(_presented_key(request), request.url.path)

    def authorized(request: Request, key: ApiKey, body: m._Request) -> tuple[ServedBundle, str | None]:
        return bundles.get(body.bundle), app.authorize(key, body.purpose, request.url.path)

    def protect_response(endpoint: str, served: ServedBundle, result: Any) -> m.ProtectResponse:
        app.metrics.decision(endpoint, served.name, result.decision, result.outcome.value, None)
        return m.ProtectResponse.model_validate({**result.to_dict(), "chunks": _chunks(result)})

    @app.post("/v1/protect", response_model=m.ProtectResponse)
    def protect(request: Request, body: m.ProtectRequest, key: ApiKey = Depends(caller)) -> m.ProtectResponse:
        """Retrieve context for the question from the bundle and return it sanitized, with one decision record."""
        served, purpose = authorized(request, key, body)
        result = served.engine.protect(body.question, principal=key.principal, purpose=purpose, trace_id=body.trace_id)
        return protect_response("/v1/protect", served, result)

    @app.post("/v1/protect-passages", response_model=m.ProtectResponse)
    def protect_passages(request: Request, body: m.ProtectPassagesRequest, key: ApiKey = Depends(caller)) -> m.ProtectResponse:
        """Sanitize chunks the caller's own retriever found, under the named constraints (default all), with one decision record."""
        served, purpose = authorized(request, key, body)
        constraints = None
        if body.constraints is not None:
            known = {c.id: c for c in served.engine.policy.constraints}
            unknown = [c for c in body.constraints if c not in known]
            if unknown:
                raise NotServed(f"no such constraint in policy {served.name!r}: {', '.join(unknown)}")
            constraints = [known[c] for c in body.constraints]
        passages = [(p.chunk_id, p.text) for p in body.passages]
        result = served.engine.protect_passages(passages, constraints, query=body.question, principal=key.principal, purpose=purpose, trace_id=body.trace_id)
        return protect_response("/v1/protect-passages", served, result)

    @app.post("/v1/ask", response_model=m.AskResponse)
    def ask(request: Request, body: m.AskRequest, key: ApiKey = Depends(caller)) -> m.AskResponse:
        """Retrieve, protect and answer (with ``dp``: PEARL private decoding charged to the key's principal); one decision record."""
        served, purpose = authorized(request, key, body)
        engine = served.dp_engine() if body.dp else served.engine
        asked = engine.ask(body.question, principal=key.principal, purpose=purpose, trace_id=body.trace_id)
        app.metrics.decision("/v1/ask", served.name, asked.protected.decision, asked.outcome.value, asked.privacy)
        return m.AskResponse.model_validate({**asked.to_dict(), "chunks": _chunks(asked.protected)})

    @app.post("/v1/rewrite", response_model=m.RewriteResponse)
    def rewrite(request: Request, body: m.RewriteRequest, key: ApiKey = Depends(caller)) -> m.RewriteResponse:
        """The need-to-know rewrite of a question (query_rewrite); refused when no rewrite passes verification."""
        served, purpose = authorized(request, key, body)
        context = EnforcementContext(passages=(), constraints=tuple(served.engine.policy.constraints), query=body.question, principal=key.principal, purpose=purpose)
        result = served.pipeline_of("query_rewrite").run(Stage.QUERY, context)
        section = result.context.sections.get("query_rewrite")
        decision = section.model_dump(mode="json") if section is not None else None
        if result.failure is not None:
            answer = m.RewriteResponse(outcome="refused", question=None, reason=result.failure.reason, decision=decision)
        else:
            answer = m.RewriteResponse(outcome="rewritten", question=result.context.query, reason=None, decision=decision)
        app.metrics.outcomes.labels("/v1/rewrite", served.name, answer.outcome).inc()
        return answer

    @app.post("/v1/guard", response_model=m.GuardResponse)
    def guard(request: Request, body: m.GuardRequest, key: ApiKey = Depends(caller)) -> m.GuardResponse:
        """Run the output guard on an answer produced elsewhere; an abstained answer goes to the review queue."""
        served, purpose = authorized(request, key, body)
        context = EnforcementContext(passages=(), constraints=(), answer=body.answer, principal=key.principal, purpose=purpose)
        result = served.pipeline_of("output_guard").run(Stage.ANSWER, context)
        section = result.context.sections.get("output_guard")
        dumped = section.model_dump(mode="json") if section is not None else None
        refusal = result.context.refusal
        if result.failure is not None:
            answer = m.GuardResponse(outcome="denied", released=None, reason=result.failure.reason, output_guard=dumped)
        elif refusal is not None:
            answer = m.GuardResponse(outcome=refusal.outcome, released=None, reason=refusal.reason, output_guard=dumped)
        else:
            answer = m.GuardResponse(outcome="released", released=result.context.answer, reason=None, output_guard=dumped)
        app.metrics.outcomes.labels("/v1/guard", served.name, answer.outcome).inc()
        return answer

    @app.post("/v1/lint", response_model=m.LintResponse)
    def lint(body: m.LintRequest, _: ApiKey = Depends(caller)) -> m.LintResponse:
        """Lint one policy file's YAML text as ``policy-engine lint -f json`` would."""
        from policy_engine.lint import lint as run_lint
        from policy_engine.lint.formats import render_json

        with tempfile.TemporaryDirectory(prefix="pe-lint-") as directory:
            path = Path(directory) / "policy.yaml"
            path.write_text(body.policy, encoding="utf-8")
            report = run_lint([path])
            text = render_json(report).replace(str(Path(directory)) + "/", "")
        return m.LintResponse(exit_code=int(report.exit_code()), report=json.loads(text))

    @app.get("/healthz", response_model=m.Health)
    def healthz() -> m.Health:
        """Liveness: the process answers."""
        return m.Health(status="ok")

    @app.get("/readyz", response_model=m.Health, responses={503: {"model": m.Health}})
    def readyz() -> Any:
        """Readiness: every bundle is open and its models loaded (503 while opening, or for good when one failed)."""
        if bundles.ready.is_set() and not app.admission.draining:
            return m.Health(status="ready", bundles=sorted(bundles.bundles))
        reason = "draining" if app.admission.draining else ("failed to open: " + bundles.failure if bundles.failure else "opening")
        return JSONResponse(m.Health(status="unready", reason=reason).model_dump(), status_code=503)

    @app.get("/metrics", response_class=Response)
    def metrics() -> Response:
        """Prometheus metrics (text format)."""
        return Response(app.metrics.render(), media_type=ServiceMetrics.content_type)

    from policy_engine.service.console.routes import add_console

    add_console(app)
    app.admission.routes = frozenset(getattr(r, "path", "") for r in app.routes)
    app.add_middleware(AdmissionMiddleware, admission=app.admission)
    return app
