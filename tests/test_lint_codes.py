"""Every diagnostic code is produced, at the position of the offending token.

Fixtures under tests/fixtures/broken_policies carry markers on the offending
line: ``# expect: PE103 @ token`` (or ``<!-- expect: ... -->`` in Markdown).
The test lints the whole directory once and checks that a diagnostic with
that code is reported on that line, with its column pointing at ``token``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from policy_engine import CODES, lint
from policy_engine.diagnostics import display_path
from policy_engine.policy.loader import load_repo

BROKEN = Path(__file__).parent / "fixtures" / "broken_policies"
MARKER = re.compile(r"expect: (PE\d{3})(?: @ (.+?))?\s*(?:-->)?\s*$")

#: Codes that need a situation a directory of fixtures cannot hold, with the test that covers them.
COVERED_ELSEWHERE = {
    "PE004": "test_loader.py::test_file_size_limit",
    "PE010": "test_loader.py::test_no_policy_found",
    "PE011": "test_loader.py::test_unreadable_path",
    "PE016": "needs 257 fragment files (test_hostile_inputs.py::test_include_count_is_bounded)",
    "PE161": "dead constraints need a compiled corpus (test_compile.py)",
    "PE163": "corpus checks need a corpus (test_hardening.py::test_lint_corpus_names_files_it_would_skip)",
}


def _markers() -> list[tuple[str, int, str | None, str]]:
    out = []
    for path in sorted(BROKEN.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            m = MARKER.search(line)
            if m:
                out.append((display_path(path), number, m.group(2), m.group(1)))
    for path in sorted(BROKEN.glob("PE00[23]-*.yaml")):  # markers cannot live in these files
        out.append((display_path(path), 0, None, path.name[:5]))
    return out


MARKERS = _markers()


@pytest.fixture(scope="module")
def report():
    return lint([BROKEN])


@pytest.mark.parametrize(("file", "line", "token", "code"), MARKERS, ids=[f"{m[3]}-{Path(m[0]).name}" for m in MARKERS])
def test_code_reported_at_marker(report, file, line, token, code):
    hits = [d for d in report.diagnostics if d.code == code and d.span.file == file]
    assert hits, f"{code} not reported for {file}; got {[(d.code, str(d.span)) for d in report.diagnostics if d.span.file == file]}"
    if not line:
        return
    on_line = [d for d in hits if d.span.line == line]
    assert on_line, f"{code} reported at {[str(d.span) for d in hits]}, expected line {line}"
    if token:
        source_line = Path(file).read_text(encoding="utf-8").splitlines()[line - 1]
        assert any(source_line[d.span.col - 1 :].startswith(token) for d in on_line), (
            f"column {[d.span.col for d in on_line]} does not point at {token!r} in {source_line!r}"
        )


def test_every_code_is_exercised():
    fixture_codes = {m[3] for m in MARKERS}
    missing = set(CODES) - fixture_codes - set(COVERED_ELSEWHERE)
    assert not missing, f"codes without a broken fixture: {sorted(missing)}"
    assert set(COVERED_ELSEWHERE) <= set(CODES)


def test_broken_directory_has_errors_and_clean_one_none():
    assert lint([BROKEN]).exit_code() == 3
    clean = lint([Path(__file__).parent / "fixtures" / "clean_policy"])
    assert clean.diagnostics == []
    assert clean.exit_code() == 0


def test_structural_errors_do_not_hide_other_files():
    result = load_repo([BROKEN])
    names = {lp.policy.metadata.name for lp in result.policies}
    assert "broken-pe103" in names and "broken-pe140" in names
    assert "broken-pe100" not in names  # structurally invalid: no policy built


def test_every_diagnostic_has_help_and_known_severity(report):
    for d in report.diagnostics:
        assert d.help and d.severity is not None
        assert d.span.line >= 1 and d.span.col >= 1


@pytest.mark.parametrize(("limit", "reported"), [(2, False), (3, True)])
def test_pe150_only_when_the_guard_can_never_reach_its_limit(tmp_path: Path, limit: int, reported: bool) -> None:
    """The guard flags a subject with at least ``max_per_subject`` QI classes: equal to the number of classes can trigger."""
    text = (BROKEN / "PE150-qi-cannot-trigger.yaml").read_text(encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(re.sub(r"max_per_subject: \d+.*", f"max_per_subject: {limit}", text), encoding="utf-8")
    found = [d for d in lint([tmp_path]).diagnostics if d.code == "PE150"]
    assert bool(found) is reported
    assert all("can never be reached with 2 QI class(es)" in d.message and "exceeded" not in d.message for d in found)
