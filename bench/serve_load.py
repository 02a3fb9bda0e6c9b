"""Load test on loopback: ``policy-engine serve`` against Presidio's analyzer+anonymizer behind an equivalent FastAPI endpoint.

1. Start-up, ``--startup-runs`` times alternating: the wall time of a fresh process that only opens the
   engine, and of ``policy-engine serve BUNDLE`` from spawn to ``/readyz`` 200 (medians).
2. ``policy-engine serve BUNDLE`` in a subprocess on a free loopback port.
3. ``--requests`` ``POST /v1/protect`` at ``--concurrency`` from one asyncio client (questions cycle over the
   30 clinic questions of bench/startup.py); stops issuing once ``--time-limit`` seconds have passed (the
   count actually sent is reported).  Then SIGTERM (the server drains and closes the engine), and the decision
   log is verified and its new records counted: exactly one per request is the expectation.
4. The same count (as many as step 3 sent) and concurrency against Presidio (``AnalyzerEngine`` + ``AnonymizerEngine`` with the engine's
   spaCy model, in-process in a uvicorn FastAPI server started by this script with ``--presidio-server``),
   each request carrying the raw context the bundle retrieves for that question (the text the engine
   redacts), so both servers process the same text; Presidio has no retriever, no policy and no audit log.

    .venv/bin/python bench/serve_load.py --bundle bundles/clinic            # 2,000 requests each
    .venv/bin/python bench/serve_load.py --bundle bundles/clinic --requests 500 --time-limit 300

Writes bench/results/serve_load.json and serve_load.md with p50/p99 latency, throughput, errors, the audit
check and the 1-minute load average before and after each phase (the machine may be shared).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402

from bench.startup import questions  # noqa: E402

RESULTS = ROOT / "bench" / "results"
KEY = "serve-load-bench-key"
OPEN = """
import sys
from policy_engine.engine.runtime import Engine
Engine.open(sys.argv[1], audit=False)
"""


def load1() -> float:
    return round(os.getloadavg()[0], 2)


#: The clinic policy signs its decision log with the key in $POLICY_ENGINE_AUDIT_KEY; without one every request is
#: denied (fail closed) and nothing is recorded.  When the caller sets none, the bench uses the key examples/demo.sh
#: signs the example's log with, so the records it adds verify together with the demo's.
BENCH_AUDIT_KEY = "demo-key-not-for-production"


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), MKL_NUM_THREADS=os.environ.get("MKL_NUM_THREADS", "1"))


def start(command: list[str], log: Path, ready_path: str, timeout: float = 600.0) -> tuple[subprocess.Popen[bytes], str, float]:
    """Spawn a uvicorn server logging to ``log``; ``(process, base URL, seconds until ready_path answers 200)``."""
    import httpx

    started = time.perf_counter()
    handle = log.open("wb")
    process = subprocess.Popen(command, cwd=ROOT, env=env(), stdout=handle, stderr=subprocess.STDOUT)
    base = None
    with httpx.Client() as poller:  # one client: a new one per poll would cost CPU the server is starting with
        while time.perf_counter() - started < timeout:
            if process.poll() is not None:
                raise RuntimeError(f"{command[:4]} exited {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
            if base is None:
                found = re.search(r"running on (http://127\.0\.0\.1:\d+)", log.read_text(errors="replace"))
                base = found.group(1) if found else None
            elif poller.get(base + ready_path).status_code == 200:
                return process, base, time.perf_counter() - started
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{command[:4]} not ready in {timeout} s")


async def _drive(url: str, bodies: list[dict], headers: dict[str, str], concurrency: int, time_limit: float) -> dict:
    import httpx

    latencies: list[float] = []
    statuses: dict[str, int] = {}
    outcomes: dict[str, int] = {}
    slots = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=concurrency)) as client:

        async def one(body: dict) -> None:
            async with slots:
                if time.perf_counter() - started > time_limit:
                    return
                t0 = time.perf_counter()
                try:
                    response = await client.post(url, json=body, headers=headers)
                    status = str(response.status_code)
                    outcome = str(response.json().get("outcome", "-")) if status == "200" else "-"
                    outcomes[outcome] = outcomes.get(outcome, 0) + 1
                except httpx.HTTPError as exc:
                    status = type(exc).__name__
                latencies.append(time.perf_counter() - t0)
                statuses[status] = statuses.get(status, 0) + 1

        await asyncio.gather(*(one(b) for b in bodies))
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "sent": len(latencies),
        "statuses": statuses,
        "outcomes": outcomes,
        "errors": sum(n for s, n in statuses.items() if s != "200"),
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 2),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000, 1),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 1),
    }


def drive(url: str, bodies: list[dict], headers: dict[str, str], concurrency: int, time_limit: float) -> dict:
    before = load1()
    result = asyncio.run(_drive(url, bodies, headers, concurrency, time_limit))
    return {**result, "load1_before": before, "load1_after": load1()}


def startup_runs(bundle: Path, serve: list[str], work: Path, runs: int) -> dict:
    """Median wall seconds, alternating: a fresh process that opens the engine and exits, and ``serve`` from spawn to ``/readyz`` 200."""
    pairs = []
    before = load1()
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", OPEN, str(bundle)], cwd=ROOT, env=env(), capture_output=True, text=True, check=True)
        opened = time.perf_counter() - t0
        process, _, ready = start(serve, work / "startup.log", "/readyz")
        stop(process)
        pairs.append({"engine_open_process_s": round(opened, 2), "serve_ready_s": round(ready, 2)})
    median = {k: round(statistics.median(p[k] for p in pairs), 2) for k in pairs[0]}
    return {**median, "serve_minus_open_s": round(median["serve_ready_s"] - median["engine_open_process_s"], 2), "runs": pairs, "load1_before": before, "load1_after": load1()}


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(300)


def audit_state(bundle: Path) -> tuple[Path, object]:
    from audit.keys import load_keyring
    from policy_engine.bundle.reader import Bundle

    policy = Bundle.open(bundle).policy
    return policy.resolve_path(policy.audit.log), load_keyring(policy.audit)


def count_and_verify(log: Path, keyring: object) -> dict:
    from audit.sources import iter_decisions, verify_path

    if not log.exists():
        return {"decisions": 0, "ok": True, "unchecked": []}
    report = verify_path(log, keyring)  # type: ignore[arg-type]
    return {"decisions": sum(1 for _ in iter_decisions([log])), "ok": report.ok, "problem": str(report.problem) if report.problem else None, "unchecked": report.unchecked}


def raw_contexts(bundle: Path, asked: list[str]) -> dict[str, str]:
    """The unredacted context the bundle retrieves per question (what the engine redacts), for Presidio's requests."""
    from policy_engine.bundle.reader import Bundle
    from policy_engine.engine.context_assembly import assemble, render_context

    opened = Bundle.open(bundle)
    budget = opened.policy.corpus.retrieval.context_tokens
    out = {}
    for question in asked:
        chunks = assemble([(r.chunk.chunk_id, r.chunk.text, float(r.score)) for r in opened.retrieve(question)], budget)
        out[question] = render_context([(c.chunk_id, c.text) for c in chunks])
    return out


class AnonymizeRequest(BaseModel):
    """The Presidio endpoint's body: the text to anonymize."""

    text: str


def presidio_server(port: int) -> None:
    """Presidio's analyzer and anonymizer in-process behind ``POST /v1/anonymize`` (the endpoint the load test calls)."""
    import uvicorn
    from fastapi import FastAPI

    from bench.detect.tools import presidio_tool

    _, anonymize = presidio_tool()
    app = FastAPI(title="presidio-in-process")

    @app.post("/v1/anonymize")
    def anonymized(body: AnonymizeRequest) -> dict[str, str]:
        return {"text": anonymize(body.text)}

    @app.get("/readyz")
    def ready() -> dict[str, str]:
        return {"status": "ready"}

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info", access_log=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "bundles" / "clinic")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--time-limit", type=float, default=900.0, help="Seconds per server after which no new request is sent.")
    parser.add_argument("--startup-runs", type=int, default=3, help="Fresh start-ups of each kind for the start-up comparison.")
    parser.add_argument("--presidio-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.presidio_server:
        presidio_server(args.port)
        return
    from policy_engine.service.config import hash_key

    os.environ.setdefault("POLICY_ENGINE_AUDIT_KEY", BENCH_AUDIT_KEY)  # the server signs with it, verify checks with it
    command_line = " ".join([".venv/bin/python", "bench/serve_load.py", *sys.argv[1:]])
    print(f"$ {command_line}\nload average at start: {os.getloadavg()}", flush=True)
    asked = questions()
    order = [asked[i % len(asked)] for i in range(args.requests)]
    work = Path(tempfile.mkdtemp(prefix="serve-load-"))
    config = work / "server.yaml"
    config.write_text(f"keys:\n  - principal: load-test\n    sha256: {hash_key(KEY)}\n    purposes: [care]\n", encoding="utf-8")
    serve = [sys.executable, str(ROOT / "click_cli.py"), "serve", str(args.bundle), "--config", str(config), "--port", "0"]
    startup = startup_runs(args.bundle, serve, work, args.startup_runs)
    print(f"start-up: {startup}", flush=True)

    log, keyring = audit_state(args.bundle)
    before = count_and_verify(log, keyring)
    process, base, ready_s = start(serve, work / "serve.log", "/readyz")
    print(f"serve ready in {ready_s:.1f} s; {args.requests} protect requests at concurrency {args.concurrency}", flush=True)
    ours = drive(base + "/v1/protect", [{"question": q} for q in order], {"Authorization": f"Bearer {KEY}"}, args.concurrency, args.time_limit)
    exit_code = stop(process)
    after = count_and_verify(log, keyring)
    server_log = (work / "serve.log").read_text(errors="replace")
    audit = {
        "log": str(log),
        "before": before,
        "after": after,
        "new_records": after["decisions"] - before["decisions"],
        "expected": ours["statuses"].get("200", 0),
        "server_exit": exit_code,
        "questions_in_server_log": sum(q in server_log for q in asked),
    }
    print(f"policy-engine: {ours}\naudit: {audit}", flush=True)

    contexts = raw_contexts(args.bundle, asked)
    process, base, presidio_ready_s = start([sys.executable, str(Path(__file__).resolve()), "--presidio-server"], work / "presidio.log", "/readyz")
    answered = order[: ours["sent"]]  # as many requests as the engine's server was sent, in the same order
    theirs = drive(base + "/v1/anonymize", [{"text": contexts[q]} for q in answered], {}, args.concurrency, args.time_limit)
    stop(process)
    print(f"presidio: {theirs}", flush=True)

    result = {
        "command": command_line,
        "bundle": str(args.bundle),
        "requests": args.requests,
        "time_limit_s": args.time_limit,
        "concurrency": args.concurrency,
        "cpus": os.cpu_count(),
        "startup": startup,
        "serve_ready_s": round(ready_s, 2),
        "presidio_ready_s": round(presidio_ready_s, 2),
        "policy_engine": ours,
        "audit": audit,
        "presidio": theirs,
        "throughput_ratio_presidio_over_engine": round(theirs["throughput_rps"] / ours["throughput_rps"], 2),
        "p50_ratio_engine_over_presidio": round(ours["p50_ms"] / theirs["p50_ms"], 2),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "serve_load.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "serve_load.md").write_text(render(result), encoding="utf-8")
    print(render(result))


def render(r: dict) -> str:
    ours, theirs, audit = r["policy_engine"], r["presidio"], r["audit"]
    rows = [
        f"| policy-engine `POST /v1/protect` (retrieve + redact + audit) | {ours['sent']} | {ours['errors']} | {ours['p50_ms']} | {ours['p99_ms']} | {ours['throughput_rps']} | {ours['load1_before']} / {ours['load1_after']} |",
        f"| Presidio analyzer+anonymizer, same context text, in-process FastAPI | {theirs['sent']} | {theirs['errors']} | {theirs['p50_ms']} | {theirs['p99_ms']} | {theirs['throughput_rps']} | {theirs['load1_before']} / {theirs['load1_after']} |",
    ]
    verified = "OK" if audit["after"]["ok"] else f"FAILED ({audit['after'].get('problem')})"
    unchecked = "; ".join(audit["after"].get("unchecked") or []) or "none"
    return "\n".join([
        "# Service load test on loopback",
        "",
        f"`{r['command']}` on {r['cpus']} CPUs (shared machine: the 1-minute load average is given before / after each run).",
        f"{r['requests']} requests asked per server at concurrency {r['concurrency']}, at most {r['time_limit_s']:g} s each (the count sent is in the table); bundle `{r['bundle']}`.",
        "",
        "| server | requests | errors | p50 ms | p99 ms | requests/s | load avg |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"Presidio / policy-engine throughput: {r['throughput_ratio_presidio_over_engine']}x; policy-engine / Presidio p50: {r['p50_ratio_engine_over_presidio']}x.",
        f"Outcomes of the engine's 200 answers: {', '.join(f'{k} {v}' for k, v in sorted(ours.get('outcomes', {}).items()))} (denied includes fail-closed denials; an engine that cannot sign its log denies every request).",
        "",
        f"Audit: {audit['new_records']} new decision records for {audit['expected']} answered requests; verify {verified} (not checked: {unchecked}); "
        f"server exit after SIGTERM {audit['server_exit']}; question texts found in the server log: {audit['questions_in_server_log']}.",
        "",
        f"Start-up (median of {len(r['startup']['runs'])} alternating fresh starts, load {r['startup']['load1_before']} / {r['startup']['load1_after']}): "
        f"`serve` spawn to `/readyz` 200 {r['startup']['serve_ready_s']} s; a process that only opens the engine {r['startup']['engine_open_process_s']} s "
        f"(difference {r['startup']['serve_minus_open_s']} s; that process's wall time includes its interpreter exit, `serve`'s stops at readiness). "
        f"Presidio server ready in {r['presidio_ready_s']} s.",
        "",
    ])


if __name__ == "__main__":
    main()
