"""policy-engine command line: the console-script entry point (``policy-engine = click_cli:main``).

The commands live in :mod:`policy_engine.cli`, one module per topic; this file
only registers them on the root group, lazily: a command's module is imported
when that command runs, so ``policy-engine --help`` loads no model and no
command module.  Exit codes are shared by all commands
(:class:`policy_engine.diagnostics.ExitCode`):

\b
  0  success, nothing to report
  1  tool or usage error (bad arguments, unreadable input, internal failure)
  2  warnings only, when asked to fail on warnings (lint --fail-level warning)
  3  policy errors (lint findings, a policy that does not load, tampering found)
  4  refused (a question no rewrite can forward, an answer withheld)

To add a command: write ``policy_engine/cli/<topic>.py`` with click commands
and add one line to :data:`COMMANDS` below (name, ``module:attribute``, the
summary ``--help`` lists).
"""

from __future__ import annotations

from policy_engine.cli import main

#: name -> (``module:attribute`` of the click command, the one-line summary ``--help`` lists).
COMMANDS: dict[str, tuple[str, str]] = {
    "lint": ("policy_engine.cli.policy:lint", "Check policy files for errors before they are merged."),
    "fmt": ("policy_engine.cli.policy:fmt_command", "Canonicalize policy YAML (key order, indentation, quoting) keeping comments."),
    "schema": ("policy_engine.cli.policy:schema", "JSON Schema of the policy format, for editors and validators."),
    "compile": ("policy_engine.cli.bundle:compile_command", "Compile a policy and its corpus into a versioned bundle."),
    "inspect": ("policy_engine.cli.bundle:inspect_command", "Show a bundle's manifest, counts and which chunks each constraint is bound to."),
    "query": ("policy_engine.cli.bundle:query_command", "Retrieve chunks for QUESTION and rank the constraints that govern them (SD-RAG)."),
    "protect": ("policy_engine.cli.runtime:protect_command", "Retrieve context for QUESTION and print it redacted, with the redaction table."),
    "ask": ("policy_engine.cli.runtime:ask_command", "Retrieve, protect and answer QUESTION with the local model."),
    "rewrite": ("policy_engine.cli.rewrite:rewrite", "Rewrite QUESTION so that it carries only what its task needs (query_rewrite)."),
    "erase": ("policy_engine.cli.erase:erase_command", "Erase POLICY's private knowledge from FILE."),
    "guard": ("policy_engine.cli.guard:guard_group", "Output guard: QI-cluster detection on answers (PPE)."),
    "review": ("policy_engine.cli.guard:review_group", "Review queue of answers the output guard abstained on."),
    "audit": ("policy_engine.cli.audit:audit_group", "Verify, inspect and report on tamper-evident decision logs."),
    "models": ("policy_engine.cli.models:models_group", "Local language models used by model-backed enforcers (nothing downloads at run time)."),
    "vocab": ("policy_engine.cli.explain:vocab", "List the built-in vocabularies policies refer to."),
    "explain": ("policy_engine.cli.explain:explain", "Show what each constraint resolved to: categories, roles, detectors."),
    "test": ("policy_engine.cli.policy_tests:test_command", "Run the policy tests (``*_test.yaml``, kind PolicyTest) under PATHS."),
    "diff": ("policy_engine.cli.policy_tests:diff_command", "Show what changing policy OLD into NEW newly exposes or newly hides on the corpus."),
    "init": ("policy_engine.cli.policy_tests:init_command", "Scaffold a new policy repo in DIRECTORY that passes its own checks."),
    "sanitize": ("policy_engine.cli.scale:sanitize_command", "Sanitize every document of --input into --output under POLICY_PATH."),
    "serve": ("policy_engine.service.command:serve_command", "Serve BUNDLE... over HTTP: protect, ask, rewrite, guard and lint as a long-running service."),
}

for _name, (_target, _summary) in COMMANDS.items():
    main.add_lazy_command(_name, _target, _summary)

#: The root group under the name the tests and earlier releases import.
cli = main

if __name__ == "__main__":
    main()
