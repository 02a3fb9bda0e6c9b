"""The ``/console`` pages of the service app (excluded from the OpenAPI schema: they are for browsers).

* ``GET/POST /console/login``: the form posts an API key; a known key opens a
  session (:mod:`.sessions`); an unknown one is a 401 page and, like every
  401/403 of the service, a decision record.  ``POST /console/logout`` ends it.
* ``GET /console/queue``, ``GET/POST /console/queue/{bundle}/{item}``: the
  review queue and one item (sanitized answer, reasons, scores) with an
  approve/reject form and a comment; the resolution is written through the
  bundle's open audit sink with the session's principal as the reviewer.
* ``GET /console/audit``: the bundle's decision records filtered by
  principal, outcome, constraint and time range, 25 a page, newest first.
* ``GET /console/budget``: epsilon spent and left per principal.

Every page but the login needs a session whose key allows the purpose
``review`` (:data:`enforcers.output_guard.reviews.REVIEW_PURPOSE`, or
``"*"``); another key gets 403.  Every POST needs the session's CSRF token.
Responses forbid caching, framing, scripts and any resource from elsewhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.concurrency import run_in_threadpool

from audit.query import RecordFilter
from audit.records import Outcome
from audit.timestamps import when
from enforcers.output_guard.review_queue import ReviewQueueError
from enforcers.output_guard.reviews import REVIEW_PURPOSE, open_queue, resolve
from policy_engine.errors import PolicyEngineError
from policy_engine.service.bundles import ServedBundle
from policy_engine.service.config import AuthError
from policy_engine.service.console import views
from policy_engine.service.console.sessions import COOKIE, Session, SessionStore

HERE = Path(__file__).parent
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class ConsoleRefusal(PolicyEngineError, PermissionError):
    """A console request that may not proceed: ``status`` 401 (log in first), 403 or 400 (a bad CSRF token or form)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def add_console(app: Any) -> None:
    """Add the console routes, its session store (``app.sessions``) and its error page to ``app`` (a ``ServiceApp``)."""
    templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["j2"]), trim_blocks=True, lstrip_blocks=True)
    templates.globals.update(when=when)
    app.sessions = SessionStore()

    def page(name: str, http_status: int = 200, session: Session | None = None, **values: Any) -> HTMLResponse:
        html = templates.get_template(name).render(session=session, **values)
        return HTMLResponse(html, status_code=http_status, headers=HEADERS)

    def reviewer(request: Request) -> Session:
        session = app.sessions.get(request.cookies.get(COOKIE))
        if session is None:
            raise ConsoleRefusal(401, "log in first")
        try:
            app.authorize(session.key, REVIEW_PURPOSE, request.url.path)
        except AuthError:
            raise ConsoleRefusal(403, f"principal {session.key.principal!r} may not review: its key lacks the purpose '{REVIEW_PURPOSE}'") from None
        return session

    async def form(request: Request) -> dict[str, str]:
        body = await request.body()
        if len(body) > app.admission.limits.max_body_bytes:
            raise ConsoleRefusal(400, f"form over {app.admission.limits.max_body_bytes} bytes")
        return {k: v[0] for k, v in parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True).items()}

    def bundle(name: str | None) -> ServedBundle:
        return app.bundles.get(name or next(iter(sorted(app.bundles.bundles)), None))

    @app.exception_handler(ConsoleRefusal)
    async def _refused(request: Request, exc: ConsoleRefusal) -> Response:
        if exc.status == 401:
            return RedirectResponse("/console/login", status_code=303, headers=HEADERS)
        return page("error.html.j2", exc.status, app.sessions.get(request.cookies.get(COOKIE)), code=exc.status, message=str(exc))

    @app.get("/console", include_in_schema=False)
    def console_home() -> RedirectResponse:
        return RedirectResponse("/console/queue", status_code=303, headers=HEADERS)

    @app.get("/console/static/console.css", include_in_schema=False)
    def console_css() -> Response:
        return Response((HERE / "static" / "console.css").read_bytes(), media_type="text/css", headers={"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"})

    @app.get("/console/login", include_in_schema=False)
    def login_page() -> HTMLResponse:
        return page("login.html.j2")

    @app.post("/console/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        key = (await form(request)).get("key", "").strip() or None
        try:
            entry = await run_in_threadpool(app.identify, key, "/console/login")
        except AuthError as exc:
            return page("login.html.j2", exc.status, error=str(exc))
        token, _ = app.sessions.open(entry)
        answer = RedirectResponse("/console/queue", status_code=303, headers=HEADERS)
        answer.set_cookie(COOKIE, token, max_age=int(app.sessions.lifetime_s), path="/console", httponly=True, samesite="strict")
        return answer

    @app.post("/console/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        session = app.sessions.get(request.cookies.get(COOKIE))
        if session is not None and session.csrf_ok((await form(request)).get("csrf")):
            app.sessions.close(request.cookies.get(COOKIE))
        answer = RedirectResponse("/console/login", status_code=303, headers=HEADERS)
        answer.delete_cookie(COOKIE, path="/console")
        return answer

    @app.get("/console/queue", include_in_schema=False)
    def queue(request: Request, status: str = "pending") -> HTMLResponse:
        session = reviewer(request)
        status = status if status in ("pending", "approved", "rejected", "all") else "pending"
        rows = views.queue_rows(app.bundles.bundles, None if status == "all" else status)
        return page("queue.html.j2", session=session, rows=rows, status=status)

    @app.get("/console/queue/{bundle_name}/{item_id}", include_in_schema=False)
    def item(request: Request, bundle_name: str, item_id: str, recorded: str | None = None) -> HTMLResponse:
        session = reviewer(request)
        served = bundle(bundle_name)
        try:
            found = open_queue(served.engine.policy).get(item_id)
        except ReviewQueueError:
            raise ConsoleRefusal(404, "no such review item") from None
        return page("item.html.j2", session=session, bundle=bundle_name, item=found, view=views.item_view(served, found), recorded=recorded)

    @app.post("/console/queue/{bundle_name}/{item_id}", include_in_schema=False)
    async def decide(request: Request, bundle_name: str, item_id: str) -> Response:
        session = await run_in_threadpool(reviewer, request)
        fields = await form(request)
        if not session.csrf_ok(fields.get("csrf")):
            raise ConsoleRefusal(400, "the form's CSRF token does not match this session: reload the page")
        decision = {"approve": "approved", "reject": "rejected"}.get(fields.get("decision", ""))
        if decision is None:
            raise ConsoleRefusal(400, "decide 'approve' or 'reject'")
        served = bundle(bundle_name)
        comment = fields.get("comment", "").strip() or None
        try:
            _, decision_id = await run_in_threadpool(resolve, served.engine.policy, item_id, decision, session.key.principal, comment, served.engine.audit_sink)
        except ReviewQueueError as exc:
            raise ConsoleRefusal(409, str(exc).split(" in /")[0]) from None
        target = f"/console/queue/{quote(bundle_name)}/{quote(item_id)}?recorded={quote(decision_id)}"
        return RedirectResponse(target, status_code=303, headers=HEADERS)

    @app.get("/console/audit", include_in_schema=False)
    def audit(request: Request, bundle_name: str | None = None, principal: str = "", outcome: str = "", constraint: str = "", since: str = "", until: str = "", page_number: int = 1) -> HTMLResponse:
        session = reviewer(request)
        served = bundle(bundle_name)
        filters = {"principal": principal, "outcome": outcome, "constraint": constraint, "since": since, "until": until}
        try:
            record_filter = RecordFilter(
                since=views.parse_time(since), until=views.parse_time(until), principal=principal or None,
                constraint=constraint or None, outcome=Outcome(outcome) if outcome else None,
            )
        except ValueError:
            raise ConsoleRefusal(400, "times are YYYY-MM-DDTHH:MM (UTC); outcome is one of " + ", ".join(views.OUTCOMES)) from None
        shown = views.audit_page(served, record_filter, page_number)
        query = "&".join(f"{k}={quote(v)}" for k, v in {"bundle_name": served.name, **filters}.items() if v)
        return page(
            "audit.html.j2", session=session, bundle=served.name, bundles=sorted(app.bundles.bundles), filters=filters, outcomes=views.OUTCOMES,
            shown=shown, query=query, applied=views.applied_constraints,
        )

    @app.get("/console/budget", include_in_schema=False)
    def budget(request: Request, bundle_name: str | None = None) -> HTMLResponse:
        session = reviewer(request)
        served = bundle(bundle_name)
        return page("budget.html.j2", session=session, bundle=served.name, bundles=sorted(app.bundles.bundles), rows=views.budgets(served))

