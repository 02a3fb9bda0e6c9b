"""Keyed-hash partition: one added document changes exactly one subset."""

from __future__ import annotations

import random

import pytest

from enforcers.dp_decoding.partition import (
    RetrievedDocument,
    assign_subset,
    fresh_partition_key,
    partition_documents,
    partition_key_from_secret,
)


def _docs(n: int, rng: random.Random) -> list[RetrievedDocument]:
    return [RetrievedDocument(f"doc-{rng.getrandbits(48):x}", f"text {i}") for i in range(n)]


@pytest.mark.parametrize("subsets", [1, 2, 4, 7])
def test_adding_one_document_changes_exactly_one_subset(subsets):
    rng = random.Random(subsets)
    key = partition_key_from_secret(b"operator secret")
    for _trial in range(50):
        docs = _docs(rng.randint(0, 12), rng)
        extra = _docs(1, rng)[0]
        before = partition_documents(docs, subsets, key)
        after = partition_documents(docs + [extra], subsets, key)
        changed = [i for i in range(subsets) if before[i] != after[i]]
        assert changed == [assign_subset(extra.id, subsets, key)]
        assert after[changed[0]] == before[changed[0]] + [extra]


def test_assignment_is_deterministic_keyed_and_spread():
    ids = [f"d{i}" for i in range(400)]
    first = [assign_subset(i, 4, b"k1") for i in ids]
    assert first == [assign_subset(i, 4, b"k1") for i in ids]
    assert first != [assign_subset(i, 4, b"k2") for i in ids]
    assert all(60 < first.count(s) < 140 for s in range(4))


def test_partition_is_disjoint_and_complete():
    docs = _docs(30, random.Random(0))
    parts = partition_documents(docs, 4, fresh_partition_key())
    flat = [d for p in parts for d in p]
    assert sorted(d.id for d in flat) == sorted(d.id for d in docs)


def test_partition_keys_are_secret_derived_or_fresh():
    """The key comes from operator key material (domain-separated) or is drawn fresh; never from a public setting."""
    assert partition_key_from_secret(b"s") == partition_key_from_secret(b"s") != partition_key_from_secret(b"t")
    assert partition_key_from_secret(b"s") != b"s"
    assert fresh_partition_key() != fresh_partition_key()
    with pytest.raises(ValueError):
        partition_key_from_secret(b"")
