"""policy-engine: policy-as-code privacy compliance for retrieval-augmented generation.

Library entry points (the CLI calls exactly these):

* :func:`load_policy` -- read one policy repo into a validated :class:`Policy`;
* :func:`load_repo` -- read every policy under some paths, collecting diagnostics;
* :func:`lint` -- structural and semantic diagnostics for policy files.

The package face is lazy (PEP 562): ``import policy_engine`` loads no model,
no torch and no spaCy; each name below imports its module on first use.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("policy-engine")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

#: Each public name and the module that defines it.
_EXPORTS = {
    "CODES": "policy_engine.diagnostics",
    "Diagnostic": "policy_engine.diagnostics",
    "PolicyError": "policy_engine.diagnostics",
    "Severity": "policy_engine.diagnostics",
    "SourceSpan": "policy_engine.diagnostics",
    "LintReport": "policy_engine.lint",
    "LoadedPolicy": "policy_engine.policy.loader",
    "LoadResult": "policy_engine.policy.loader",
    "load_policy": "policy_engine.policy.loader",
    "load_repo": "policy_engine.policy.loader",
    "Constraint": "policy_engine.policy.model",
    "Policy": "policy_engine.policy.model",
}

__all__ = [
    "CODES",
    "Constraint",
    "Diagnostic",
    "LintReport",
    "LoadResult",
    "LoadedPolicy",
    "Policy",
    "PolicyError",
    "Severity",
    "SourceSpan",
    "__version__",
    "lint",
    "load_policy",
    "load_repo",
]

if TYPE_CHECKING:
    from policy_engine.diagnostics import CODES, Diagnostic, PolicyError, Severity, SourceSpan
    from policy_engine.lint import LintReport, lint
    from policy_engine.policy.loader import LoadedPolicy, LoadResult, load_policy, load_repo
    from policy_engine.policy.model import Constraint, Policy


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'policy_engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


class _Face(types.ModuleType):
    """The package module, whose ``lint`` is the function even after the ``policy_engine.lint`` package loads.

    Importing a subpackage binds it on its parent; ``policy_engine.lint`` has
    always named the :func:`~policy_engine.lint.lint` function, so the face
    keeps the function under that name (the subpackage stays importable by path).
    """

    @property
    def lint(self) -> Any:
        from policy_engine.lint import lint

        return lint

    @lint.setter
    def lint(self, _subpackage: Any) -> None:
        """Ignore the import system binding the subpackage here."""


sys.modules[__name__].__class__ = _Face
