"""The review console (issue 34, item 3) against a real ``policy-engine serve`` on loopback.

The queue items come from the real engine: ``POST /v1/guard`` runs the output
guard of a bundle that has a ``quasi_identifiers`` section, and the answers it
withholds land in the review queue.  The browser test drives Debian's
``chromium`` through Playwright (skipped only when either is missing) and
saves its screenshots to a temporary folder, or to ``bench/results/console/`` when
``$POLICY_ENGINE_CONSOLE_SHOTS`` is set (so a test run leaves the committed ones alone); the HTTP test checks
the console's refusals without a browser.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service extra is not installed: pip install 'policy-engine[service]'")

import httpx  # noqa: E402

from audit.records import DecisionRecord  # noqa: E402
from audit.sources import iter_decisions  # noqa: E402
from policy_engine.service.config import hash_key  # noqa: E402
from tests.compile_support import copy_fixture  # noqa: E402
from tests.serve_support import ready_base_url  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "bench" / "results" / "console" if os.environ.get("POLICY_ENGINE_CONSOLE_SHOTS") else Path(tempfile.mkdtemp(prefix="console-shots-"))
REVIEWER_KEY, NURSE_KEY, AUDIT_KEY = "reviewer-key-0001", "nurse-key-0001", "console-test-audit-key-0123456789"
QI = "quasi_identifiers: {domain: medical, classes: [AGE, OCCUPATION, LOCATION, AFFILIATION, FAMILY, CONDITION, TREATMENT, VISIT_PATTERN], max_per_subject: 2}\n"
EMAILS = "constraints:\n  - id: no-emails\n    statement: Never reveal e-mail addresses.\n    severity: critical\n    detect: {categories: [contact]}\n"
#: Withheld by the guard: a critical direct identifier (refused) and a doubtful answer with no subject to generalize (abstained).
REFUSED = "Maria Lopez is 52, works as a welder in Omaha and has asthma; write to maria.lopez@example.com."
ABSTAINED = "Married, two kids, works nights."
#: Values of the withheld answers that no console page may show.
RAW = ("Maria Lopez", "maria.lopez@example.com", REVIEWER_KEY, NURSE_KEY)


@dataclass(frozen=True)
class Server:
    base: str
    log: Path
    env: dict[str, str]


def _bundle(root: Path) -> Path:
    """The fixture with a critical e-mail constraint and a quasi-identifier section, compiled."""
    from policy_engine.bundle.reader import compile_bundle

    policy = copy_fixture(root / "policy")
    text = policy.read_text(encoding="utf-8")
    policy.write_text(text.replace("constraints:\n", EMAILS, 1) + QI, encoding="utf-8")
    compile_bundle(policy, root / "bundle")
    return root / "bundle"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``policy-engine serve`` of a guarded copy of the fixture; a reviewer and a nurse key; two answers the guard withheld."""
    from policy_engine.bundle.reader import Bundle

    root = tmp_path_factory.mktemp("console")
    bundle = _bundle(root)
    config = root / "server.yaml"
    config.write_text(
        f"keys:\n  - principal: officer-1\n    sha256: {hash_key(REVIEWER_KEY)}\n    purposes: [review]\n"
        f"  - principal: nurse-7\n    sha256: {hash_key(NURSE_KEY)}\n    purposes: [care]\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "POLICY_ENGINE_AUDIT_KEY": AUDIT_KEY}
    command = [sys.executable, str(ROOT / "click_cli.py"), "serve", str(bundle), "--config", str(config), "--port", "0"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        lines: list[str] = []
        base = ready_base_url(process, lines)
        for answer, outcome in ((REFUSED, "refused"), (ABSTAINED, "abstained")):
            guarded = httpx.post(f"{base}/v1/guard", json={"answer": answer}, headers={"Authorization": f"Bearer {NURSE_KEY}"}, timeout=120).json()
            assert guarded["output_guard"]["action"] == outcome and guarded["output_guard"]["review_item"], guarded
        policy = Bundle.open(bundle).policy
        yield Server(base, policy.resolve_path(policy.audit.log), env)
    finally:
        process.terminate()
        process.wait(60)


def _records(log: Path) -> list[DecisionRecord]:
    return [record for _, record in iter_decisions([log])] if log.exists() else []


def _login(client: httpx.Client, key: str) -> httpx.Response:
    return client.post("/console/login", data={"key": key})


def test_console_refuses_without_a_session_without_the_review_purpose_and_without_the_csrf_token(server: Server) -> None:
    before = {r.decision_id for r in _records(server.log)}
    with httpx.Client(base_url=server.base) as anonymous:
        assert anonymous.get("/console/queue").headers["location"] == "/console/login"
        unknown = _login(anonymous, "not-a-key-1234")
    assert unknown.status_code == 401 and "unknown API key" in unknown.text and "not-a-key-1234" not in unknown.text
    with httpx.Client(base_url=server.base) as nurse:
        logged_in = _login(nurse, NURSE_KEY)
        cookie = logged_in.headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower() and NURSE_KEY not in cookie
        forbidden = nurse.get("/console/queue")
    assert forbidden.status_code == 403 and "review" in forbidden.text
    with httpx.Client(base_url=server.base) as reviewer:
        _login(reviewer, REVIEWER_KEY)
        queue = reviewer.get("/console/queue")
        item = re.search(r'href="(/console/queue/[^"/]+/[0-9a-f]+)"', queue.text)
        assert queue.status_code == 200 and item, queue.text[:500]
        forged = reviewer.post(item.group(1), data={"decision": "approve", "csrf": "forged"})
        still = reviewer.get(item.group(1))
    assert forged.status_code == 400 and 'id="status">pending<' in still.text
    assert "[CONTACT]" in still.text and [v for v in RAW if v in queue.text + still.text] == [], "a page shows a raw value"
    assert "default-src 'none'" in queue.headers["content-security-policy"]
    new = [r for r in _records(server.log) if r.decision_id not in before]
    refusals = sorted((r.labels["http_status"], r.principal, r.labels["route"]) for r in new if r.labels.get("stage") == "authentication")
    assert refusals == [("401", None, "/console/login"), ("403", "nurse-7", "/console/queue")]
    leaked = [v for v in ("not-a-key-1234", NURSE_KEY) for r in new if v in r.model_dump_json()]
    assert leaked == []


def _labels_fit(page: object) -> int:
    """Assert no header cell, label, term or button clips its text; returns how many were measured."""
    overflowing = page.evaluate(  # type: ignore[attr-defined]
        """() => [...document.querySelectorAll('th, label, dt, button, .tag')]
             .filter(e => getComputedStyle(e).display !== 'inline')
             .map(e => [e.textContent.trim(), e.scrollWidth, e.clientWidth])"""
    )
    clipped = [(text, scroll, client) for text, scroll, client in overflowing if scroll > client]
    assert clipped == [], clipped
    return len(overflowing)


def test_a_review_round_trips_in_headless_chromium(server: Server) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install 'policy-engine[dev]'")
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(f"{server.base}/console/queue")
        assert page.url.endswith("/console/login")
        page.fill("#key", REVIEWER_KEY)
        page.click("button[type=submit]")
        assert page.url.endswith("/console/queue") and page.inner_text("#principal") == "officer-1"
        assert page.locator("tbody tr").count() >= 2 and "critical direct identifier" in page.inner_text("table")
        _labels_fit(page)
        page.screenshot(path=str(SHOTS / "queue.png"), full_page=True)
        pages.append(page.content())

        page.locator("tbody tr", has_text="critical direct identifier").locator("a").first.click()
        answer = page.inner_text("#answer")
        assert "[CONTACT]" in answer and "works as a [OCCUPATION]" in answer, answer
        _labels_fit(page)
        page.screenshot(path=str(SHOTS / "item-refused.png"), full_page=True)
        pages.append(page.content())

        page.click("nav >> text=Review queue")
        page.locator("tbody tr", has_text="doubtful").locator("a").first.click()
        page.fill("#comment", "General remark, no person can be singled out: release it.")
        page.screenshot(path=str(SHOTS / "item-abstained.png"), full_page=True)
        page.click("button.approve")
        recorded = page.inner_text("#recorded")
        assert page.inner_text("#status") == "approved" and page.inner_text("#reviewer") == "officer-1"
        _labels_fit(page)
        page.screenshot(path=str(SHOTS / "item-approved.png"), full_page=True)
        pages.append(page.content())

        page.click("nav >> text=Audit log")
        page.fill("#principal-filter", "officer-1")
        page.select_option("#outcome", "allowed")
        page.click("form.filters button")
        assert "principal=officer-1" in page.url and recorded in page.inner_text("table")
        assert page.inner_text("#count").startswith("1 matching record")
        _labels_fit(page)
        page.screenshot(path=str(SHOTS / "audit.png"), full_page=True)
        pages.append(page.content())

        page.click("nav >> text=Budgets")
        budget = page.inner_text("#budgets")
        assert "officer-1" in budget, budget
        measured = _labels_fit(page)
        page.screenshot(path=str(SHOTS / "budget.png"), full_page=True)
        pages.append(page.content())
        browser.close()
    assert measured >= 6
    assert [(v, i) for i, html in enumerate(pages) for v in RAW if v in html] == [], "a raw value reached a page"
    record = next(r for r in _records(server.log) if r.decision_id == recorded)
    assert (record.principal, record.purpose, record.outcome.value) == ("officer-1", "review", "allowed")
    assert record.labels["resolution"] == "approved" and "note_sha256" in record.enforcement["output_guard"]
    verified = subprocess.run(
        [sys.executable, str(ROOT / "click_cli.py"), "audit", "verify", str(server.log)], cwd=ROOT, env=server.env, capture_output=True, text=True, timeout=120
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
