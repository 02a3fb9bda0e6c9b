"""How long a DP answer takes, and the timeout that covers it (PEARL decoding on a small CPU).

A DP answer costs one batched prefill of the M subset prompts and the base
prompt, then ``max_new_tokens`` batched ensemble steps, then up to
``refill_sentences`` greedy refills of ``refill_max_new_tokens`` tokens each.
:func:`required_seconds` adds these up from a :class:`StepCost`;
:func:`answer_timeout` is that need times a safety factor.

Two sources of step costs:

``decoding`` is the policy's ``differential_privacy.decoding`` section or a
:class:`~enforcers.dp_decoding.config.DPDecodingSettings` (read by attribute, so
lint can use this module without importing torch).

* :data:`REFERENCE_COST`: measured with ``bench/dp_speed.py`` on the 2-core
  CPU this project is developed on (SmolLM2-135M, M = 4, under the shared
  machine's load), used by lint, which must not load a model;
* :func:`measure`: timed at engine start (the warm-up), on the machine
  that will serve, with the same batched code path the decoder runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

__all__ = ["REFERENCE_COST", "SAFETY", "StepCost", "answer_timeout", "measure", "required_seconds"]

#: Timeout = SAFETY x the measured need (load varies between warm-up and request).
SAFETY = 2.0


@dataclass(frozen=True)
class StepCost:
    """Seconds for one batched prefill, one batched ensemble step (M + 1 rows) and one single-sequence step."""

    prefill_s: float
    ensemble_step_s: float
    single_step_s: float


#: bench/dp_speed.py --prompts 3 --tokens 24 on the 2-core development CPU under load (see bench/results/dp_speed.json).
REFERENCE_COST = StepCost(prefill_s=3.0, ensemble_step_s=0.72, single_step_s=0.47)


def required_seconds(decoding: Any, cost: StepCost) -> float:
    """Seconds one DP answer needs at ``cost``: prefill, every generation step, every refill."""
    refills = decoding.refill_sentences if decoding.refill != "none" else 0
    return cost.prefill_s + decoding.max_new_tokens * cost.ensemble_step_s + refills * decoding.refill_max_new_tokens * cost.single_step_s


def answer_timeout(decoding: Any, cost: StepCost) -> float:
    """The timeout a DP answer gets: :data:`SAFETY` times :func:`required_seconds`."""
    return SAFETY * required_seconds(decoding, cost)


def measure(handle, subsets: int, steps: int = 3) -> StepCost:  # type: ignore[no-untyped-def]
    """Time the decoder's batched prefill (prompts of the bounded partition length) and steps on ``handle``.

    Also warms the model up, so that first-call work never runs inside a timed enforcer call.
    """
    from enforcers.dp_decoding.config import DPDecodingSettings
    from enforcers.dp_decoding.decoder import PARTITION_PROMPT_TOKENS, EnsembleState

    settings = DPDecodingSettings(subsets=subsets)
    sentence = list(handle.tokenizer(" Warm-up text for the private decoder, as long as a bounded partition prompt.", add_special_tokens=False)["input_ids"])
    prompt = (sentence * (PARTITION_PROMPT_TOKENS // len(sentence) + 1))[:PARTITION_PROMPT_TOKENS]
    started = time.perf_counter()
    state = EnsembleState(handle, [prompt] * (subsets + 1), settings)
    prefill = time.perf_counter() - started
    token = int(prompt[-1])
    timings = []
    for _ in range(steps):
        began = time.perf_counter()
        state.advance(token)
        timings.append(time.perf_counter() - began)
    single = EnsembleState(handle, [prompt, prompt], DPDecodingSettings(subsets=1))
    began = time.perf_counter()
    single.advance(token)
    return StepCost(prefill_s=prefill, ensemble_step_s=sorted(timings)[len(timings) // 2], single_step_s=time.perf_counter() - began)
