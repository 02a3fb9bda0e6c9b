"""The output guard's results file keeps what was written between run sections when a run is recorded."""

from __future__ import annotations

import json
from pathlib import Path

from bench.output_guard.runs import record, with_section


def _render(runs: dict[str, dict[str, object]]) -> str:
    lines = ["# Results", ""]
    for run, entry in runs.items():
        lines += [f"## {run}", "", f"`{entry['command']}`", "", f"score {entry['score']}", ""]
    return "\n".join(lines) + "\n"


def test_recording_a_new_run_appends_its_section_and_keeps_the_notes(tmp_path: Path) -> None:
    results = tmp_path / "guard"
    record(results, "first", "bench first", {"score": 1}, _render)
    document = results.with_suffix(".md")
    document.write_text(document.read_text() + "A note on the first run.\n", encoding="utf-8")
    record(results, "second", "bench second", {"score": 2}, _render)
    text = document.read_text()
    assert text.startswith("# Results\n")
    assert text.index("## first") < text.index("A note on the first run.") < text.index("## second")
    assert "score 2" in text and text.count("# Results") == 1
    assert set(json.loads(results.with_suffix(".json").read_text())) == {"first", "second"}


def test_recording_a_run_again_replaces_only_its_own_section() -> None:
    document = "# R\n\n## a\n\nold a\n\nnote on a\n\n## a-b (names)\n\nkept\n\n## c\n\nc\n"
    updated = with_section(document, "a", "## a\n\nnew a\n")
    assert updated == "# R\n\n## a\n\nnew a\n\n## a-b (names)\n\nkept\n\n## c\n\nc\n"
    assert with_section(document, "a-b", "## a-b (names)\n\nnew\n").count("kept") == 0
    assert with_section(document, "c", "## c\n\nnew c\n").endswith("## c\n\nnew c\n")
