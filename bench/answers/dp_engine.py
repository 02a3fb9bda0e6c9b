"""The engine ``ask --dp`` builds, for the benches: the policy's DP decoding settings overridable, the ledger a scratch file.

Shared by the PrivacyLens bench (:mod:`answers.privacylens`), its DP diagnosis
(:mod:`answers.dp_diagnose`) and RCQA's private answers (:mod:`rcqa.dp`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from policy_engine.engine.runtime import Engine
from policy_engine.policy.model import Policy


def with_decoding(policy: Policy, overrides: list[str], answer_epsilon: float | None = None) -> Policy:
    """``policy`` with ``differential_privacy.decoding`` fields replaced (``FIELD=VALUE``, the value read as JSON)
    and, when given, its ``answer_epsilon``."""
    section = policy.differential_privacy
    assert section is not None, "the bench policy has a differential_privacy section"
    update = {key: json.loads(value) for key, value in (o.split("=", 1) for o in overrides)}
    decoding = section.decoding.model_copy(update=update)
    spend = {"answer_epsilon": answer_epsilon} if answer_epsilon is not None else {}
    return policy.model_copy(update={"differential_privacy": section.model_copy(update={"decoding": decoding, **spend})})


def dp_engine(policy: Policy, ledger: Path, model: str, **options: Any) -> Engine:
    """The engine ``ask --dp`` builds: ``dp_decoding`` added, its ledger a scratch file (never the policy's own);
    ``options`` go to :class:`Engine` (a shared ``detector``, a forced ``redaction_mode``)."""
    scratch = policy.model_copy(update={"audit": policy.audit.model_copy(update={"ledger": str(ledger)})})
    return Engine.for_policy(scratch, audit=False, answer_model=model, extra_enforcers=("dp_decoding",), **options)
