"""The ``PolicyTest`` file format (validated; JSON Schema in ``schemas/policy-test.schema.json``).

```yaml
apiVersion: policy-engine.dev/v1
kind: PolicyTest
metadata: {name: clinic}
policy: .                       # the policy directory or file, relative to this file
cases:
  - name: nurse sees no patient identity
    principal: nurse-7
    purpose: care
    passages:
      - text: "Patient Jane Doe (DOB 04/05/1980) takes metformin 500 mg."
      - file: ../../examples/clinic/docs/clinic-001.md
    expect:
      outcome: redacted
      hidden: [Jane Doe, 04/05/1980]
      kept: [metformin]
      placeholders: [PATIENT_NAME]
      applied: [hide-patient-names]
      not_applied: [hide-staff-phones]
```
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from policy_engine.policy.model import API_VERSION, Metadata


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PassageSpec(_Strict):
    """One passage: inline ``text`` or a ``file`` (relative to the test file); ``id`` defaults to the file name or ``passage-N``."""

    id: str | None = None
    text: str | None = None
    file: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> PassageSpec:
        if (self.text is None) == (self.file is None):
            raise ValueError("give exactly one of 'text' or 'file'")
        return self


class Expectation(_Strict):
    """What must hold for the case to pass; every field is optional and checked only when given."""

    outcome: Literal["allowed", "redacted", "denied", "abstained"] | None = None
    hidden: list[str] = Field(default_factory=list, description="Values that must not appear in the protected context.")
    kept: list[str] = Field(default_factory=list, description="Values that must survive protection verbatim.")
    placeholders: list[str] = Field(default_factory=list, description="Placeholder labels that must appear, e.g. PATIENT_NAME for [PATIENT_NAME_1].")
    contains: list[str] = Field(default_factory=list, description="Text the protected context must contain (e.g. a generalization).")
    applied: list[str] = Field(default_factory=list, description="Constraint ids whose detectors must target at least one span.")
    not_applied: list[str] = Field(default_factory=list, description="Constraint ids that must target nothing.")
    sections: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Per-enforcer decision-record sections that must contain these keys and values (e.g. kg_erasure, query_rewrite, output_guard).",
    )


class PolicyTestCase(_Strict):
    """One case: passages or a question, who asks and why, and the expectation."""

    name: str = Field(min_length=1)
    description: str | None = None
    principal: str | None = None
    purpose: str | None = None
    passages: list[PassageSpec] = Field(default_factory=list)
    question: str | None = Field(default=None, description="Retrieve from the compiled corpus (needs --bundle).")
    expect: Expectation

    @model_validator(mode="after")
    def _one_input(self) -> PolicyTestCase:
        if bool(self.passages) == (self.question is not None):
            raise ValueError("give either 'passages' or 'question'")
        return self


class PolicyTestFile(_Strict):
    """A file of policy tests."""

    apiVersion: Literal["policy-engine.dev/v1"] = API_VERSION  # type: ignore[assignment]
    kind: Literal["PolicyTest"]
    metadata: Metadata
    policy: str = Field(default=".", description="The policy directory or root file, relative to this test file.")
    cases: list[PolicyTestCase] = Field(min_length=1)
