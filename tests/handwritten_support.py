"""The hand-written six-register set (``tests/fixtures/handwritten``): load it and run it through the real engine.

Shared by ``tests/test_handwritten_registers.py`` (regression test) and
``bench/handwritten_registers.py`` (the scored report).  A value counts as
hidden when every letter and digit of every occurrence of it lies inside a
redacted span; an ordinary phrase counts as wrongly hidden when any of its
characters does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "handwritten"


@dataclass(frozen=True)
class ValueGroup:
    """Values of one kind that the register's statements name (``xfail``: why it may fail on this branch)."""

    name: str
    values: tuple[str, ...]
    xfail: str | None = None


@dataclass(frozen=True)
class OrdinaryPhrase:
    """Ordinary text that must stay visible (``xfail``: why it may still be redacted on this branch)."""

    phrase: str
    xfail: str | None = None


@dataclass(frozen=True)
class Register:
    name: str
    directory: Path
    text: str
    groups: tuple[ValueGroup, ...]
    keep: tuple[OrdinaryPhrase, ...]


@dataclass(frozen=True)
class RegisterRun:
    """Redacted character ranges of one register's document, and the protected text."""

    register: Register
    covered: frozenset[int]
    context: str

    def hidden(self, value: str) -> bool:
        """Every letter and digit of every occurrence of ``value`` lies in a redacted span (and it occurs)."""
        starts = _occurrences(self.register.text, value)
        return bool(starts) and all(
            i in self.covered for s in starts for i in range(s, s + len(value)) if self.register.text[i].isalnum()
        )

    def wrongly_hidden(self, phrase: str) -> bool:
        """Some character of some occurrence of ``phrase`` was redacted."""
        return any(i in self.covered for s in _occurrences(self.register.text, phrase) for i in range(s, s + len(phrase)))


def _occurrences(text: str, value: str) -> list[int]:
    out, i = [], text.find(value)
    while i >= 0:
        out.append(i)
        i = text.find(value, i + 1)
    return out


def load_registers(root: Path = FIXTURES) -> list[Register]:
    """Every register under ``root``, sorted by name."""
    yaml = YAML(typ="safe")
    registers = []
    for directory in sorted(p for p in root.iterdir() if (p / "expectations.yaml").exists()):
        spec = yaml.load((directory / "expectations.yaml").read_text(encoding="utf-8"))
        text = (directory / spec["document"]).read_text(encoding="utf-8")
        groups = tuple(ValueGroup(g["group"], tuple(str(v) for v in g["values"]), g.get("xfail")) for g in spec["hide"])
        for group in groups:
            missing = [v for v in group.values if v not in text]
            if missing:
                raise ValueError(f"{directory.name}: group {group.name!r} lists values that are not in the document")
        keep = tuple(OrdinaryPhrase(str(k)) if not isinstance(k, dict) else OrdinaryPhrase(str(k["phrase"]), k.get("xfail")) for k in spec["keep"])
        if any(k.phrase not in text for k in keep):
            raise ValueError(f"{directory.name}: a keep phrase is not in the document")
        registers.append(Register(directory.name, directory, text, groups, keep))
    return registers


def run_register(register: Register) -> RegisterRun:
    """Protect the register's document under its policy with the real engine."""
    from policy_engine import load_policy
    from policy_engine.engine.runtime import Engine

    policy = load_policy(register.directory / "policy.yaml")
    engine = Engine.for_policy(policy, audit=False)
    try:
        result = engine.protect_passages([(register.name, register.text)])
    finally:
        engine.close()
    covered = frozenset(i for r in result.redactions for i in range(r.start, r.end))
    return RegisterRun(register, covered, result.context)
