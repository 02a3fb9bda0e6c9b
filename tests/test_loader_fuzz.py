"""Fuzz the loader: random and mutated YAML never raises anything but the project's own error type."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policy_engine import PolicyError, load_repo
from policy_engine.policy.yaml_source import parse_yaml

SEED_DOCS = [p.read_bytes() for p in sorted((Path(__file__).parent / "fixtures").rglob("*.yaml"))[:40]]

yaml_alphabet = st.sampled_from(list(":-[]{},#&*!|>'\"%@`? \n\t") + list("abcxyz019") + ["\x00", "\ufeff", "é", "\x85"])


@st.composite
def mutated(draw) -> bytes:
    doc = bytearray(draw(st.sampled_from(SEED_DOCS)))
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        pos = draw(st.integers(0, max(0, len(doc) - 1)))
        if op == "insert":
            doc[pos:pos] = draw(yaml_alphabet).encode("utf-8")
        elif op == "delete" and doc:
            del doc[pos : pos + draw(st.integers(1, 20))]
        elif op == "replace" and doc:
            doc[pos] = draw(st.integers(0, 255))
        else:
            end = min(len(doc), pos + draw(st.integers(1, 60)))
            doc[pos:pos] = doc[pos:end]
    return bytes(doc)


def _check(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "policy.yaml"
        path.write_bytes(data)
        result = load_repo([path])  # contract: never raises for bad input
        assert all(d.code.startswith("PE") for d in result.diagnostics)
    try:
        parse_yaml(data.decode("utf-8", errors="replace"), "fuzz.yaml")
    except PolicyError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_policies(data):
    _check(data)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=yaml_alphabet, max_size=200))
def test_random_text(text):
    _check(text.encode("utf-8"))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data):
    _check(data)
