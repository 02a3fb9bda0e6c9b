"""Decision records for requests refused at authentication (401) or authorization (403).

A refused request never reaches an engine, but it is still a decision the
server took, so it is recorded in the audit log of every served bundle (the
server refused on behalf of all of them) as a ``denied`` record with label
``stage: authentication``: the HTTP status, the route, the principal when
the key was known (403), and the presented key's fingerprint (the first 12
hex digits of its SHA-256, as in the server log) -- never the key, never a
value from the body.  The purpose of a 403 is not recorded either: it is
caller-chosen text.
"""

from __future__ import annotations

import logging

from audit.records import DecisionRecord, Outcome
from policy_engine.service.bundles import ServedBundles

logger = logging.getLogger("policy_engine.service")


def refusal_record(status: int, error: str, route: str, principal: str | None, key_fingerprint: str | None) -> DecisionRecord:
    """The record of one refused request (``error`` is the server's own message, which holds no request value)."""
    labels = {"stage": "authentication", "http_status": str(status), "route": route, "key": key_fingerprint or "none"}
    return DecisionRecord(outcome=Outcome.denied, principal=principal, error=error, labels=labels)


def record_refusal(bundles: ServedBundles, record: DecisionRecord) -> int:
    """Write ``record`` to every open bundle's audit sink; returns how many logs got it (0 while the bundles are opening)."""
    written = 0
    for served in list(bundles.bundles.values()):
        sink = served.engine.audit_sink
        if sink is None:
            continue
        policy = served.engine.policy
        try:
            sink.write(record.model_copy(update={"policy_name": policy.metadata.name, "policy_revision": policy.revision or None}))
            written += 1
        except Exception as exc:  # noqa: BLE001 - the request is refused either way; the server log says the record is missing
            logger.error("could not record a %s refusal in %s's log: %s", record.labels.get("http_status"), policy.metadata.name, type(exc).__name__)
    return written
