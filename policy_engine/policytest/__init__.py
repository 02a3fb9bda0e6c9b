"""Policy tests: executable expectations next to a policy (``*_test.yaml``, ``kind: PolicyTest``).

In the spirit of ``opa test`` and ``cedar run-tests``: each case gives
passages (or a question against the compiled corpus), who asks and why, and
what must come back; :func:`run_policy_tests` runs them through the real
engine and reports per case and per constraint (coverage).
"""

from policy_engine.policy.expectations import Expectation, PolicyTestCase, PolicyTestFile
from policy_engine.policytest.runner import CaseResult, TestRun, run_policy_tests

__all__ = ["CaseResult", "Expectation", "PolicyTestCase", "PolicyTestFile", "TestRun", "run_policy_tests"]
