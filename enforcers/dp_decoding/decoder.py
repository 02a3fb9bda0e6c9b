"""Document-level DP ensemble decoding (PEARL Algorithm 1, lines 1-12).

Each distinct prompt (the M subset-conditioned ones and the no-context base
one) is prefilled alone, its keys and values left-padded into one batch
cache; at every step the sequences then advance as one batched forward pass.  The next token is drawn by the exponential mechanism.

Sensitivity derivation
----------------------
Let ``l_i(v) = log softmax(logits_i)(v)`` be subset i's log-probability of
token v and ``c_i(v) = max(l_i(v), -C)`` its clipped value, so
``c_i(v) in [-C, 0]``.  The utility is the ensemble average
``u(D, v) = (1/M) sum_i c_i(v)``.

Adding or removing one document changes exactly one subset (keyed-hash
partition), hence exactly one term of the average: for every v,
``u(D, v) - u(D', v) = (c_j(v) - c'_j(v)) / M in [-C/M, C/M]``.  The change
ranges over an interval of width ``2C/M`` (the range sensitivity).  Sampling

    P(v) ∝ p_base(v) * exp(epsilon_step * u(D, v) * M / (2C))

over the candidate set is epsilon_step-bounded-range: the log-ratio of the
probabilities of v and v' under D vs D' differs by at most
``epsilon_step * M / (2C) * 2C / M = epsilon_step``.  It is therefore
epsilon_step-DP and epsilon_step**2/8-zCDP.  The base measure ``p_base`` and
the candidate set (the ``candidates`` most likely tokens of the no-context
model) depend only on the query and the already released prefix, never on
the documents, so they cost nothing; at small epsilon the decoder falls back
to the public base model instead of to uniform noise.  The base measure may
be sharpened, ``p_base(v) ** (1 / T)`` with ``T = base_temperature``: still
public, so the bound above is unchanged.

Why the base measure matters: the documents move a token's log-probability
by at most ``epsilon_step * M / 2`` nats (``u`` spans at most ``C``), about
0.1 nats per token at an answer epsilon of 1 over 64 tokens with M = 4.  At
such budgets the draft *is* the public model's, so sampling that model at
temperature 1 released chatter ("Breathe some time out of my day.") that the
grounding check then cut; a sharper public measure and the grounded answer
instructions (:data:`~policy_engine.llm.prompts.ANSWER_SYSTEM`, shared with
plain answers: use only the documents, say when they do not hold the answer)
keep the public part from inventing.

Confidence gap
--------------
``CG_t = (1/M) sum_i clip(H(p_base) - H(p_i), -B, B)`` with B = ``cg_clip``.
Per subset, not of the averaged distribution, so one document moves
``CG_t`` by at most ``2B/M``.  It is computed from the non-private
distributions and is only used through the accounted sentence selection;
the raw trace is confidential.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import DynamicCache

from enforcers.dp_decoding.accounting import PrivacyAccountant
from enforcers.dp_decoding.config import DPDecodingSettings
from enforcers.dp_decoding.mechanisms import exponential_scores
from enforcers.dp_decoding.partition import RetrievedDocument
from enforcers.dp_decoding.progress import report
from enforcers.dp_decoding.token_release import EveryToken, SparseTokens, TokenRelease
from policy_engine.llm.prompts import ANSWER_SYSTEM
from policy_engine.llm.runtime import ModelHandle, render_chat
from policy_engine.nlp.sentences import sentence_spans

__all__ = ["DecodingResult", "EnsembleDecoder", "EnsembleState", "StepDistribution"]

@functools.cache
def _forward_parameters(model_type: type) -> frozenset[str]:
    return frozenset(inspect.signature(getattr(model_type, "forward", model_type.__call__)).parameters)


def _cache_keyword(model: torch.nn.Module) -> str:
    """The key-value cache argument of the model's forward: ``cache`` from transformers 5.x, ``past_key_values`` before."""
    return "cache" if "cache" in _forward_parameters(type(model)) else "past_key_values"



#: Model tokens of document context one partition's prompt may hold.  Each step attends over
#: every prompt, so this bounds the per-token cost; it depends on the partition's own documents
#: only, so the sensitivity analysis above is unchanged.
PARTITION_PROMPT_TOKENS = 384


def bounded_context(tokenizer, text: str, limit: int = PARTITION_PROMPT_TOKENS) -> str:  # type: ignore[no-untyped-def]
    """``text`` cut to at most ``limit`` tokens, at the last sentence end inside the limit when there is one."""
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) <= limit:
        return text
    head = tokenizer.decode(ids[:limit], skip_special_tokens=True)
    end = max(head.rfind(". "), head.rfind(".\n"))
    return head[: end + 1] if end > len(head) // 2 else head


def subset_messages(query: str, documents: Sequence[RetrievedDocument], tokenizer=None) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    """Chat messages for one context-conditioned sequence (empty subset: query only).

    With a ``tokenizer``, the document context is bounded to :data:`PARTITION_PROMPT_TOKENS`.
    """
    if documents:
        context = "\n\n".join(f"[{i + 1}] {d.text}" for i, d in enumerate(documents))
        if tokenizer is not None:
            context = bounded_context(tokenizer, context)
        return [{"role": "system", "content": f"{ANSWER_SYSTEM}\n\nContext:\n{context}"}, {"role": "user", "content": query}]
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": query}]


def base_messages(query: str) -> list[dict[str, str]]:
    """Chat messages for the no-context (public) base sequence."""
    return subset_messages(query, [])


@dataclass(frozen=True)
class StepDistribution:
    """The private next-token distribution of one step."""

    candidates: torch.Tensor  # token ids, shape (K,)
    probabilities: torch.Tensor  # float64, shape (K,), sums to 1


@dataclass
class DecodingResult:
    """Output of the DP decoder.

    ``cg_trace`` holds CG_t per generated token (confidential, see module
    docstring; 0 for a token the public row alone produced); ``stop_reason`` is ``"eos"``, ``"max_tokens"``, ``"sentences"``
    (``max_sentences`` complete), ``"budget"`` or ``"deadline"``; ``steps``
    counts the tokens drawn, ``paid`` those drawn by the exponential mechanism
    (all of them under ``token_release="every"``).
    """

    token_ids: list[int]
    text: str
    cg_trace: list[float]
    stop_reason: str
    epsilon_step: float
    steps: int
    paid: int = 0


class EnsembleState:
    """KV-cached batch of M subset sequences plus the base sequence (last row).

    Sequences with the same prompt (an empty subset's prompt is the base
    prompt) stay equal at every step, since all append the same released
    token: each distinct prompt is run once and its log-probabilities are
    shared by the rows that hold it, so the distribution is exactly that of
    the full batch at the cost of the distinct prompts only.
    """

    def __init__(self, handle: ModelHandle, prompts: Sequence[Sequence[int]], settings: DPDecodingSettings):
        self.handle = handle
        self.settings = settings
        self.subsets = len(prompts) - 1
        distinct = list(dict.fromkeys(tuple(p) for p in prompts))
        self._rows = torch.tensor([distinct.index(tuple(p)) for p in prompts], dtype=torch.long, device=handle.device)
        width = max(len(p) for p in distinct)
        mask = torch.zeros((len(distinct), width), dtype=torch.long)
        for row, prompt in enumerate(distinct):
            mask[row, width - len(prompt):] = 1
        self._mask = mask.to(handle.device)
        self._next_position = self._mask.sum(-1, keepdim=True)
        self._cache = None
        self._logprobs = self._prefill(distinct)

    @torch.inference_mode()
    def _prefill(self, prompts: Sequence[Sequence[int]]) -> torch.Tensor:
        """Run each prompt alone (no padding computed), then left-pad the keys and values into one batch cache.

        Padded key slots are zeros that the attention mask hides, so every row
        continues exactly as its own unpadded sequence would.
        """
        model, device = self.handle.model, self.handle.device
        caches, logits = [], []
        for prompt in prompts:
            output = model(input_ids=torch.tensor([list(prompt)], device=device), use_cache=True, logits_to_keep=1)
            caches.append(output.cache if "cache" in output else output.past_key_values)
            logits.append(output.logits[0, -1])
        width = self._mask.shape[1]

        def padded(states: list[torch.Tensor]) -> torch.Tensor:
            return torch.cat([torch.nn.functional.pad(t, (0, 0, width - t.shape[-2], 0)) for t in states])

        self._cache = DynamicCache(
            ddp_cache_data=[
                (padded([c.layers[i].keys for c in caches]), padded([c.layers[i].values for c in caches]))
                for i in range(len(caches[0].layers))
            ]
        )
        return torch.log_softmax(torch.stack(logits).double(), dim=-1)[self._rows]

    @torch.inference_mode()
    def _forward(self, ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        output = self.handle.model(
            input_ids=ids,
            attention_mask=self._mask,
            position_ids=positions,
            use_cache=True,
            logits_to_keep=1,
            **{_cache_keyword(self.handle.model): self._cache},
        )
        self._cache = output.cache if "cache" in output else output.past_key_values
        return torch.log_softmax(output.logits[:, -1, :].double(), dim=-1)[self._rows]

    @property
    def public_only(self) -> bool:
        """Whether only the base (no-context) row still runs (:meth:`keep_public_only`)."""
        return self._logprobs.shape[0] == 1

    def keep_public_only(self) -> None:
        """Drop every row but the base one from the batch: later steps run the public model alone.

        For a release that will consult no document again (the sparse release
        once no run fits): the subsets' rows would be computed and never read.
        """
        base = self._rows[-1:]
        self._cache.batch_select_indices(base)
        self._mask, self._next_position = self._mask[base], self._next_position[base]
        self._rows = torch.zeros(1, dtype=torch.long, device=self._mask.device)
        self._logprobs = self._logprobs[-1:]

    @property
    def distinct_sequences(self) -> int:
        """Rows the model runs per step: one per distinct prompt."""
        return int(self._mask.shape[0])

    @property
    def next_token_logprobs(self) -> torch.Tensor:
        """Log-probabilities of the next token, one row per sequence (base last)."""
        return self._logprobs

    def _public_candidates(self, exclude: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
        """The ``candidates`` most likely tokens of the no-context model (``exclude`` left out) and their log-probabilities."""
        base = self._logprobs[-1]
        if exclude:
            base = base.clone()
            base[list(exclude)] = float("-inf")
        k = min(self.settings.candidates, int(torch.isfinite(base).sum()))
        top = torch.topk(base, k)
        return top.indices, top.values

    def distribution(self, epsilon_step: float, exclude: Sequence[int] = ()) -> StepDistribution:
        """Exponential-mechanism distribution over the public candidate set.

        ``exclude`` (e.g. end-of-sequence before ``min_new_tokens``) is left out
        of the candidates; the choice depends only on public information (the
        number of tokens released so far), so it costs no privacy.
        """
        clip = self.settings.clip
        candidates, base_values = self._public_candidates(exclude)
        utility = self._logprobs[:-1][:, candidates].clamp_min(-clip).mean(dim=0)
        scores = exponential_scores(
            utility,
            epsilon_step,
            range_sensitivity=2.0 * clip / self.subsets,
            base_log_measure=base_values / self.settings.base_temperature,
        )
        probabilities = torch.softmax(scores, dim=-1)
        return StepDistribution(candidates.cpu(), probabilities.cpu())

    def public_distribution(self, exclude: Sequence[int] = ()) -> tuple[torch.Tensor, torch.Tensor]:
        """The public candidates and their sharpened base measure ``p_base ** (1/T)``, normalized: no document enters it."""
        candidates, base_values = self._public_candidates(exclude)
        return candidates.cpu(), torch.softmax(base_values / self.settings.base_temperature, dim=-1).cpu()

    def divergence(self) -> float:
        """``(1/M) sum_i TV(p_i, p_base)`` over the whole vocabulary: in [0, 1], sensitivity 1/M (one document, one subset).

        The sparse release's test query (:mod:`enforcers.dp_decoding.token_release`); the raw value is confidential.
        """
        probabilities = self._logprobs.exp()
        return float((0.5 * (probabilities[:-1] - probabilities[-1]).abs().sum(dim=-1)).clamp(0.0, 1.0).mean())

    def confidence_gap(self) -> float:
        """CG_t of the current step (module docstring; confidential); 0 once only the public row runs (no subset is
        consulted: a constant, so the sentence stage's sensitivity bound holds)."""
        if self.public_only:
            return 0.0
        entropies = -(self._logprobs.exp() * self._logprobs).nan_to_num().sum(dim=-1)
        gaps = (entropies[-1] - entropies[:-1]).clamp(-self.settings.cg_clip, self.settings.cg_clip)
        return float(gaps.mean())

    def advance(self, token_id: int) -> None:
        """Append the released token to every distinct sequence and run one batched step."""
        rows = self._mask.shape[0]
        ids = torch.full((rows, 1), token_id, dtype=torch.long, device=self._mask.device)
        self._mask = torch.cat([self._mask, torch.ones_like(ids)], dim=-1)
        positions = self._next_position
        self._next_position = positions + 1
        self._logprobs = self._forward(ids, positions)


class EnsembleDecoder:
    """PEARL's DP ensemble decoder over one model handle."""

    def __init__(self, handle: ModelHandle, settings: DPDecodingSettings) -> None:
        self.handle = handle
        self.settings = settings

    def start(self, query: str, parts: Sequence[Sequence[RetrievedDocument]]) -> EnsembleState:
        """Prefill the M subset prompts and the base prompt in one batch."""
        if len(parts) != self.settings.subsets:
            raise ValueError(f"expected {self.settings.subsets} subsets, got {len(parts)}")
        prompts = [render_chat(self.handle, subset_messages(query, p, self.handle.tokenizer)) for p in parts]
        prompts.append(render_chat(self.handle, base_messages(query)))
        return EnsembleState(self.handle, prompts, self.settings)

    def generate(
        self,
        query: str,
        parts: Sequence[Sequence[RetrievedDocument]],
        epsilon_step: float,
        accountant: PrivacyAccountant,
        generator: torch.Generator,
        rho_ceiling: float | None = None,
        deadline: float | None = None,
        epsilon_test: float | None = None,
    ) -> DecodingResult:
        """Sample up to ``max_new_tokens`` tokens, charging ``accountant`` as ``decoding.token_release`` says.

        ``every``: each token at ``epsilon_step``; ``sparse``: a sparse-vector
        test per token at ``epsilon_test`` per run, and ``epsilon_step`` for the
        tokens it finds the documents move (:mod:`enforcers.dp_decoding.token_release`).
        Stops at end-of-sequence, at the length limit, when the next step
        would push the accountant past ``rho_ceiling`` (the generation's share),
        or (``"deadline"``) when the next step, taking as long as the last one,
        would end after ``deadline`` (a :func:`time.monotonic` instant; checked
        before every token, the first included, so an answer out of time
        samples and is charged nothing more), or (``"sentences"``) when the
        sampled token opens the sentence after ``max_sentences`` complete ones:
        that token is dropped (it stays charged) and no further step runs.
        """
        state = self.start(query, parts)
        release = self._release(epsilon_step, epsilon_test, accountant, generator, rho_ceiling)
        eos = self.handle.eos_token_ids
        tokens: list[int] = []
        trace: list[float] = []
        stop_reason = "max_tokens"
        steps = 0
        last_step = 0.0
        for _ in range(self.settings.max_new_tokens):
            began = time.monotonic()
            if deadline is not None and began + last_step > deadline:
                stop_reason = "deadline"
                break
            gap = state.confidence_gap()
            token = release.next_token(state, tuple(eos) if len(tokens) < self.settings.min_new_tokens else ())
            if token is None:
                stop_reason = "budget"
                break
            steps += 1
            report(steps, self.settings.max_new_tokens)
            if token in eos:
                stop_reason = "eos"
                break
            if self._opens_sentence_past_limit(tokens, token):
                stop_reason = "sentences"
                break
            tokens.append(token)
            trace.append(gap)
            if len(tokens) < self.settings.max_new_tokens:
                if release.exhausted and not state.public_only:
                    state.keep_public_only()  # the rest is the public model's continuation: the subsets' rows go unread
                state.advance(token)
            last_step = time.monotonic() - began
        text = self.handle.tokenizer.decode(tokens, skip_special_tokens=True)
        return DecodingResult(tokens, text, trace, stop_reason, epsilon_step, steps=steps, paid=release.paid)

    def _release(
        self, epsilon_step: float, epsilon_test: float | None, accountant: PrivacyAccountant, generator: torch.Generator, rho_ceiling: float | None
    ) -> TokenRelease:
        if self.settings.token_release == "every":
            return EveryToken(epsilon_step, accountant, generator, rho_ceiling)
        if epsilon_test is None:
            raise ValueError("token_release 'sparse' needs epsilon_test, the budget of each sparse-vector run")
        return SparseTokens(epsilon_test, epsilon_step, self.settings.sparse_threshold, self.settings.subsets, accountant, generator, rho_ceiling)

    def _opens_sentence_past_limit(self, released: Sequence[int], token: int) -> bool:
        """Whether ``token`` starts a sentence after ``max_sentences`` complete ones of ``released``.

        A sentence counts as complete only once text follows its end mark (the
        project's splitter needs the space after "3." to tell it from "3.5").
        """
        limit = self.settings.max_sentences
        if limit is None or not released:
            return False
        text = self.handle.tokenizer.decode([*released, token], skip_special_tokens=True)
        return len(sentence_spans(text)) > limit
