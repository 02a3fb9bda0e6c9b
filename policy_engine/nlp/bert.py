"""A BERT encoder's forward pass in plain torch, for the sentence embedder (no ``transformers`` import).

Loading a model through ``transformers.AutoModel`` imports its whole
modelling stack (``modeling_utils`` with torch's distributed tensors, dynamo,
``accelerate`` and the loss and image utilities): about two seconds of CPU
before the first sentence is embedded, which every ``Engine.open`` paid.
A sentence-transformers export of a BERT model (all-MiniLM-L6-v2, the
default) needs none of it: its ``tokenizer.json`` runs in the ``tokenizers``
library, its ``model.safetensors`` loads with ``safetensors``, and the
encoder is embeddings, then per layer self-attention and a feed-forward
block, each followed by a residual LayerNorm (Devlin et al. 2019, Section 3;
Vaswani et al. 2017, Section 3.2).

:class:`BertEncoder` computes the same operations, in the same order and
with the same torch kernels, as ``transformers``' ``BertModel`` (SDPA
attention, no mask when a batch has no padding); its token vectors are
bitwise equal to that model's in float32 and under bfloat16 autocast, which
``tests/test_embedding_bert.py`` checks against ``transformers`` itself.
Any other architecture still loads through ``transformers``
(:class:`policy_engine.nlp.embedding.EncoderWeights`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F


def serves(model_dir: Path) -> bool:
    """Whether ``model_dir`` is a BERT model this encoder reads (``model_type`` bert, safetensors weights, a fast tokenizer)."""
    config = model_dir / "config.json"
    if not (config.is_file() and (model_dir / "model.safetensors").is_file() and (model_dir / "tokenizer.json").is_file()):
        return False
    settings = json.loads(config.read_text(encoding="utf-8"))
    return (settings.get("model_type") == "bert" and settings.get("hidden_act", "gelu") == "gelu"
            and settings.get("position_embedding_type", "absolute") == "absolute" and not settings.get("is_decoder", False))


class BertEncoder:
    """Tokenizer and weights of one BERT model directory; :meth:`encode` gives token vectors and the attention mask."""

    def __init__(self, model_dir: Path, max_length: int) -> None:
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config: dict[str, Any] = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = load_file(str(model_dir / "model.safetensors"))
        self.weights = {name.removeprefix("bert."): tensor for name, tensor in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        pad = _pad_token(model_dir)
        self.tokenizer.enable_truncation(max_length)
        self.tokenizer.enable_padding(pad_id=self.tokenizer.token_to_id(pad), pad_token=pad)

    def encode(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """``(token vectors [batch, length, hidden], attention mask [batch, length])`` of ``texts``, padded to the longest
        and cut at ``max_length`` tokens."""
        states, mask, _ = self.encode_with_offsets(texts)
        return states, mask

    def encode_with_offsets(self, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor, list[list[tuple[int, int]]]]:
        """:meth:`encode` plus each token's character range in its text (``(0, 0)`` for special and padding tokens)."""
        encoded = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encoded], dtype=torch.long)
        mask = torch.tensor([e.attention_mask for e in encoded], dtype=torch.long)
        offsets = [[(0, 0) if special else offset for offset, special in zip(e.offsets, e.special_tokens_mask)] for e in encoded]
        return self._forward(ids, mask), mask, offsets

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.linear(x, self.weights[name + ".weight"], self.weights[name + ".bias"])

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return F.layer_norm(x, (self.hidden,), self.weights[name + ".weight"], self.weights[name + ".bias"], self.eps)

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length = ids.shape
        w = self.weights
        x = F.embedding(ids, w["embeddings.word_embeddings.weight"]) + F.embedding(torch.zeros_like(ids), w["embeddings.token_type_embeddings.weight"])
        x = self._norm(x + F.embedding(torch.arange(length).unsqueeze(0), w["embeddings.position_embeddings.weight"]), "embeddings.LayerNorm")
        attend = None if bool(mask.all()) else mask.bool()[:, None, None, :].expand(batch, 1, length, length)
        size = self.hidden // self.heads
        for i in range(self.layers):
            layer = f"encoder.layer.{i}."
            q, k, v = (self._linear(x, layer + f"attention.self.{part}").view(batch, length, self.heads, size).transpose(1, 2) for part in ("query", "key", "value"))
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=attend, dropout_p=0.0, scale=size**-0.5, is_causal=False)
            attended = attended.transpose(1, 2).contiguous().reshape(batch, length, self.hidden)
            x = self._norm(self._linear(attended, layer + "attention.output.dense") + x, layer + "attention.output.LayerNorm")
            x = self._norm(self._linear(F.gelu(self._linear(x, layer + "intermediate.dense")), layer + "output.dense") + x, layer + "output.LayerNorm")
        return x


def _pad_token(model_dir: Path) -> str:
    """The padding token the model's tokenizer configuration names (``[PAD]`` when none does)."""
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        path = model_dir / name
        if path.is_file():
            pad = json.loads(path.read_text(encoding="utf-8")).get("pad_token")
            if isinstance(pad, dict):
                pad = pad.get("content")
            if isinstance(pad, str):
                return pad
    return "[PAD]"


__all__ = ["BertEncoder", "serves"]
