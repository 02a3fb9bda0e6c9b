"""policy-engine command line: the console-script entry point (``policy-engine = click_cli:main``).

The commands live in :mod:`policy_engine.cli`, one module per topic; this file
only registers them on the root group.  Exit codes are shared by all commands
(:class:`policy_engine.diagnostics.ExitCode`):

\b
  0  success, nothing to report
  1  tool or usage error (bad arguments, unreadable input, internal failure)
  2  warnings only, when asked to fail on warnings (lint --fail-level warning)
  3  policy errors (lint findings, a policy that does not load, tampering found)

To add a command: write ``policy_engine/cli/<topic>.py`` with click commands,
import it below and add one ``main.add_command(...)`` line.
"""

from __future__ import annotations

from policy_engine.cli import audit, bundle, erase, explain, guard, main, models, policy, policy_tests, rewrite, runtime, scale

main.add_command(policy.lint)
main.add_command(policy.fmt_command)
main.add_command(policy.schema)
main.add_command(bundle.compile_command)
main.add_command(bundle.inspect_command)
main.add_command(bundle.query_command)
main.add_command(runtime.protect_command)
main.add_command(runtime.ask_command)
main.add_command(rewrite.rewrite)
main.add_command(erase.erase_command)
main.add_command(guard.guard_group)
main.add_command(guard.review_group)
main.add_command(audit.audit_group)
main.add_command(models.models_group)
main.add_command(explain.vocab)
main.add_command(explain.explain)
main.add_command(policy_tests.test_command)
main.add_command(policy_tests.diff_command)
main.add_command(policy_tests.init_command)
main.add_command(scale.sanitize_command)

#: The root group under the name the tests and earlier releases import.
cli = main

if __name__ == "__main__":
    main()
