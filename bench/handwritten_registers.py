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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "tests"))

from handwritten_support import RegisterRun, load_registers, run_register  # noqa: E402


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
    raise SystemExit(main())
