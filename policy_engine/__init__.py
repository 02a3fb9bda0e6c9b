"""policy-engine: policy-as-code privacy compliance for retrieval-augmented generation.

Library entry points (the CLI calls exactly these):

* :func:`load_policy` -- read one policy repo into a validated :class:`Policy`;
* :func:`load_repo` -- read every policy under some paths, collecting diagnostics;
* :func:`lint` -- structural and semantic diagnostics for policy files.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("policy-engine")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

from policy_engine.diagnostics import CODES, Diagnostic, PolicyError, Severity, SourceSpan  # noqa: E402
from policy_engine.lint import LintReport, lint  # noqa: E402
from policy_engine.policy.loader import LoadedPolicy, LoadResult, load_policy, load_repo  # noqa: E402
from policy_engine.policy.model import Constraint, Policy  # noqa: E402

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
