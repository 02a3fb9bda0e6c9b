"""The compiled clinic example against what its commands say (issue 36 item 4).

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

