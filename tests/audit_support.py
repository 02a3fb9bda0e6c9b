"""Shared builders for the audit tests (real files, real keys, real records)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from audit.keys import AuditKey, KeyRing
from audit.log import DecisionLog
from audit.records import ConstraintOutcome, DecisionRecord, EnforcerRun, Outcome, PrivacySpend, Redaction, RetrievedChunk

TEST_KEY = b"audit-test-key-0123456789"


def keyring(secret: bytes = TEST_KEY) -> KeyRing:
    key = AuditKey(secret)
    return KeyRing(active=key, accepted=(key,))


def sample_record(index: int, principal: str = "alice", outcome: Outcome | None = None) -> DecisionRecord:
    """A realistic record; ``index`` makes it unique and drives the outcome mix."""
    outcomes = [Outcome.allowed, Outcome.redacted, Outcome.redacted, Outcome.denied, Outcome.abstained]
    chosen = outcome or outcomes[index % len(outcomes)]
    redactions = (
        [Redaction(constraint_id="no-email", category="EMAIL_ADDRESS", chunk_id=f"doc-{index}#0", start=10, end=27, replacement="[EMAIL]")]
        if chosen is Outcome.redacted
        else []
    )
    return DecisionRecord(
        decision_id=f"decision-{index:06d}",
        timestamp=datetime(2026, 11, 1, tzinfo=timezone.utc) + timedelta(hours=7 * index),
        principal=principal,
        purpose="support",
        trace_id=f"trace-{index}",
        policy_name="hr-policy",
        policy_revision="r1",
        bundle_digest="sha256:" + "ab" * 32,
        enforcers=[EnforcerRun(name="redaction", version="1.0")],
        retrieved=[RetrievedChunk(chunk_id=f"doc-{index}#0", score=0.8)],
        constraints=[
            ConstraintOutcome(constraint_id="no-email", applied=chosen is Outcome.redacted, reason="matched" if redactions else "no match"),
            ConstraintOutcome(
                constraint_id="salary-needs-hr-purpose",
                applied=chosen in (Outcome.denied, Outcome.abstained),
                reason="purpose 'support' is not permitted" if chosen is Outcome.denied else "low confidence, referred for review",
                score=0.42,
            ),
        ],
        redactions=redactions,
        privacy=PrivacySpend(scope=f"principal:{principal}", epsilon_spent=0.01, epsilon_remaining=0.5) if index % 3 == 0 else None,
        stages={"retrieve": 3.5, "enforce": 1.25},
        outcome=chosen,
        input={"query": f"query number {index}"},
    )


def write_log(path: Path, count: int, *, ring: KeyRing | None = None, checkpoint_every: int = 1000, **options) -> None:
    with DecisionLog(path, ring or keyring(), checkpoint_every=checkpoint_every, **options) as log:
        for index in range(count):
            log.write(sample_record(index))
