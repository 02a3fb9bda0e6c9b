"""``policy-engine serve``: the HTTP service over the real engine on the compiled fixture bundle.

FastAPI's TestClient drives the real application (admission, auth, routes,
the engine, the audit log on disk); one engine is opened for the module and
each test builds the app it needs over it.  The last test lets an app that
owns the bundles shut down and checks the engine closed and the log verifies.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service extra is not installed: pip install 'policy-engine[service]'")

from fastapi.testclient import TestClient  # noqa: E402

from audit.keys import load_keyring  # noqa: E402
from audit.sources import iter_decisions, verify_path  # noqa: E402
from policy_engine.service.app import ServiceApp, create_app  # noqa: E402
from policy_engine.service.bundles import ServedBundles  # noqa: E402
from policy_engine.service.config import ApiKey, Limits, ServerConfig, hash_key  # noqa: E402
from policy_engine.service.openapi import FILE_NAME, openapi_text  # noqa: E402
from tests.compile_support import compiled_fixture  # noqa: E402
from tests.serve_support import ready_base_url  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NURSE_KEY, NURSE_NEW_KEY, BILLING_KEY = "nurse-key-0001", "nurse-key-0002", "billing-key-0001"
#: Values that must never reach an error body or the server log.
RAW = ("Maria Lopez", "555-123-4567", NURSE_KEY, "unknown-key-9999", "asthma")


def _config(*keys: tuple[str, str, tuple[str, ...]], **limits: float) -> ServerConfig:
    return ServerConfig(keys=tuple(ApiKey(principal=p, sha256=hash_key(k), purposes=purposes) for k, p, purposes in keys), limits=Limits(**limits))


ROTATING = _config((NURSE_KEY, "nurse-7", ("care",)), (NURSE_NEW_KEY, "nurse-7", ("care",)), (BILLING_KEY, "billing", ("billing", "audit")))


@pytest.fixture(scope="module")
def served() -> Iterator[ServedBundles]:
    bundles = ServedBundles([compiled_fixture()[1]])
    bundles.open_in_background()
    assert bundles.wait(300), bundles.failure
    yield bundles
    bundles.close()


def _client(served: ServedBundles, config: ServerConfig = ROTATING) -> TestClient:
    return TestClient(create_app(served, config, owns_bundles=False))


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _log(served: ServedBundles) -> Path:
    engine = next(iter(served.bundles.values())).engine
    return engine.policy.resolve_path(engine.policy.audit.log)


def _decisions(served: ServedBundles) -> dict[str, object]:
    log = _log(served)
    return {record.decision_id: record for _, record in iter_decisions([log])} if log.exists() else {}


def _verify(served: ServedBundles) -> None:
    engine = next(iter(served.bundles.values())).engine
    report = verify_path(_log(served), load_keyring(engine.policy.audit))
    assert report.ok, report.problem


def test_health_readiness_and_metrics(served: ServedBundles) -> None:
    with _client(served) as client:
        assert client.get("/healthz").json()["status"] == "ok"
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["bundles"] == ["mini-clinic"]
        client.post("/v1/protect", json={"question": "Who is the patient?"}, headers=_auth(NURSE_KEY))
        metrics = client.get("/metrics").text
    assert 'policy_engine_requests_total{endpoint="/v1/protect",status="200"} 1.0' in metrics
    assert 'policy_engine_outcomes_total{bundle="mini-clinic",endpoint="/v1/protect"' in metrics
    assert 'policy_engine_stage_seconds_count{bundle="mini-clinic",stage="total"} 1.0' in metrics


def test_unready_server_answers_503(tmp_path: Path) -> None:
    """A bundle that does not open leaves the server unready: every /v1 request is a 503, never a half-served answer."""
    broken = tmp_path / "not-a-bundle"
    broken.mkdir()
    bundles = ServedBundles([broken])
    with TestClient(create_app(bundles, ROTATING)) as client:
        bundles.wait(60)
        assert client.get("/readyz").status_code == 503 and "failed to open" in client.get("/readyz").json()["reason"]
        answer = client.post("/v1/protect", json={"question": "Who?"}, headers=_auth(NURSE_KEY))
    assert answer.status_code == 503 and answer.headers["retry-after"]


def test_the_principal_comes_from_the_key_and_every_request_is_recorded(served: ServedBundles) -> None:
    before = _decisions(served)
    with _client(served) as client:
        protected = client.post("/v1/protect", json={"question": "What is Maria Lopez treated for?"}, headers=_auth(NURSE_KEY))
        passages = client.post(
            "/v1/protect-passages",
            json={"passages": [{"chunk_id": "c1", "text": "Maria Lopez has asthma; call 555-123-4567."}], "purpose": "billing"},
            headers=_auth(BILLING_KEY),
        )
        asked = client.post("/v1/ask", json={"question": "Why was Maria Lopez admitted?", "trace_id": "t-1"}, headers=_auth(NURSE_NEW_KEY))
        smuggled = client.post("/v1/protect", json={"question": "Who?", "principal": "admin"}, headers=_auth(NURSE_KEY))
    assert [r.status_code for r in (protected, passages, asked)] == [200, 200, 200]
    assert smuggled.status_code == 422, "a body cannot name its principal"
    assert "555-123-4567" not in passages.json()["context"] and passages.json()["outcome"] == "redacted"
    after = _decisions(served)
    new = {k: v for k, v in after.items() if k not in before}
    ids = [r.json()["decision_id"] for r in (protected, passages, asked)]
    assert sorted(new) == sorted(ids), "one record per protect/ask, none for the refused body"
    assert [(new[i].principal, new[i].purpose) for i in ids] == [("nurse-7", "care"), ("billing", "billing"), ("nurse-7", "care")]
    assert new[ids[2]].trace_id == "t-1"
    _verify(served)


def test_authentication_and_purpose(served: ServedBundles, caplog: pytest.LogCaptureFixture) -> None:
    body = {"question": "Maria Lopez 555-123-4567 asthma"}
    with caplog.at_level(logging.INFO), _client(served) as client:
        missing = client.post("/v1/protect", json=body)
        unknown = client.post("/v1/protect", json=body, headers=_auth("unknown-key-9999"))
        header = client.post("/v1/protect", json=body, headers={"X-API-Key": "unknown-key-9999"})
        wrong_purpose = client.post("/v1/protect", json={**body, "purpose": "marketing"}, headers=_auth(NURSE_KEY))
        unnamed_purpose = client.post("/v1/protect", json=body, headers=_auth(BILLING_KEY))
        lint = client.post("/v1/lint", json={"policy": "kind: PrivacyPolicy"})
    assert [r.status_code for r in (missing, unknown, header, wrong_purpose, unnamed_purpose, lint)] == [401, 401, 401, 403, 403, 401]
    assert "missing API key" in missing.json()["error"] and unknown.json()["error"] == "unknown API key"
    assert "purpose not allowed" in wrong_purpose.json()["error"]
    logged = [r.getMessage() for r in caplog.records if r.name == "policy_engine.service"]
    assert any(m.startswith("401 unknown API key") and hash_key("unknown-key-9999")[:12] in m for m in logged)
    assert any(m.startswith("403 purpose not allowed") and "principal nurse-7" in m and "marketing" not in m for m in logged)
    _assert_no_raw_value([r.text for r in (missing, unknown, header, wrong_purpose, unnamed_purpose, lint)] + logged)


def test_refused_requests_are_decision_records_without_the_key_or_the_body(served: ServedBundles) -> None:
    """401 and 403 are recorded (outcome denied, stage authentication) in the served bundle's log: the key's fingerprint, never the key, the body or the purpose asked for."""
    before = _decisions(served)
    body = {"question": "Maria Lopez 555-123-4567 asthma"}
    with _client(served) as client:
        statuses = [
            client.post("/v1/protect", json=body, headers=_auth("unknown-key-9999")).status_code,
            client.post("/v1/protect", json=body).status_code,
            client.post("/v1/protect", json={**body, "purpose": "marketing"}, headers=_auth(NURSE_KEY)).status_code,
        ]
    assert statuses == [401, 401, 403]
    new = [r for k, r in _decisions(served).items() if k not in before]
    assert sorted((r.labels["http_status"], r.principal, r.labels["key"]) for r in new) == [
        ("401", None, hash_key("unknown-key-9999")[:12]),
        ("401", None, "none"),
        ("403", "nurse-7", hash_key(NURSE_KEY)[:12]),
    ]
    assert {(r.outcome.value, r.labels["stage"], r.labels["route"], r.policy_name) for r in new} == {("denied", "authentication", "/v1/protect", "mini-clinic")}
    dumped = [r.model_dump_json() for r in new]
    _assert_no_raw_value(dumped)
    assert not any("marketing" in text for text in dumped)
    _verify(served)


def test_key_rotation(served: ServedBundles) -> None:
    """Two keys for one principal both work; once the old entry is removed, it is refused and the new one still works."""
    question = {"question": "Who is the patient?"}
    with _client(served) as client:
        assert [client.post("/v1/protect", json=question, headers=_auth(k)).status_code for k in (NURSE_KEY, NURSE_NEW_KEY)] == [200, 200]
    rotated = _config((NURSE_NEW_KEY, "nurse-7", ("care",)))
    with _client(served, rotated) as client:
        old, new = (client.post("/v1/protect", json=question, headers=_auth(k)) for k in (NURSE_KEY, NURSE_NEW_KEY))
    assert (old.status_code, new.status_code) == (401, 200)


def _assert_no_raw_value(texts: list[str]) -> None:
    leaked = [(value, text[:200]) for text in texts for value in RAW if value in text]
    assert leaked == []


def test_oversized_and_malformed_bodies_never_echo_the_request(served: ServedBundles, caplog: pytest.LogCaptureFixture) -> None:
    config = _config((NURSE_KEY, "nurse-7", ("care",)), max_body_bytes=2048)
    padding = "Maria Lopez 555-123-4567 asthma. " * 100
    with caplog.at_level(logging.INFO), _client(served, config) as client:
        large = client.post("/v1/protect", json={"question": padding}, headers=_auth(NURSE_KEY))
        streamed = client.post("/v1/protect", content=iter([padding.encode()]), headers={**_auth(NURSE_KEY), "content-type": "application/json"})
        malformed = client.post("/v1/protect", json={"question": 7, "extra": "Maria Lopez 555-123-4567"}, headers=_auth(NURSE_KEY))
        not_json = client.post("/v1/protect", content=b"Maria Lopez asthma", headers={**_auth(NURSE_KEY), "content-type": "application/json"})
    assert [r.status_code for r in (large, streamed, malformed, not_json)] == [413, 413, 422, 422]
    assert "over 2048 bytes" in large.json()["error"]
    assert {d["loc"][-1] for d in malformed.json()["details"]} == {"question", "extra"}
    _assert_no_raw_value([r.text for r in (large, streamed, malformed, not_json)] + [r.getMessage() for r in caplog.records])


def _slow() -> dict[str, object]:
    """A request that keeps its slot for a while: many passages, never seen before (no parse is reused), to redact."""
    import uuid

    run = uuid.uuid4().hex[:8]
    return {"passages": [{"chunk_id": f"c{i}", "text": f"Visit {i} ({run}): Maria Lopez has asthma; her phone is 555-123-4567."} for i in range(200)]}


def _gauge(client: TestClient, name: str) -> float:
    line = next(line for line in client.get("/metrics").text.splitlines() if line.startswith(name + " "))
    return float(line.split()[1])


def _wait_for(condition: object, what: str, timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


@pytest.mark.parametrize(("limits", "refused"), [({"max_in_flight": 1, "max_queued": 0}, 429), ({"max_in_flight": 1, "max_queued": 8, "queue_timeout_s": 0.001}, 503)])
def test_concurrency_bounds(served: ServedBundles, limits: dict[str, float], refused: int) -> None:
    """While one request holds the only slot, the next is refused (429 queue full, 503 waited too long); the admitted one answers."""
    with _client(served, _config((NURSE_KEY, "nurse-7", ("care",)), **limits)) as client:
        first: list[int] = []
        holder = threading.Thread(target=lambda: first.append(client.post("/v1/protect-passages", json=_slow(), headers=_auth(NURSE_KEY)).status_code))
        holder.start()
        _wait_for(lambda: _gauge(client, "policy_engine_requests_in_flight") == 1, "the slow request was admitted")
        second = client.post("/v1/protect", json={"question": "Why was the patient admitted?"}, headers=_auth(NURSE_KEY))
        holder.join()
        metrics = client.get("/metrics").text
    assert (first, second.status_code) == ([200], refused)
    assert second.headers["retry-after"] and ("retry later" in second.json()["error"])
    reason = "queue_full" if refused == 429 else "queue_timeout"
    assert f'policy_engine_requests_rejected_total{{reason="{reason}"}} 1.0' in metrics


def test_rewrite_guard_and_lint(served: ServedBundles) -> None:
    with _client(served) as client:
        rewritten = client.post("/v1/rewrite", json={"question": "I have asthma. Which inhaler brands exist?"}, headers=_auth(NURSE_KEY))
        guarded = client.post("/v1/guard", json={"answer": "Inhalers are used for asthma."}, headers=_auth(NURSE_KEY))
        linted = client.post("/v1/lint", json={"policy": "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: x}\nconstraints: [{id: a}]\n"}, headers=_auth(NURSE_KEY))
        unknown = client.post("/v1/protect", json={"question": "Who?", "bundle": "no-such"}, headers=_auth(NURSE_KEY))
    assert rewritten.status_code == 200 and rewritten.json()["outcome"] in ("rewritten", "refused")
    assert rewritten.json()["decision"] is None or "task" in rewritten.json()["decision"]
    assert guarded.status_code == 200 and guarded.json()["outcome"] == "released"  # the fixture policy has no quasi-identifiers: nothing to guard
    report = linted.json()
    assert linted.status_code == 200 and report["exit_code"] == 3 and report["report"]["diagnostics"]
    assert all("pe-lint-" not in json.dumps(d) for d in report["report"]["diagnostics"])
    assert unknown.status_code == 404 and "mini-clinic" in unknown.json()["error"]


def test_checked_in_openapi_schema_matches_the_routes() -> None:
    checked_in = (ROOT / "schemas" / FILE_NAME).read_text(encoding="utf-8")
    assert checked_in == openapi_text(), "regenerate: policy-engine serve --openapi schemas/service.openapi.json"
    paths = json.loads(checked_in)["paths"]
    assert {"/v1/protect", "/v1/protect-passages", "/v1/ask", "/v1/rewrite", "/v1/guard", "/v1/lint", "/healthz", "/readyz", "/metrics"} <= set(paths)
    assert "principal" not in json.dumps(json.loads(checked_in)["components"]["schemas"]["ProtectRequest"])


def test_a_real_server_drains_in_flight_requests_on_sigterm(tmp_path: Path) -> None:
    """``policy-engine serve`` under uvicorn on loopback: requests in flight at SIGTERM finish and are recorded; the log holds no raw value."""
    import os
    import signal
    import subprocess
    import sys

    import httpx

    bundle = compiled_fixture()[1]
    config = tmp_path / "server.yaml"
    config.write_text(f"keys:\n  - principal: nurse-7\n    sha256: {hash_key(NURSE_KEY)}\n    purposes: [care]\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(ROOT / "click_cli.py"), "serve", str(bundle), "--config", str(config), "--port", "0", "--graceful-timeout", "60"]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    try:
        base = ready_base_url(server, lines)
        records = len(list(iter_decisions([_log_of(bundle)]))) if _log_of(bundle).exists() else 0
        statuses: list[int] = []

        def call(i: int) -> None:
            answer = httpx.post(f"{base}/v1/protect-passages", json=_slow(), headers=_auth(NURSE_KEY), timeout=300)
            statuses.append(answer.status_code)

        def in_flight() -> float:
            text = httpx.get(f"{base}/metrics").text
            return float(next(line for line in text.splitlines() if line.startswith("policy_engine_requests_in_flight ")).split()[1])

        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        _wait_for(lambda: in_flight() == 4, "four requests in flight")
        server.send_signal(signal.SIGTERM)
        for t in threads:
            t.join()
        assert server.wait(120) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down
    finally:
        if server.poll() is None:
            server.kill()
    log_text = "".join(lines) + (server.stderr.read() if server.stderr else "")
    assert statuses == [200] * 4, (statuses, log_text[-2000:])
    assert "Waiting for connections to close" in log_text, "SIGTERM came while requests were in flight"
    assert "engines closed, audit logs flushed" in log_text
    assert len(list(iter_decisions([_log_of(bundle)]))) == records + 4
    _assert_no_raw_value([log_text])


def test_serve_exits_when_a_bundle_does_not_open(tmp_path: Path) -> None:
    """A server that can never be ready exits 1 (its supervisor sees it) instead of answering 503 forever."""
    import os
    import subprocess
    import sys

    config = tmp_path / "server.yaml"
    config.write_text("keys: []\n", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    command = [sys.executable, str(ROOT / "click_cli.py"), "serve", str(tmp_path / "empty"), "--config", str(config), "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "bundle failed to open" in done.stderr


def _log_of(bundle: Path) -> Path:
    from policy_engine.bundle.reader import Bundle

    policy = Bundle.open(bundle).policy
    return policy.resolve_path(policy.audit.log)


def test_ask_with_dp_is_charged_to_the_keys_principal(tmp_path: Path) -> None:
    """``/v1/ask`` with ``dp`` on a bundle with a differential_privacy section (tiny local model): the spend is the key's principal's,
    counted in /metrics, and an exhausted budget is a refusal; without the section, dp is a 409."""
    from tiny_lm import build_tiny_model

    from policy_engine.bundle.reader import compile_bundle
    from tests.compile_support import copy_fixture

    policy = copy_fixture(tmp_path / "policy")
    model = build_tiny_model(tmp_path / "tiny")
    with policy.open("a", encoding="utf-8") as extra:
        extra.write(f"differential_privacy: {{epsilon: 1.5, delta: 1.0e-6, documents: 100, answer_epsilon: 1.0}}\nmodel: {{path: {model}}}\nenforcement: {{timeout_s: 120}}\n")
    compile_bundle(policy, tmp_path / "bundle")
    bundles = ServedBundles([tmp_path / "bundle"])
    with TestClient(create_app(bundles, ROTATING)) as client:
        assert bundles.wait(300), bundles.failure
        asked = [client.post("/v1/ask", json={"question": "What is the fee?", "dp": True}, headers=_auth(key)).json() for key in (NURSE_KEY, NURSE_NEW_KEY, NURSE_KEY)]
        metrics = client.get("/metrics").text
    first, _, third = asked
    assert first["privacy"]["scope"] == "principal:nurse-7" and 0 < first["privacy"]["epsilon_spent"] <= 1.0
    assert third["outcome"] == "denied" and third["answer"] is None and "exhausted" in third["refusal"], "one principal, two keys, one budget"
    assert 'policy_engine_privacy_epsilon_spent_total{bundle="mini-clinic",principal="nurse-7"}' in metrics


def test_dp_on_a_policy_without_a_budget_is_a_conflict(served: ServedBundles) -> None:
    with _client(served) as client:
        answer = client.post("/v1/ask", json={"question": "Who?", "dp": True}, headers=_auth(NURSE_KEY))
    assert answer.status_code == 409 and "differential_privacy" in answer.json()["error"]


def test_shutdown_closes_the_engines_and_the_log_verifies(served: ServedBundles) -> None:
    """Last: an app that owns the bundles closes them at shutdown (audit log flushed); every record verifies."""
    log, settings = _log(served), next(iter(served.bundles.values())).engine.policy.audit
    before = len(_decisions(served))
    app: ServiceApp = create_app(served, ROTATING)
    with TestClient(app) as client:
        answers = [client.post("/v1/protect", json={"question": f"Visit {i}?"}, headers=_auth(NURSE_KEY)).status_code for i in range(3)]
    assert answers == [200, 200, 200]
    assert served.bundles == {} and not served.ready.is_set() and app.admission.draining
    assert len(list(iter_decisions([log]))) == before + 3
    report = verify_path(log, load_keyring(settings))
    assert report.ok, report.problem
