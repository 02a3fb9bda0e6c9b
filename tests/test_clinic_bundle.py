"""The compiled clinic example against what its commands say (issue 36 items 4 and 6).

PE161 (lint ``--bundle``) reports a constraint as redacting nothing only when
``protect`` makes no redaction under it over the whole corpus, whatever order
the request ranks the constraints in.  Compiled once per module (about a minute).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from click_cli import cli
from policy_engine.bundle.reader import Bundle, compile_bundle
from policy_engine.engine.runtime import Engine

CLINIC = Path(__file__).resolve().parents[1] / "policies" / "clinic"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clinic_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clinic") / "bundle"
    compile_bundle(CLINIC / "policy.yaml", out)
    yield out
    shutil.rmtree(out, ignore_errors=True)


def _redacting(engine: Engine, leaves: list[tuple[str, str]], constraints: list) -> set[str]:
    """Constraints ``protect`` redacts under, over ``leaves`` (the policy's private entities, redacted under any constraint, aside)."""
    texts = dict(leaves)
    private = {e.casefold() for e in engine.policy.private_knowledge.entities}
    redactions = engine.protect_passages(leaves, constraints).redactions
    return {r.constraint_id for r in redactions if texts[r.chunk_id][r.start : r.end].casefold() not in private}


def test_pe161_reports_exactly_the_constraints_protect_never_redacts_under(clinic_bundle: Path) -> None:
    linted = CliRunner().invoke(cli, ["lint", str(CLINIC), "--bundle", str(clinic_bundle), "--format", "json"], obj={})
    assert linted.exit_code == 0, linted.output
    dead = {re.search(r"constraint '([^']+)'", d["message"]).group(1) for d in json.loads(linted.stdout)["diagnostics"] if d["code"] == "PE161"}
    bundle = Bundle.open(clinic_bundle)
    leaves = [(n.chunk_id, n.text) for n in bundle.nodes if n.level == 0]
    constraints = list(bundle.policy.constraints)
    engine = Engine.open(clinic_bundle, audit=False)
    try:
        redacted = _redacting(engine, leaves, constraints) | _redacting(engine, leaves, constraints[::-1])
        assert not dead & redacted, dead & redacted  # the demo's case: "finds nothing" for a constraint protect redacts under
        for constraint in constraints:
            if constraint.id not in redacted:  # lost every overlap in both orders: alone decides
                alone = _redacting(engine, leaves, [constraint])
                assert (constraint.id in dead) == (constraint.id not in alone), constraint.id
    finally:
        engine.close()


#: Ground-truth categories that identify a person (names, MRNs, SSNs, phones and e-mails, dates of birth, addresses).
IDENTIFIERS = {"person_name", "medical_record_number", "government_id", "contact", "date_of_birth", "address"}


def _identifier_values() -> set[str]:
    truth = json.loads((CLINIC.parents[1] / "examples" / "clinic" / "GROUND_TRUTH.json").read_text(encoding="utf-8"))
    return {s["value"] for doc in truth["documents"] for s in doc["spans"] if s["category"] in IDENTIFIERS}


def _bundle_files(bundle: Path) -> list[Path]:
    """The bundle's files but the chunk store (``nodes.jsonl`` and its spaCy parses, the same text) and the compiled policy."""
    return sorted(p for p in bundle.rglob("*") if p.is_file() and p.name not in ("nodes.jsonl", "parses.msgpack", "policy.json"))


def test_no_identifier_outside_the_chunk_store(clinic_bundle: Path) -> None:
    """Graphs and caches hold keyed labels and offsets; the compiled policy only what the policy itself states."""
    values = _identifier_values()
    assert len(values) > 100
    stated = "\n".join(p.read_text(encoding="utf-8") for p in sorted(CLINIC.glob("*.yaml")) + sorted(CLINIC.glob("*.md"))).casefold()
    files = _bundle_files(clinic_bundle)
    assert {"graph.json", "knowledge_graph.json", "extractions.sqlite", "embeddings.sqlite"} <= {p.name for p in files}
    for path in files:
        data = path.read_bytes().decode("utf-8", errors="replace").casefold()
        leaked = sorted(v for v in values if v.casefold() in data)
        assert not leaked, f"{path.name} holds {len(leaked)} identifier(s), e.g. {leaked[:3]}"
    policy = (clinic_bundle / "policy.json").read_text(encoding="utf-8").casefold()
    assert not sorted(v for v in values if v.casefold() in policy and v.casefold() not in stated)
    nodes = (clinic_bundle / "nodes.jsonl").read_text(encoding="utf-8")
    assert sum(v in nodes for v in values) > 0.9 * len(values)  # the chunk store keeps the text the engine redacts


def test_the_keyed_knowledge_graph_still_links_chunks_across_documents(clinic_bundle: Path) -> None:
    """The cross-document fact of clinic-049/050 (an address linking a patient to a diagnosis) survives as labels."""
    from policy_engine.bundle.labels import EntityLabels

    bundle = Bundle.open(clinic_bundle)
    labels = EntityLabels([n.text for n in bundle.nodes if n.level == 0])
    kg = bundle.knowledge_graph
    (address,) = [t for t in kg.triples if t.origin == "private" and t.head == t.tail == labels("340 Ochoa Pine")]
    assert {c.split("#")[0] for c in address.chunk_ids} == {"docs/clinic-049.md", "docs/clinic-050.txt"}
    assert {t.relation for t in kg.triples if t.head == labels("Shannon Patel")} == {"diagnosed_with", "lives_at", "takes"}
    assert all(name.startswith("e") and len(name) == 25 for name in kg.entities)
