"""Start-up benchmark: CLI start, lint, Engine.open and its memory beside Presidio, then ``protect`` latency.

Every start-up figure is the median of ``--runs`` fresh processes (cold
Python, warm file cache), so imports count as a user sees them; ``Engine.open``
and Presidio's side also report the process's CPU time, which a loaded shared
machine inflates far less than wall time:

* ``policy-engine --help`` and ``policy-engine lint policies/clinic`` (wall time of the process);
* ``Engine.open`` of the clinic bundle (from the first import to the open engine, inside the
  process) and the process's peak RSS with the engine open;
* beside them, Presidio's ``AnalyzerEngine()`` on the same spaCy model, alone and followed by the
  load of the embedding model the clinic policy uses (an engine needs both to open);
* ``policy-engine compile policies/clinic`` (one run: it is the slowest and least noisy).

``Engine.open`` and Presidio's runs alternate (one of each, ``--runs`` times).
Then ``protect`` p50 (wall and CPU) over 30 clinic questions (12 from bench/data/constraint_queries.jsonl
and 18 written here) on one open engine, each tree serving the bundle it compiled (as a user would:
a bundle holds compile-time work such as the stored parses).  With ``--baseline DIR`` (a worktree of
an earlier commit, e.g. ``git worktree add /work/wt/baseline baseline-29``) the baseline's compile and
protect run in the same invocation, and HEAD also protects the *baseline's* bundle (identical
retrieval), whose protected outputs (context, redaction table, outcome) are compared with the baseline's.

    .venv/bin/python bench/startup.py --baseline /work/wt/baseline

Writes bench/results/startup.json and startup.md; the 1-minute load average is recorded before
and after each measurement (the machine may be shared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CLINIC_QUERIES = ROOT / "bench" / "data" / "constraint_queries.jsonl"
MORE_QUESTIONS = (
    "Which medication and dose was the patient with type 2 diabetes prescribed?",
    "When is the follow-up visit for the patient with asthma scheduled?",
    "What did the discharge summary say about blood pressure?",
    "Who referred the patient to cardiology and why?",
    "What allergies are recorded for the patient on warfarin?",
    "Which pharmacy message asked about an early refill of an inhaler?",
    "What were the lab results at the last visit?",
    "Which patients were seen for chest pain?",
    "What is the home address of the patient in the referral letter?",
    "How old is the patient who works as a welder?",
    "What did the nurse note about the wound dressing?",
    "Which insurance plan covers the patient's physiotherapy?",
    "What side effects did the patient report after starting lisinopril?",
    "When was the patient admitted and when discharged?",
    "What did the doctor recommend about diet and exercise?",
    "Which patient has a history of depression?",
    "What is the email address of the patient's emergency contact?",
    "Which vaccines were given at the visit?",
)
HEAVY = ("torch", "sentence_transformers", "transformers", "dp_accounting", "spacy", "sklearn", "umap", "faiss")

CLI = "import sys; from click_cli import main; sys.argv[0] = 'policy-engine'; main()"
OPEN = """
import json, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from policy_engine.engine.runtime import Engine
engine = Engine.open(sys.argv[1], audit=False)
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
heavy = [m for m in json.loads(sys.argv[2]) if m in sys.modules]
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "heavy_modules": heavy}))
"""
PRESIDIO = """
import json, logging, resource, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import tldextract
from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())  # offline: the bundled suffix list
nlp = NlpEngineProvider(nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": sys.argv[1]}]}).create_engine()
AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
presidio, presidio_cpu = time.perf_counter() - t0, time.process_time() - c0
presidio_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from policy_engine.nlp.embedding import load_embedder
from policy_engine.policy.model import EmbeddingSettings
load_embedder(EmbeddingSettings.model_validate(json.loads(sys.argv[2]))).embed(["warm"])
print(json.dumps({"seconds": presidio, "cpu_seconds": presidio_cpu, "peak_rss_mb": presidio_rss, "with_embedder_seconds": time.perf_counter() - t0,
                  "with_embedder_cpu_seconds": time.process_time() - c0, "with_embedder_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
PROTECT = """
import json, sys, time
try:
    from policy_engine.engine.runtime import Engine
except ImportError:  # the layout before issue 29
    from policy_engine.runtime import Engine
engine = Engine.open(sys.argv[1], audit=False)
latencies, cpu, outputs = [], [], []
for question in json.loads(sys.argv[2]):
    t0, c0 = time.perf_counter(), time.process_time()
    result = engine.protect(question, principal="bench-nurse", purpose="care")
    latencies.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
    outputs.append({"context": result.context, "outcome": str(result.outcome.value),
                    "redactions": [[r.chunk_id, r.constraint_id, r.start, r.end, r.replacement, r.mode] for r in result.redactions]})
print(json.dumps({"latencies": latencies, "cpu": cpu, "outputs": outputs}))
"""


def load1() -> float:
    return os.getloadavg()[0]


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    return env


def run(tree: Path, code: str, *args: str, check: bool = True) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall seconds and the completed ``python -c code args`` run in ``tree`` with ``tree`` first on the path."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=_env(tree), capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if check and done.returncode != 0:
        raise RuntimeError(f"{code[:60]!r} {args} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done


def median_of(runs: int, measure) -> dict[str, object]:
    """``measure()`` ``runs`` times (each returns a dict of numbers); the median of each number, the raw runs and the load."""
    before = load1()
    return summary([measure() for _ in range(runs)], before)


def medians_alternating(runs: int, first, second) -> tuple[dict[str, object], dict[str, object]]:
    """:func:`median_of` for two measures taken in turn, so a change in a shared machine's load reaches both alike."""
    before = load1()
    pairs = [(first(), second()) for _ in range(runs)]
    return summary([a for a, _ in pairs], before), summary([b for _, b in pairs], before)


def summary(samples: list[dict], before: float) -> dict[str, object]:
    """The median of each number in ``samples``, the raw samples, and the load before and now."""
    keys = [k for k, v in samples[0].items() if isinstance(v, (int, float))]
    out: dict[str, object] = {k: round(statistics.median(float(s[k]) for s in samples), 3) for k in keys}
    out.update(runs=[{k: (round(v, 3) if isinstance(v, float) else v) for k, v in s.items()} for s in samples], load1_before=round(before, 2), load1_after=round(load1(), 2))
    return out


def startup(runs: int, bundle: Path, model_location: str, embedding: str) -> dict[str, object]:
    def cli(*args: str) -> dict[str, object]:
        seconds, done = run(ROOT, CLI, *args, check=False)
        return {"seconds": seconds, "exit_code": done.returncode}

    def child(code: str, *args: str) -> dict[str, object]:
        wall, done = run(ROOT, code, *args)
        return {**json.loads(done.stdout.strip().splitlines()[-1]), "process_seconds": wall}

    engine_open, presidio = medians_alternating(runs, lambda: child(OPEN, str(bundle), json.dumps(HEAVY)), lambda: child(PRESIDIO, model_location, embedding))
    return {
        "help": median_of(runs, lambda: cli("--help")),
        "lint_clinic": median_of(runs, lambda: cli("lint", "policies/clinic")),
        "engine_open": engine_open,
        "presidio_analyzer_engine": presidio,
    }


def compile_clinic(tree: Path, out: Path) -> dict[str, object]:
    before = load1()
    seconds, done = run(tree, CLI, "compile", "policies/clinic", "-o", str(out))
    return {"seconds": round(seconds, 2), "load1_before": round(before, 2), "load1_after": round(load1(), 2)}


def protect(tree: Path, bundle: Path, questions: list[str]) -> dict[str, object]:
    before = load1()
    _, done = run(tree, PROTECT, str(bundle), json.dumps(questions))
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    latencies = measured["latencies"]
    return {
        "p50_s": round(statistics.median(latencies), 3),
        "cpu_p50_s": round(statistics.median(measured["cpu"]), 3),
        "p90_s": round(sorted(latencies)[int(0.9 * (len(latencies) - 1))], 3),
        "first_s": round(latencies[0], 3),
        "latencies_s": [round(x, 3) for x in latencies],
        "load1_before": round(before, 2),
        "load1_after": round(load1(), 2),
        "outputs": measured["outputs"],
    }


def questions() -> list[str]:
    """The 30 questions: the clinic's from constraint_queries.jsonl, then the ones written here."""
    rows = [json.loads(line) for line in CLINIC_QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [r["query"] for r in rows if r["policy"] == "clinic"] + list(MORE_QUESTIONS)
    if len(chosen) < 30:
        raise SystemExit(f"only {len(chosen)} clinic questions; 30 are needed")
    return chosen[:30]


def markdown(report: dict) -> str:
    s, head = report["startup"], report["protect"]["head"]
    ours, presidio = s["engine_open"], s["presidio_analyzer_engine"]
    lines = [
        "# Start-up and protect latency (bench/startup.py)",
        "",
        f"Machine: {report['machine']}; median of {report['runs']} fresh processes; 1-minute load average before/after each row.",
        "",
        "| measure | policy-engine | Presidio `AnalyzerEngine()` (same spaCy model) | Presidio + embedder load | load (before/after) |",
        "|---|---|---|---|---|",
        f"| `policy-engine --help` | {s['help']['seconds']:.2f} s | | | {s['help']['load1_before']}/{s['help']['load1_after']} |",
        f"| `policy-engine lint policies/clinic` | {s['lint_clinic']['seconds']:.2f} s | | | {s['lint_clinic']['load1_before']}/{s['lint_clinic']['load1_after']} |",
        f"| `Engine.open` (clinic bundle, from first import) | {ours['seconds']:.2f} s | {presidio['seconds']:.2f} s | {presidio['with_embedder_seconds']:.2f} s | {ours['load1_before']}/{ours['load1_after']} · {presidio['load1_before']}/{presidio['load1_after']} |",
        f"| CPU time of the above (less sensitive to a shared machine's load) | {ours['cpu_seconds']:.2f} s | {presidio['cpu_seconds']:.2f} s | {presidio['with_embedder_cpu_seconds']:.2f} s | |",
        f"| process wall time of the above | {ours['process_seconds']:.2f} s | | {presidio['process_seconds']:.2f} s | |",
        f"| peak RSS, engine open | {ours['peak_rss_mb']:.0f} MiB | {presidio['peak_rss_mb']:.0f} MiB | {presidio['with_embedder_peak_rss_mb']:.0f} MiB | |",
        "",
        f"Heavy modules loaded by an open clinic engine: {', '.join(ours['runs'][0]['heavy_modules']) or 'none'}.",
        "",
        "| 99-chunk clinic compile (`policy-engine compile`, one run) | seconds | load (before/after) |",
        "|---|---|---|",
    ]
    for name, row in report["compile"].items():
        lines.append(f"| {name} | {row['seconds']:.1f} | {row['load1_before']}/{row['load1_after']} |")
    lines += ["", f"`protect`, {len(head['latencies_s'])} clinic questions on one open engine; head and baseline each serve the bundle they compiled:", "",
              "| tree (bundle) | p50 | CPU p50 | p90 | first question | load (before/after) |", "|---|---|---|---|---|---|"]
    for name, row in report["protect"].items():
        if isinstance(row, dict):
            lines.append(f"| {name} | {row['p50_s']:.3f} s | {row['cpu_p50_s']:.3f} s | {row['p90_s']:.3f} s | {row['first_s']:.3f} s | {row['load1_before']}/{row['load1_after']} |")
    if "baseline" in report["protect"]:
        ours, theirs = report["protect"]["head"], report["protect"]["baseline"]
        lines += ["", f"HEAD / baseline, each on its own bundle: p50 {ours['p50_s'] / theirs['p50_s']:.2f}x, CPU p50 {ours['cpu_p50_s'] / theirs['cpu_p50_s']:.2f}x."]
    if "identical_outputs" in report["protect"]:
        lines += ["", f"Protected outputs (context, redaction table, outcome) of HEAD on the baseline's bundle identical to the baseline's: **{report['protect']['identical_outputs']}**"
                  + (f" (differing questions: {report['protect']['differing']})" if report["protect"]["differing"] else "") + "."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per start-up measure (median reported)")
    parser.add_argument("--baseline", type=Path, help="a worktree of the baseline commit: compile and protect there too, and compare outputs")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from policy_engine import load_policy
    from policy_engine.detect.ner import model_location
    from policy_engine.nlp.pipeline import MODEL_NAME

    embedding = load_policy(ROOT / "policies" / "clinic").corpus.embedding.model_dump_json()
    asked = questions()
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        head_bundle, base_bundle = Path(tmp) / "head", Path(tmp) / "baseline"
        compiled = {"head": compile_clinic(ROOT, head_bundle)}
        if args.baseline:
            compiled["baseline"] = compile_clinic(args.baseline.resolve(), base_bundle)
        report: dict = {
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
            "runs": args.runs,
            "compile": compiled,
            "startup": startup(args.runs, head_bundle, model_location(MODEL_NAME), embedding),
        }
        report["protect"] = {"head": protect(ROOT, head_bundle, asked)}
        if args.baseline:
            report["protect"]["baseline"] = protect(args.baseline.resolve(), base_bundle, asked)
            # HEAD on the baseline's bundle: the same retrieval, so its outputs compare with the baseline's
            report["protect"]["head on the baseline's bundle"] = protect(ROOT, base_bundle, asked)
            pairs = zip(report["protect"]["head on the baseline's bundle"]["outputs"], report["protect"]["baseline"]["outputs"])
            report["protect"]["differing"] = [i for i, (a, b) in enumerate(pairs) if a != b]
            report["protect"]["identical_outputs"] = not report["protect"]["differing"]
        for row in (r for r in report["protect"].values() if isinstance(r, dict)):  # keep a digest per question, not the texts
            row["output_sha256"] = [hashlib.sha256(json.dumps(o, sort_keys=True).encode()).hexdigest()[:16] for o in row.pop("outputs")]
    report["questions"] = asked
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "startup.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "startup.md").write_text(markdown(report), encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
