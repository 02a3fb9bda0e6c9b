"""Prometheus metrics of one server: requests, outcomes, latency per endpoint and per enforcement stage, budget spent.

Each application owns its :class:`CollectorRegistry` (two apps in one process
never share counters).  Label values come from the route table, the outcome
enum, the stage names the engine records and the configured principals,
never from request bodies.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from audit.records import DecisionRecord, PrivacySpend

#: Seconds; a redaction takes tens of milliseconds, a private answer up to minutes on a small CPU.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


class ServiceMetrics:
    """The counters and histograms ``/metrics`` exposes (text format 0.0.4)."""

    content_type = "text/plain; version=0.0.4; charset=utf-8"

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("policy_engine_requests_total", "HTTP requests by endpoint and status code.", ["endpoint", "status"], registry=self.registry)
        self.latency = Histogram("policy_engine_request_seconds", "Time from request to response, by endpoint.", ["endpoint"], buckets=BUCKETS, registry=self.registry)
        self.outcomes = Counter("policy_engine_outcomes_total", "Decisions by endpoint, bundle and outcome.", ["endpoint", "bundle", "outcome"], registry=self.registry)
        self.stages = Histogram("policy_engine_stage_seconds", "Time spent per enforcement stage, from the decision records.", ["bundle", "stage"], buckets=BUCKETS, registry=self.registry)
        self.epsilon = Counter("policy_engine_privacy_epsilon_spent_total", "Differential-privacy epsilon spent, by bundle and principal.", ["bundle", "principal"], registry=self.registry)
        self.in_flight = Gauge("policy_engine_requests_in_flight", "Requests admitted and not yet answered.", registry=self.registry)
        self.queued = Gauge("policy_engine_requests_queued", "Requests waiting for a slot.", registry=self.registry)
        self.rejected = Counter("policy_engine_requests_rejected_total", "Requests refused before running, by reason.", ["reason"], registry=self.registry)

    def decision(self, endpoint: str, bundle: str, record: DecisionRecord, outcome: str, privacy: PrivacySpend | None) -> None:
        """Count one decision: its outcome, its stage latencies and its privacy spend."""
        self.outcomes.labels(endpoint, bundle, outcome).inc()
        for stage, ms in record.stages.items():
            self.stages.labels(bundle, stage).observe(ms / 1000.0)
        if privacy is not None and record.principal is not None:
            self.epsilon.labels(bundle, record.principal).inc(privacy.epsilon_spent)

    def render(self) -> bytes:
        return generate_latest(self.registry)
