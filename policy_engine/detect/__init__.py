"""Detection layer: which spans of a text each constraint targets (SD-RAG Section III-C2).

The public entry point is :class:`Analyzer`; :class:`Finding` is what it
returns.  See :mod:`policy_engine.detect.analyzer` for the detection order.
The names load on first use, so a module of this package (``coverage``,
``recognizers``) can be imported without the analyzer and its language models.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Analyzer", "DetectionPlan", "Finding", "Source"]

_HOMES = {"Analyzer": "policy_engine.detect.analyzer", "DetectionPlan": "policy_engine.detect.analyzer", "Finding": "policy_engine.detect.findings", "Source": "policy_engine.detect.findings"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
