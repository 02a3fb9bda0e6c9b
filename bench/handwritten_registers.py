"""Hand-written six-register set: does a plain-statement policy hide what it names?

``tests/fixtures/handwritten/<register>/`` holds one hand-written document
(court judgment, clinical note, bank letter, email thread, chat transcript,
form/table; UK, EU and US formats), a policy of plain statements only
(``statements.md`` included by a minimal ``policy.yaml``, no ``detect``
hints) and ``expectations.yaml``: groups of values the statements name,
which must be hidden, and ordinary text, which must stay.  The set was
written before any tuning and is kept as a regression test
(``tests/test_handwritten_registers.py``).

Each register runs through the real engine
(``Engine.for_policy(policy).protect_passages``: statement resolution with
MiniLM, spaCy NER, recognizers, redaction).  A value counts as hidden when
every letter and digit of every occurrence of it lies inside a redacted span;
an ordinary phrase counts as wrongly hidden when any of its characters does.

Usage: ``.venv/bin/python bench/handwritten_registers.py`` prints one line
per register and writes ``bench/results/handwritten_registers.json`` and
``.md`` (no raw values: counts and group names only).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "handwritten"
RESULTS = ROOT / "bench" / "results"


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


def summarize(runs: Iterable[RegisterRun]) -> list[dict]:
    """Per register: values hidden / total, ordinary phrases wrongly hidden, and the groups that leak."""
    rows = []
    for run in runs:
        values = [v for g in run.register.groups for v in g.values]
        leaking = [g.name for g in run.register.groups if not all(run.hidden(v) for v in g.values)]
        rows.append(
            {
                "register": run.register.name,
                "values_hidden": sum(run.hidden(v) for v in values),
                "values_total": len(values),
                "ordinary_wrongly_hidden": sum(run.wrongly_hidden(k.phrase) for k in run.register.keep),
                "ordinary_total": len(run.register.keep),
                "groups_leaking": leaking,
            }
        )
    return rows


def _markdown(rows: list[dict]) -> str:
    lines = [
        "| register | values hidden | ordinary phrases wrongly hidden | groups leaking |",
        "|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['register']} | {r['values_hidden']}/{r['values_total']} | {r['ordinary_wrongly_hidden']}/{r['ordinary_total']} | {'; '.join(r['groups_leaking']) or '-'} |"
        )
    hidden = sum(r["values_hidden"] for r in rows)
    total = sum(r["values_total"] for r in rows)
    wrong = sum(r["ordinary_wrongly_hidden"] for r in rows)
    lines.append(f"| **all** | {hidden}/{total} | {wrong}/{sum(r['ordinary_total'] for r in rows)} | |")
    return "\n".join(lines) + "\n"


def main() -> int:
    rows = summarize(run_register(r) for r in load_registers())
    for r in rows:
        print(
            f"{r['register']:<16} hidden {r['values_hidden']:>2}/{r['values_total']:<2}  "
            f"ordinary wrongly hidden {r['ordinary_wrongly_hidden']}/{r['ordinary_total']}  "
            f"leaking: {', '.join(r['groups_leaking']) or '-'}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "handwritten_registers.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "handwritten_registers.md").write_text(_markdown(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
