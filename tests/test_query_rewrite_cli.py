"""``policy-engine rewrite`` prints one line per decision whose basis names who settled it ("policy rule:", "model:",
"default:"), built from the decision's ``origin`` (real engine, the shipped clinic policy; the lines as they read
before the prefix was derived from ``origin``).  The questions were written for this test, each so that the task the
shipped classifier reads in it shows the origin under test (a task the clinic has a rule for, or one it has none for)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from click_cli import cli

CLINIC = Path(__file__).resolve().parents[1] / "policies" / "clinic"


def decision_lines(question: str) -> list[str]:
    result = CliRunner().invoke(cli, ["rewrite", str(CLINIC), question], obj={})
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if line.startswith("  ")]


def test_a_policy_rule_decision_says_so() -> None:
    lines = decision_lines("I'm allergic to peanuts and my sister jenna is visiting. Can you explain which snacks are safe for me to pack for a hike?")
    assert lines == [
        "  kept         allergies            self         'allergic to peanuts'  (policy rule: essential)",
        "  removed      vacation_prefs       family       'and my sister jenna is visiting'  (policy rule: non-essential)",
        "  removed      name                 family       'jenna'  (policy rule: non-essential)",
    ]


def test_model_and_default_decisions_say_so() -> None:
    lines = decision_lines("My manager Derek Stone in Leeds said I'm being fired; how should I look for a new job?")
    assert lines == [
        "  placeholder  name                 coworker     'Derek Stone'  (default: a value the answer only carries)",
        "  kept         address              coworker     'Leeds'  (model: the question needs it)",
    ]
