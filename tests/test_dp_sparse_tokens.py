"""The sparse token release (AboveThreshold per token, public token for free): what it charges and when it stops.

Real tiny Llama model and real ensemble states (:mod:`tiny_lm`); the noise is
seeded only here, through a plain ``torch.Generator`` (production draws a
CSPRNG-seeded one per request, :mod:`enforcers.dp_decoding.noise`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch
from tiny_lm import build_tiny_model

from enforcers.dp_decoding.accounting import PrivacyAccountant, exponential_mechanism_rho, pure_dp_rho
from enforcers.dp_decoding.api import plan_budget
from enforcers.dp_decoding.config import DPDecodingSettings
from enforcers.dp_decoding.decoder import EnsembleDecoder
from enforcers.dp_decoding.partition import RetrievedDocument, partition_documents, partition_key_from_secret
from enforcers.dp_decoding.token_release import SparseTokens
from policy_engine.llm.runtime import load_model

QUERY = "what is the fee ?"
DOCS = [RetrievedDocument("a", "the patient has fever and cough"), RetrievedDocument("b", "bank account refund fee")]
SETTINGS = DPDecodingSettings(subsets=2, max_new_tokens=12, min_new_tokens=12, max_sentences=None, candidates=1000, token_release="sparse")
EPSILON_TEST, EPSILON_TOKEN = 0.4, 1.5


@pytest.fixture(scope="module")
def handle(tmp_path_factory):
    return load_model(build_tiny_model(tmp_path_factory.mktemp("tiny-sparse")))


@pytest.fixture(scope="module")
def parts():
    return partition_documents(DOCS, 2, partition_key_from_secret(b"test-partition"))


def _run(handle, parts, threshold: float, seed: int, accountant: PrivacyAccountant | None = None, steps: int = 12) -> tuple[SparseTokens, PrivacyAccountant, list[int]]:
    """Release ``steps`` tokens through :class:`SparseTokens` (stopping early when it returns None)."""
    accountant = accountant or PrivacyAccountant(100.0, 1e-5)
    state = EnsembleDecoder(handle, SETTINGS).start(QUERY, parts)
    release = SparseTokens(EPSILON_TEST, EPSILON_TOKEN, threshold, 2, accountant, torch.Generator().manual_seed(seed))
    tokens = []
    for _ in range(steps):
        token = release.next_token(state, ())
        if token is None:
            break
        tokens.append(token)
        state.advance(token)
    return release, accountant, tokens


def _charged(release: SparseTokens) -> float:
    return release.runs * pure_dp_rho(EPSILON_TEST) + release.paid * exponential_mechanism_rho(EPSILON_TOKEN)


def test_free_tokens_cost_nothing_beyond_the_one_open_run(handle, parts):
    release, accountant, tokens = _run(handle, parts, threshold=1e9, seed=1)  # no noisy query reaches the threshold
    assert len(tokens) == 12 and release.decisions == [False] * 12
    assert (release.runs, release.paid) == (1, 0)
    assert accountant.rho_spent == pytest.approx(pure_dp_rho(EPSILON_TEST))


def test_every_paid_token_pays_its_run_and_its_exponential_mechanism(handle, parts):
    release, accountant, _ = _run(handle, parts, threshold=-1e9, seed=1)  # every query is above
    assert release.decisions == [True] * 12
    assert (release.runs, release.paid) == (12, 12)
    assert accountant.rho_spent == pytest.approx(12 * (pure_dp_rho(EPSILON_TEST) + exponential_mechanism_rho(EPSILON_TOKEN)))


def test_a_mixed_sequence_is_charged_one_run_per_paid_token_plus_the_open_one(handle, parts):
    threshold = _median_divergence(handle, parts)
    release, accountant, _ = _run(handle, parts, threshold=threshold, seed=4)
    decisions = release.decisions
    assert any(decisions) and not all(decisions), decisions  # both kinds occur at this threshold and seed
    runs = sum(decisions) + (not decisions[-1])  # each "above" ends a run; a final "below" leaves one open
    assert (release.runs, release.paid) == (runs, sum(decisions))
    assert accountant.rho_spent == pytest.approx(_charged(release))
    assert accountant.applications == release.runs + release.paid  # one event per run, one per paid token


def _median_divergence(handle, parts) -> float:
    state = EnsembleDecoder(handle, SETTINGS).start(QUERY, parts)
    values = []
    for token in (7, 12, 30, 41, 9, 17):
        values.append(state.divergence())
        state.advance(token)
    assert all(0.0 <= v <= 1.0 for v in values)
    return sorted(values)[len(values) // 2]


def test_a_run_opens_only_when_its_test_and_a_paid_token_fit_then_the_public_model_goes_on_for_free(handle, parts):
    accountant = PrivacyAccountant(100.0, 1e-5)
    room = 3 * (pure_dp_rho(EPSILON_TEST) + exponential_mechanism_rho(EPSILON_TOKEN))
    accountant.charge_pure(math.sqrt(2 * (accountant.rho_budget - room * (1 + 1e-9))))  # leave room for exactly 3 runs
    spent_before = accountant.rho_spent
    release, accountant, tokens = _run(handle, parts, threshold=-1e9, seed=2, accountant=accountant)
    assert (release.runs, release.paid, len(tokens), release.exhausted) == (3, 3, 12, True)
    assert release.decisions == [True] * 3 + [False] * 9
    assert accountant.rho_spent - spent_before == pytest.approx(_charged(release)) and accountant.rho_spent <= accountant.rho_budget


def test_the_same_test_seed_gives_the_same_release_and_another_seed_need_not(handle, parts):
    threshold = _median_divergence(handle, parts)
    first, _, tokens = _run(handle, parts, threshold, seed=4)
    second, _, again = _run(handle, parts, threshold, seed=4)
    assert (tokens, first.decisions) == (again, second.decisions)


def test_the_plan_pays_for_the_planned_runs_and_tokens_within_the_generation_share():
    decoding = replace(SETTINGS, sparse_paid_tokens=6, sparse_test_share=0.4, refill="none")
    plan = plan_budget(1.0, 1e-5, decoding)
    assert plan.epsilon_test is not None
    tests, tokens = 6 * pure_dp_rho(plan.epsilon_test), 6 * exponential_mechanism_rho(plan.epsilon_step)
    assert tests + tokens <= plan.rho_generation
    assert tests == pytest.approx(0.4 * plan.rho_generation) and tokens == pytest.approx(0.6 * plan.rho_generation)
    every = plan_budget(1.0, 1e-5, replace(decoding, token_release="every"))
    assert plan.epsilon_step > every.epsilon_step  # fewer paid tokens: each may move the distribution further


def test_the_decoder_pays_no_more_than_its_share_when_no_run_fits(handle, parts):
    decoder = EnsembleDecoder(handle, replace(SETTINGS, sparse_threshold=-1e9))  # every token above: each one opens and ends a run
    accountant = PrivacyAccountant(100.0, 1e-5)
    per_run = pure_dp_rho(EPSILON_TEST) + exponential_mechanism_rho(EPSILON_TOKEN)
    result = decoder.generate(QUERY, parts, EPSILON_TOKEN, accountant, torch.Generator().manual_seed(0), rho_ceiling=2.5 * per_run, epsilon_test=EPSILON_TEST)
    assert (result.stop_reason, result.steps, result.paid, len(result.token_ids)) == ("max_tokens", 12, 2, 12)
    assert accountant.rho_spent == pytest.approx(2 * per_run)
    with pytest.raises(ValueError, match="epsilon_test"):
        decoder.generate(QUERY, parts, EPSILON_TOKEN, accountant, torch.Generator().manual_seed(0))


def test_once_no_run_fits_the_decoder_runs_the_public_row_alone(handle, parts):
    """After the last affordable run, each step is one row of the model (the base one), not M + 1."""
    decoder = EnsembleDecoder(handle, replace(SETTINGS, sparse_threshold=-1e9))
    per_run = pure_dp_rho(EPSILON_TEST) + exponential_mechanism_rho(EPSILON_TOKEN)
    distinct = decoder.start(QUERY, parts).distinct_sequences
    assert distinct > 1
    rows: list[int] = []
    hook = handle.model.register_forward_pre_hook(lambda _module, _args, kwargs: rows.append(int(kwargs["input_ids"].shape[0])), with_kwargs=True)
    try:
        result = decoder.generate(
            QUERY, parts, EPSILON_TOKEN, PrivacyAccountant(100.0, 1e-5), torch.Generator().manual_seed(0), rho_ceiling=2.5 * per_run, epsilon_test=EPSILON_TEST
        )
    finally:
        hook.remove()
    steps = rows[-(len(result.token_ids) - 1):]  # the prefill runs each distinct prompt alone; then one forward per released token
    assert (result.paid, len(result.token_ids)) == (2, 12)
    assert steps == [distinct] * 2 + [1] * 9  # every distinct prompt while runs open; the base row alone once none fits
    assert result.cg_trace[3:] == [0.0] * 9
