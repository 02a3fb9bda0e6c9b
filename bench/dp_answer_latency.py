"""End-to-end latency of private answers (``ask --dp``) on the clinic example, as a user waits for them.

Opens the clinic bundle once with the ``dp_decoding`` enforcer added (the
engine start includes the decoder warm-up that sets the enforcer's timeout),
then asks each question with a fresh principal, so no answer is refused
for budget.  Per answer it records the wall time of ``Engine.ask``
(retrieval, query rewriting, erasure, redaction and PEARL decoding), the
tokens the decoder sampled, and the outcome (answered, abstained, denied:
a timeout is a denial).  The ledger is a temporary file, never the
example's own.

    .venv/bin/python bench/dp_answer_latency.py --questions 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from enforcers.dp_decoding.progress import listening  # noqa: E402
from policy_engine.bundle.reader import Bundle  # noqa: E402
from policy_engine.engine.runtime import Engine  # noqa: E402

QUESTIONS = (
    "Which medication and dose was the patient with type 2 diabetes prescribed?",
    "Why was the patient with asthma seen at the clinic?",
    "What follow-up was recommended after the blood test?",
    "Which allergies were recorded for the patient?",
    "What did the physiotherapy note say about the knee?",
    "How was the patient's blood pressure managed?",
    "What was the outcome of the specimen check?",
    "What advice was given about the inhaler?",
    "Why was the referral to cardiology made?",
    "What was discussed at the medication review?",
    "What symptoms did the patient report at the last visit?",
    "Which vaccinations were given?",
)


class _Tokens:
    """Progress listener of one answer: tokens sampled and the seconds to the first one."""

    def __init__(self) -> None:
        self.began = time.perf_counter()
        self.sampled = 0
        self.first_token_s: float | None = None

    def __call__(self, done: int, _total: int) -> None:
        self.sampled = done
        if self.first_token_s is None:
            self.first_token_s = time.perf_counter() - self.began


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[round(share * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", type=Path, default=Path("bundles/clinic"), help="a compiled clinic bundle (make demo builds it)")
    parser.add_argument("--questions", type=int, default=10, help=f"how many of the {len(QUESTIONS)} questions to ask")
    parser.add_argument("--out", type=Path, default=Path("bench/results/dp_answer_latency.json"))
    args = parser.parse_args()
    if not args.bundle.exists():
        raise SystemExit(f"{args.bundle}: no bundle; build it with `policy-engine compile policies/clinic -o {args.bundle}`")

    load_at_start = os.getloadavg()[0]
    print(f"$ {' '.join(sys.argv)}  (load average {load_at_start:.2f})", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        bundle = Bundle.open(args.bundle)
        policy = bundle.policy
        ledger = Path(scratch) / "ledger.sqlite"
        policy = policy.model_copy(update={"audit": policy.audit.model_copy(update={"ledger": str(ledger)})})
        started = time.perf_counter()
        engine = Engine(policy, retriever=bundle, extra_enforcers=("dp_decoding",))
        start_s = time.perf_counter() - started
        dp = next(e for e in engine.pipeline.enforcers if e.name == "dp_decoding")
        rows = []
        for n, question in enumerate(QUESTIONS[: args.questions]):
            heard = _Tokens()
            with listening(heard):
                asked = engine.ask(question, principal=f"latency-bench-{n}", purpose="care")
            seconds = time.perf_counter() - heard.began
            rows.append(
                {
                    "question": question,
                    "seconds": round(seconds, 2),
                    "tokens_sampled": heard.sampled,
                    "first_token_s": round(heard.first_token_s, 2) if heard.first_token_s is not None else None,
                    "outcome": asked.outcome.value,
                    "answered": bool(asked.answer),
                    "refusal": asked.refusal,
                    "epsilon_spent": round(asked.privacy.epsilon_spent, 4) if asked.privacy is not None else None,
                }
            )
            shown = f"{heard.first_token_s:5.1f} s to the first token" if heard.first_token_s is not None else "no token"
            print(f"{n + 1}/{args.questions} {seconds:6.1f} s  {shown}  {heard.sampled:3d} tokens  {asked.outcome.value}{'' if asked.answer else ' (no text)'}", flush=True)

    seconds = [r["seconds"] for r in rows]
    answered = [r for r in rows if r["answered"]]
    result = {
        "benchmark": "dp_answer_latency",
        "command": "python bench/dp_answer_latency.py --questions " + str(args.questions),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_1m_at_start": round(load_at_start, 1),
            "load_average_1m_at_end": round(os.getloadavg()[0], 1),
        },
        "settings": {
            "max_new_tokens": policy.differential_privacy.decoding.max_new_tokens if policy.differential_privacy else None,
            "subsets": policy.differential_privacy.decoding.subsets if policy.differential_privacy else None,
            "policy_timeout_s": policy.enforcement.timeout_s,
            "enforcer_timeout_s": round(dp.timeout_s or 0.0, 1),
        },
        "engine_start_s": round(start_s, 1),
        "answers": len(rows),
        "answered": len(answered),
        "abstained": sum(r["outcome"] == "abstained" for r in rows),
        "denied": sum(r["outcome"] == "denied" for r in rows),
        "latency_s": {"p50": round(statistics.median(seconds), 1), "p95": round(_percentile(seconds, 0.95), 1), "max": round(max(seconds), 1)},
        "first_token_s_p50": round(statistics.median(r["first_token_s"] for r in rows if r["first_token_s"] is not None), 1) if any(r["first_token_s"] is not None for r in rows) else None,
        "seconds_per_sampled_token": round(sum(seconds) / max(1, sum(r["tokens_sampled"] for r in rows)), 2),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=2))


if __name__ == "__main__":
    main()
