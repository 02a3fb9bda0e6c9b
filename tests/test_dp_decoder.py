"""Privacy of the DP ensemble decoder on a tiny random model (neighbouring document sets)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest
import torch
from tiny_lm import build_tiny_model

from enforcers.dp_decoding.accounting import PrivacyAccountant, exponential_mechanism_rho
from enforcers.dp_decoding.config import DPDecodingSettings
from enforcers.dp_decoding.decoder import EnsembleDecoder
from enforcers.dp_decoding.noise import noise_generator
from enforcers.dp_decoding.partition import RetrievedDocument, partition_documents, partition_key_from_secret
from policy_engine.llm.runtime import load_model, render_chat

QUERY = "what is the fee ?"
KEY = partition_key_from_secret(b"test-partition")
DOCS = [RetrievedDocument("a", "the patient has fever and cough"), RetrievedDocument("b", "bank account refund fee")]
ADDED = RetrievedDocument("c", "call the clinic phone please contact doctor soon")
SETTINGS = DPDecodingSettings(subsets=2, clip=4.0, max_new_tokens=2, candidates=1000, cg_clip=2.0)


@pytest.fixture(scope="module")
def handle(tmp_path_factory):
    return load_model(build_tiny_model(tmp_path_factory.mktemp("tiny-dp")))


@pytest.fixture(scope="module")
def worlds():
    """(D, D') partitions: D' has one more document, in exactly one subset."""
    d, d_prime = partition_documents(DOCS, 2, KEY), partition_documents(DOCS + [ADDED], 2, KEY)
    assert sum(a != b for a, b in zip(d, d_prime)) == 1
    return d, d_prime


def _max_log_ratio(decoder, worlds, epsilon_step, prefix=()):
    states = [decoder.start(QUERY, parts) for parts in worlds]
    for token in prefix:
        for state in states:
            state.advance(token)
    first, second = (s.distribution(epsilon_step) for s in states)
    assert torch.equal(first.candidates, second.candidates)  # public candidate set
    return float((first.probabilities.log() - second.probabilities.log()).abs().max())


@pytest.mark.parametrize("prefix", [(), (7,), (7, 12, 30)])
@pytest.mark.parametrize("epsilon_step", [0.2, 1.0, 4.0])
def test_each_step_is_epsilon_dp_for_neighbouring_document_sets(handle, worlds, prefix, epsilon_step):
    decoder = EnsembleDecoder(handle, SETTINGS)
    ratio = _max_log_ratio(decoder, worlds, epsilon_step, prefix)
    assert ratio <= epsilon_step + 1e-9
    assert ratio > 0.05 * epsilon_step  # the added document does change the output (least at the tiny model's first step: 0.09)


@pytest.mark.parametrize("base_temperature", [0.3, 2.0])
def test_a_sharpened_or_flattened_public_measure_keeps_the_bound(handle, worlds, base_temperature):
    """The base measure p_base ** (1/T) is public: the per-step bound is unchanged, and T changes the output."""
    sharpened = EnsembleDecoder(handle, replace(SETTINGS, base_temperature=base_temperature))
    ratio = _max_log_ratio(sharpened, worlds, 1.0, (7,))
    assert 0.05 < ratio <= 1.0 + 1e-9
    state, plain = sharpened.start(QUERY, worlds[0]), EnsembleDecoder(handle, SETTINGS).start(QUERY, worlds[0])
    assert not torch.allclose(state.distribution(1.0).probabilities, plain.distribution(1.0).probabilities)


def test_check_detects_a_miscalibrated_mechanism(handle, worlds):
    """Power check: sampling at 10x the claimed epsilon exceeds the claimed bound."""
    decoder = EnsembleDecoder(handle, SETTINGS)
    assert _max_log_ratio(decoder, worlds, 10 * 0.3, (7,)) > 0.3


def _sample_prefixes(decoder, parts, epsilon_step, samples):
    """Sampled outputs with the production noise source (fresh CSPRNG-seeded generator per request)."""
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(samples):
        result = decoder.generate(QUERY, parts, epsilon_step, PrivacyAccountant(100.0, 1e-5), noise_generator())
        counts[tuple(result.token_ids)] += 1
    return counts


def _violations(counts, counts_prime, samples, epsilon):
    """Prefixes whose frequency ratio exceeds e^epsilon beyond 4 standard errors."""
    bad = []
    for prefix in set(counts) | set(counts_prime):
        for p, q in ((counts[prefix] / samples, counts_prime[prefix] / samples),
                     (counts_prime[prefix] / samples, counts[prefix] / samples)):
            error = math.sqrt(p * (1 - p) / samples + math.exp(2 * epsilon) * q * (1 - q) / samples)
            if p - math.exp(epsilon) * q > 4 * error + 1 / samples:
                bad.append((prefix, p, q))
    return bad


@pytest.mark.slow
def test_sampled_prefix_frequencies_stay_within_e_epsilon(handle, worlds):
    """Empirical DP check over sampled 2-token outputs, with a miscalibrated control."""
    decoder = EnsembleDecoder(handle, SETTINGS)
    samples, epsilon_step = 300, 0.5
    total_epsilon = 2 * epsilon_step  # two exponential-mechanism steps compose to 1.0
    private = [_sample_prefixes(decoder, w, epsilon_step, samples) for w in worlds]
    assert _violations(*private, samples, total_epsilon) == []
    leaky = [_sample_prefixes(decoder, w, 12.0, samples) for w in worlds]
    assert _violations(*leaky, samples, total_epsilon) != []


def test_batched_kv_cache_matches_single_sequence_forward(handle, worlds):
    """Left padding + position ids + KV cache reproduce each row's own forward pass."""
    decoder = EnsembleDecoder(handle, SETTINGS)
    state = decoder.start(QUERY, worlds[1])
    released = [7, 12, 30]
    for token in released:
        state.advance(token)
    prompts = [render_chat(handle, m) for m in _messages(worlds[1])]
    for row, prompt in enumerate(prompts):
        assert torch.allclose(state.next_token_logprobs[row].cpu(), _single_forward(handle, prompt + released), atol=ATOL[handle.model.dtype])


#: How far a batched, left-padded, cached row's log-probabilities may lie from its own forward pass: float32 on the
#: CPU, float16 where the runtime loads the model on a GPU (runtime.load_model).
ATOL = {torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 5e-2}


def _single_forward(handle, ids: list[int]) -> torch.Tensor:
    """Next-token log-probabilities of one sequence's own forward pass, on the model's device, returned on the CPU."""
    with torch.inference_mode():
        logits = handle.model(input_ids=torch.tensor([ids], device=handle.model.device)).logits[0, -1]
    return torch.log_softmax(logits.double(), -1).cpu()


def _messages(parts):
    from enforcers.dp_decoding.decoder import base_messages, subset_messages

    return [subset_messages(QUERY, p) for p in parts] + [base_messages(QUERY)]


def test_generation_stops_when_the_budget_is_spent(handle, worlds):
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_new_tokens=50))
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    step = 0.3
    result = decoder.generate(QUERY, worlds[0], step, accountant, torch.Generator().manual_seed(0))
    affordable = int(accountant.rho_budget // exponential_mechanism_rho(step))
    assert result.stop_reason in {"budget", "eos"}
    assert result.steps <= affordable
    assert accountant.epsilon_spent() <= 1.0
    if result.stop_reason == "budget":
        assert result.steps == affordable


def test_decoder_refuses_to_start_without_budget(handle, worlds):
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    accountant.charge_exponential(math.sqrt(8 * accountant.rho_budget) * (1 - 1e-9))
    decoder = EnsembleDecoder(handle, SETTINGS)
    result = decoder.generate(QUERY, worlds[0], 0.5, accountant, torch.Generator().manual_seed(0))
    assert (result.token_ids, result.stop_reason, result.steps) == ([], "budget", 0)


def test_confidence_gap_trace_is_bounded_and_per_token(handle, worlds):
    settings = DPDecodingSettings(subsets=2, max_new_tokens=8, cg_clip=0.05)
    result = EnsembleDecoder(handle, settings).generate(
        QUERY, worlds[0], 2.0, PrivacyAccountant(100.0, 1e-5), torch.Generator().manual_seed(5)
    )
    assert len(result.cg_trace) == len(result.token_ids)
    assert all(abs(cg) <= 0.05 + 1e-12 for cg in result.cg_trace)


def test_same_seed_same_output(handle, worlds):
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_new_tokens=6))
    runs = [
        decoder.generate(QUERY, worlds[0], 1.0, PrivacyAccountant(100.0, 1e-5), torch.Generator().manual_seed(9)).token_ids
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_end_of_sequence_is_no_candidate_before_min_new_tokens(handle, worlds):
    """A draft is never cut empty by an early stop: EOS leaves the public candidate set until min_new_tokens are out."""
    eos = handle.eos_token_ids
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_new_tokens=6, min_new_tokens=4, candidates=1000))
    state = decoder.start(QUERY, worlds[0])
    assert any(int(t) in eos for t in state.distribution(0.5).candidates), "the tiny model proposes EOS at the first step"
    assert not any(int(t) in eos for t in state.distribution(0.5, exclude=tuple(eos)).candidates)
    for _ in range(20):
        result = decoder.generate(QUERY, worlds[0], 0.5, PrivacyAccountant(100.0, 1e-5), noise_generator())
        assert len(result.token_ids) >= 4


def test_progress_listeners_get_one_count_per_sampled_token_and_never_break_decoding(handle, worlds):
    from enforcers.dp_decoding.progress import listening

    counts: list[tuple[int, int]] = []

    def broken(done: int, total: int) -> None:
        raise RuntimeError("display gone")

    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_new_tokens=6))
    with listening(lambda done, total: counts.append((done, total))), listening(broken):
        result = decoder.generate(QUERY, worlds[0], 1.0, PrivacyAccountant(100.0, 1e-5), torch.Generator().manual_seed(3))
    assert [done for done, _ in counts] == list(range(1, result.steps + 1))
    assert {total for _, total in counts} == {6}
    decoder.generate(QUERY, worlds[0], 1.0, PrivacyAccountant(100.0, 1e-5), torch.Generator().manual_seed(3))
    assert len(counts) == result.steps  # a listener hears nothing once its block has ended


def test_subsets_with_one_prompt_share_one_sequence_and_keep_their_own_distribution(handle):
    """Empty subsets (prompt = the base prompt) are run once, yet every row matches its own forward pass."""
    parts = partition_documents(DOCS, 4, KEY)
    assert sum(not p for p in parts) >= 2, "two documents over four subsets leave at least two empty"
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=4, max_new_tokens=4))
    state = decoder.start(QUERY, parts)
    prompts = [render_chat(handle, m) for m in [*(_subset_messages(p) for p in parts), _messages([])[-1]]]
    assert state.distinct_sequences == len({tuple(p) for p in prompts}) < len(prompts)
    released = [7, 12]
    for token in released:
        state.advance(token)
    for row, prompt in enumerate(prompts):
        assert torch.allclose(state.next_token_logprobs[row].cpu(), _single_forward(handle, prompt + released), atol=ATOL[handle.model.dtype])


def _subset_messages(part):
    from enforcers.dp_decoding.decoder import subset_messages

    return subset_messages(QUERY, part)


@pytest.mark.parametrize(("limit", "stops_at"), [(1, 5), (2, 8), (None, None)])
def test_sampling_stops_at_the_token_that_opens_the_sentence_past_the_limit(handle, limit, stops_at):
    """"the patient has fever . the cough . the" ends its first sentence only once "the" follows the stop."""
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_sentences=limit))
    tokens = handle.tokenizer("the patient has fever . the cough . the", add_special_tokens=False)["input_ids"]
    opening = [n for n in range(len(tokens)) if decoder._opens_sentence_past_limit(tokens[:n], tokens[n])]
    assert (opening[0] if opening else None) == stops_at


def test_a_sentence_limited_draft_is_charged_for_every_sampled_token(handle, worlds):
    """The dropped token that opened the extra sentence was sampled, so it stays charged: never under-counted."""
    decoder = EnsembleDecoder(handle, DPDecodingSettings(subsets=2, max_new_tokens=40, max_sentences=1, min_new_tokens=0))
    accountant = PrivacyAccountant(epsilon=50.0, delta=1e-5)
    result = decoder.generate(QUERY, worlds[0], 0.3, accountant, torch.Generator().manual_seed(3))
    assert math.isclose(accountant.rho_spent, result.steps * exponential_mechanism_rho(0.3))
    dropped = int(result.stop_reason == "sentences")
    assert result.steps == len(result.token_ids) + dropped + int(result.stop_reason == "eos")
