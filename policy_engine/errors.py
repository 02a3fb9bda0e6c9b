"""The exception root of policy-engine and the errors shared across packages.

Every error the library raises on purpose derives from
:class:`PolicyEngineError` (beside the builtin base it always had, e.g.
``ValueError``), so a caller can catch one type; warning categories are not
errors and stay outside it.  The specific errors stay where their subject
lives (``PolicyError`` in :mod:`policy_engine.diagnostics`, ``AuditError`` in
:mod:`audit.errors`, ``BundleError`` in :mod:`policy_engine.bundle.manifest`
...); only the errors that more than one package raises or catches are
defined here.  This module imports
nothing from the project, so every layer may import it.
"""

from __future__ import annotations


class PolicyEngineError(Exception):
    """Base of every error policy-engine raises deliberately (the message says what to do)."""


class EngineError(PolicyEngineError, RuntimeError):
    """The engine cannot be opened or used as asked (an enforcer is missing, a bundle is absent ...)."""


class BudgetExhausted(PolicyEngineError):
    """A privacy budget cannot pay for the request: the ledger scope's window or an accountant's target is spent.

    Raised by the budget ledger (:mod:`audit.ledger`), the PEARL accountant
    (:mod:`enforcers.dp_decoding.accounting`) and the ``dp_decoding`` enforcer; the
    pipeline turns it into a refusal, never a non-private answer.
    """
