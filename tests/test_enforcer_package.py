"""Adding an enforcer is one package: its class, its settings section and its lint rule, found with no other file changed.

A toy enforcer package (``shout``: upper-cases one configured word in
retrieved passages) is written into a temporary directory and made
discoverable through the ``policy_engine.enforcers`` entry-point group.  In a
fresh interpreter: a policy with its section validates and is read by
attribute; a bad value in the section is a positioned PE101; a misspelled key
of the section gets a suggestion from the toy's own model; lint reports the toy rule's
own code; the generated schema describes the section; loading a policy
imports the enforcer packages' settings modules only; ``EnforcementPipeline`` runs the enforcer
without an Engine.
"""

from __future__ import annotations

from pathlib import Path

from tests.enforcer_package_support import install_package, run_with_package

SETTINGS = '''
from pydantic import Field

from policy_engine.policy.sections import Section, StrictModel


class ShoutSettings(StrictModel):
    """Which word the shout enforcer upper-cases, and how often at most per passage."""

    word: str
    max_count: int = Field(default=3, ge=1)


SECTIONS = (Section("shout", ShoutSettings),)
'''

LINT = '''
from policy_engine.diagnostics import CodeInfo, Diagnostic, Severity


def check(lp, vocab):
    settings = lp.policy.shout
    if settings is not None and not settings.word.strip():
        yield Diagnostic("PE901", "shout.word is blank: nothing would be shouted", lp.span(("shout", "word")))


CODES = (CodeInfo("PE901", "blank-shout-word", Severity.WARNING, "The shout word is blank.", "Name the word to shout."),)
RULES = (check,)
'''

ENFORCER = '''
import dataclasses
import re

from policy_engine.enforcement.base import EnforcementContext, Stage
from policy_engine.enforcement.registry import register_enforcer


@register_enforcer
class Shout:
    name = "shout"
    version = "1"
    stage = Stage.CONTEXT

    def __init__(self, word, max_count):
        self.pattern = re.compile(rf"\\b{re.escape(word)}\\b")
        self.max_count = max_count

    @classmethod
    def has_work(cls, policy):
        return policy.shout is not None

    @classmethod
    def from_parts(cls, parts):
        return cls(parts.policy.shout.word, parts.policy.shout.max_count)

    def apply(self, context: EnforcementContext) -> EnforcementContext:
        passages = tuple(dataclasses.replace(p, text=self.pattern.sub(lambda m: m.group(0).upper(), p.text, count=self.max_count)) for p in context.passages)
        return context.evolve(passages=passages)
'''

POLICY = """apiVersion: policy-engine.dev/v1
kind: PrivacyPolicy
metadata: {{name: toy}}
enforcement: {{order: [redaction, shout]}}
shout:
  word: {word}
  max_count: {count}
"""

SCRIPT = '''
import json, sys
from policy_engine.policy.loader import load_repo
from policy_engine.lint import lint

good = load_repo(["good/policy.yaml"])
bad = load_repo(["bad/policy.yaml"])
typo = load_repo(["typo/policy.yaml"])
loaded = sorted(m for m in sys.modules if m.count(".") == (2 if m.startswith("enforcers.") else 1) and m.startswith(("enforcers.", "toy_shout.")))
blank = lint(["blank/policy.yaml"])

from policy_engine.enforcement.base import EnforcementContext, EnforcementPipeline, Passage, Stage
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.policy.schema import policy_document_schema

policy = good.policies[0].policy
enforcer = registered()["shout"].from_parts(EngineParts(policy=policy, detector=None))
context = EnforcementContext(passages=(Passage.of("c1", "hello world, hello again"),), constraints=())
result = EnforcementPipeline([enforcer]).run(Stage.CONTEXT, context)

def where(report):
    return [[d.code, d.span.file, d.span.line, d.span.col, d.message] for d in report.diagnostics]

print(json.dumps({
    "good": where(good), "word": policy.shout.word, "max_count": policy.shout.max_count, "type": type(policy.shout).__name__,
    "bad": where(bad), "typo": where(typo), "blank": where(blank),
    "loaded": loaded,
    "schema": sorted(policy_document_schema()["properties"]["shout"]["anyOf"][0].items())[0][1],
    "text": result.context.passages[0].text, "failure": None if result.failure is None else result.failure.reason,
}))
'''


def test_a_toy_enforcer_package_brings_its_section_its_lint_rule_and_its_class(tmp_path: Path) -> None:
    install_package(tmp_path, "toy_shout", {"settings.py": SETTINGS, "lint.py": LINT, "enforcer.py": ENFORCER}, entry_name="shout")
    for name, word, count in (("good", "hello", 1), ("bad", "hello", 0), ("blank", "' '", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "policy.yaml").write_text(POLICY.format(word=word, count=count), encoding="utf-8")
    (tmp_path / "typo").mkdir()
    (tmp_path / "typo" / "policy.yaml").write_text(POLICY.format(word="hello", count=1).replace("max_count", "max_cuont"), encoding="utf-8")

    out = run_with_package(tmp_path, SCRIPT)

    assert out["good"] == [] and (out["word"], out["max_count"], out["type"]) == ("hello", 1, "ShoutSettings")
    assert out["bad"] == [["PE101", "bad/policy.yaml", 7, 14, "shout.max_count: Input should be greater than or equal to 1 (got 0)"]]
    assert [d[:4] for d in out["typo"]] == [["PE100", "typo/policy.yaml", 7, 3]] and "did you mean 'max_count'?" in out["typo"][0][4]
    assert [d[:4] for d in out["blank"]] == [["PE901", "blank/policy.yaml", 6, 9]]
    assert all(m.endswith(".settings") for m in out["loaded"]) and "toy_shout.settings" in out["loaded"], "loading a policy imported more than settings"
    assert out["schema"] == "#/$defs/ShoutSettings"
    assert out["failure"] is None and out["text"] == "HELLO world, hello again"
