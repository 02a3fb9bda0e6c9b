"""The lint-rule registry: the policy layer's own rules plus the rules each enforcer package owns.

A rule is ``check(loaded_policy, vocabulary)`` yielding
:class:`~policy_engine.diagnostics.Diagnostic`.  The rules of sections the
policy layer declares live here (:mod:`.constraints`, :mod:`.allowlist`,
:mod:`.settings`); an enforcer package keeps the rules of its own section in
``lint.py`` beside its ``settings.py``, declared as::

    RULES = (check,)                 # run in this order
    CODES = (CodeInfo(...), ...)     # optional: codes not in policy_engine.diagnostics.CODES

:func:`rules` finds those modules the way the section registry finds
settings (:func:`policy_engine.policy.sections.companion_modules`: built-in
``enforcers.<name>.lint`` and the packages of ``policy_engine.enforcers``
entry points), by name, once per process, without importing any enforcer body.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator

from policy_engine.diagnostics import CODES, CodeInfo, Diagnostic
from policy_engine.errors import PolicyEngineError
from policy_engine.lint import allowlist, constraints, settings
from policy_engine.policy.loader import LoadedPolicy
from policy_engine.policy.sections import companion_modules
from policy_engine.policy.vocabulary import Vocabulary

Rule = Callable[[LoadedPolicy, Vocabulary], Iterator[Diagnostic]]

#: Rules of the sections the policy layer declares, run first.
CORE_RULES: tuple[Rule, ...] = (constraints.check, allowlist.check, settings.check)


class LintRuleError(PolicyEngineError, RuntimeError):
    """A lint module declares a code that another module already declares differently."""


_LOCK = threading.Lock()
_discovered: tuple[Rule, ...] | None = None


def _register_codes(infos: tuple[CodeInfo, ...], origin: str) -> None:
    for info in infos:
        existing = CODES.get(info.code)
        if existing is not None and existing != info:
            raise LintRuleError(f"{origin}: code {info.code} is already declared as {existing.name!r}")
        CODES[info.code] = info


def rules() -> tuple[Rule, ...]:
    """Every lint rule: the core rules, then each enforcer package's ``RULES`` (discovered once; their ``CODES`` registered)."""
    global _discovered
    with _LOCK:
        if _discovered is None:
            found: list[Rule] = list(CORE_RULES)
            for module_name in companion_modules("lint"):
                module = importlib.import_module(module_name)
                _register_codes(tuple(getattr(module, "CODES", ())), module_name)
                found.extend(getattr(module, "RULES", ()))
            _discovered = tuple(found)
        return _discovered
