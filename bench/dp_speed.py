"""Speed of the PEARL DP ensemble decoder vs plain greedy generation (same model, same prompts).

Reports, in one run on this machine:

* end-to-end tokens/s of the DP decoder (M subsets + base, exponential
  mechanism) and of ``model.generate`` greedy decoding with all documents
  in one prompt;
* the cost of one KV-cached decoding step for the batched ensemble (M+1
  sequences) vs a single sequence, measured on the same code path
  (``EnsembleState.advance``) — the target is at most 2x for M=4.

    .venv/bin/python bench/dp_speed.py --prompts 6 --tokens 32
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.leakrag_data import ATTACK, build  # noqa: E402
from enforcers.dp_decoding.accounting import PrivacyAccountant  # noqa: E402
from enforcers.dp_decoding.config import DPDecodingSettings  # noqa: E402
from enforcers.dp_decoding.decoder import EnsembleDecoder, EnsembleState, subset_messages  # noqa: E402
from enforcers.dp_decoding.partition import RetrievedDocument, partition_documents, partition_key_from_secret  # noqa: E402
from policy_engine.llm.runtime import default_model_dir, load_model, render_chat  # noqa: E402


def _retrieved(records, example) -> list[RetrievedDocument]:
    return [RetrievedDocument(i, records[i].text) for i in example.retrieved]


def _step_seconds(state: EnsembleState, steps: int, token: int) -> list[float]:
    timings = []
    for _ in range(steps):
        started = time.perf_counter()
        state.advance(token)
        timings.append(time.perf_counter() - started)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description="DP decoder vs greedy speed")
    parser.add_argument("--prompts", type=int, default=6)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--subsets", type=int, default=4)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("bench/results/dp_speed.json"))
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    handle = load_model(args.model or default_model_dir())
    records_list, examples = build(per_domain=max(4, args.prompts), distractors=3, seed=7)
    records = {r.id: r for r in records_list}
    examples = examples[: args.prompts]
    settings = DPDecodingSettings(subsets=args.subsets, max_new_tokens=args.tokens)
    decoder = EnsembleDecoder(handle, settings)
    key = partition_key_from_secret(b"bench")
    token = handle.tokenizer(" the", add_special_tokens=False)["input_ids"][0]

    dp_tokens = dp_seconds = greedy_tokens = greedy_seconds = 0.0
    batched_steps: list[float] = []
    single_steps: list[float] = []
    for example in examples:
        query = f"{example.query} {ATTACK}"
        documents = _retrieved(records, example)
        parts = partition_documents(documents, args.subsets, key)

        started = time.perf_counter()
        result = decoder.generate(query, parts, 1.0, PrivacyAccountant(1e6, 1e-5), torch.Generator().manual_seed(0))
        dp_seconds += time.perf_counter() - started
        dp_tokens += max(1, result.steps)

        prompt = torch.tensor([render_chat(handle, subset_messages(query, documents))])
        started = time.perf_counter()
        with torch.inference_mode():
            output = handle.model.generate(
                input_ids=prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=args.tokens,
                do_sample=False, pad_token_id=handle.tokenizer.pad_token_id or handle.tokenizer.eos_token_id,
            )
        greedy_seconds += time.perf_counter() - started
        greedy_tokens += output.shape[1] - prompt.shape[1]

        ensemble = decoder.start(query, parts)
        batched_steps += _step_seconds(ensemble, args.tokens, token)
        single = EnsembleState(handle, [render_chat(handle, subset_messages(query, documents))], settings)
        single_steps += _step_seconds(single, args.tokens, token)

    batched = statistics.median(batched_steps)
    single = statistics.median(single_steps)
    report = {
        "benchmark": "dp_speed",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
                    "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                    "device": handle.device, "platform": platform.platform()},
        "model": str(handle.source),
        "prompts": len(examples),
        "max_new_tokens": args.tokens,
        "subsets": args.subsets,
        "dp_tokens_per_second": round(dp_tokens / dp_seconds, 2),
        "greedy_tokens_per_second": round(greedy_tokens / greedy_seconds, 2),
        "dp_over_greedy_time_per_token": round((dp_seconds / dp_tokens) / (greedy_seconds / greedy_tokens), 2),
        "ensemble_step_ms_median": round(batched * 1000, 2),
        "single_step_ms_median": round(single * 1000, 2),
        "ensemble_step_over_single_step": round(batched / single, 2),
        "target_ensemble_step_over_single_step": 2.0,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
