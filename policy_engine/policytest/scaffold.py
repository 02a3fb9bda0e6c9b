"""``policy-engine init``: a new policy repo that passes its own checks on the first run.

Writes a policy (YAML root plus a Markdown statements file), an example
document as its corpus, one policy test covering every statement, a
pre-commit configuration running lint, fmt and test, and a CI workflow that
calls the composite GitHub Action.  Existing files are never overwritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from policy_engine.errors import PolicyEngineError

#: The composite action a scaffolded workflow calls (this repository's action.yml).
DEFAULT_ACTION = "policy-engine/policy-engine@v0.1.0"

#: Template -> path written under the new repo (``{name}`` is the policy name).
_FILES = {
    "policy.yaml.j2": "policy.yaml",
    "statements.md.j2": "statements.md",
    "example.md.j2": "docs/example.md",
    "test.yaml.j2": "{name}_test.yaml",
    "pre-commit-config.yaml.j2": ".pre-commit-config.yaml",
    "workflow.yml.j2": ".github/workflows/privacy-policy.yml",
}


class ScaffoldError(PolicyEngineError, ValueError):
    """The target cannot be scaffolded (a file exists, or the name is unusable); the message says what to do."""


@dataclass(frozen=True)
class Scaffold:
    root: Path
    written: tuple[Path, ...]


def init_policy_repo(root: Path, name: str, *, owner: str = "privacy-office@example.org", action: str = DEFAULT_ACTION) -> Scaffold:
    """Write a new policy repo under ``root``; raises :class:`ScaffoldError` rather than overwrite anything."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,62}", name):
        raise ScaffoldError(f"policy name {name!r}: use lower-case letters, digits and '-' (e.g. 'clinic')")
    targets = {template: root / path.format(name=name) for template, path in _FILES.items()}
    existing = [str(p) for p in targets.values() if p.exists()]
    if existing:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); choose an empty directory (init never overwrites)")
    environment = Environment(loader=PackageLoader("policy_engine", "scaffold_templates"), undefined=StrictUndefined, keep_trailing_newline=True)
    for template, target in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(environment.get_template(template).render(name=name, owner=owner, action=action), encoding="utf-8")
    return Scaffold(root, tuple(targets.values()))
