"""Detection layer: which spans of a text each constraint targets (SD-RAG Section III-C2).

The public entry point is :class:`Analyzer`; :class:`Finding` is what it
returns.  See :mod:`policy_engine.detect.analyzer` for the detection order.
"""

from policy_engine.detect.analyzer import Analyzer, DetectionPlan
from policy_engine.detect.findings import Finding, Source

__all__ = ["Analyzer", "DetectionPlan", "Finding", "Source"]
