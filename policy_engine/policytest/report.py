"""Rendering a :class:`~policy_engine.policytest.runner.TestRun`: human (pytest/OPA style), JSON, JUnit XML, GitHub annotations."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from policy_engine.policytest.runner import TestRun

FORMATS = ("human", "json", "junit", "github")


def render_human(run: TestRun, *, min_coverage: float | None = None) -> str:
    out: list[str] = []
    for result in run.results:
        status = "PASS" if result.passed else ("ERROR" if result.error else "FAIL")
        out.append(f"{status}  {result.file}:{result.line}  {result.name}")
        if result.error:
            out.append(f"      {result.error}")
        out.extend(f"      - {failure}" for failure in result.failures)
        if result.diff:
            out.extend(f"      {line}" for line in result.diff.splitlines())
    failed = sum(not r.passed for r in run.results)
    out.append("")
    out.append("coverage per constraint:")
    for policy, entries in run.coverage.items():
        for entry in entries.values():
            mark = "ok " if entry.exercised else "-- "
            missing = f"; categories never triggered: {', '.join(entry.untriggered)}" if entry.exercised and entry.untriggered else ""
            detail = f"{entry.redactions} span(s) in {len(entry.cases)} case(s){missing}" if entry.exercised else "no test exercises it"
            out.append(f"  {mark}{policy}/{entry.constraint_id}: {detail}")
    ratio = run.coverage_ratio()
    floor = f" (minimum {min_coverage:.0%})" if min_coverage is not None else ""
    out.append(f"constraint coverage {ratio:.0%}{floor}")
    out.append(f"{len(run.results) - failed} passed, {failed} failed")
    return "\n".join(out) + "\n"


def to_dict(run: TestRun) -> dict:
    return {
        "version": 1,
        "cases": [
            {"file": r.file, "line": r.line, "name": r.name, "policy": r.policy, "passed": r.passed, "failures": list(r.failures), "error": r.error, "diff": r.diff}
            for r in run.results
        ],
        "coverage": {
            policy: {
                cid: {"exercised": e.exercised, "redactions": e.redactions, "cases": sorted(e.cases), "categories": list(e.categories), "untriggered": list(e.untriggered)}
                for cid, e in entries.items()
            }
            for policy, entries in run.coverage.items()
        },
        "summary": {"passed": sum(r.passed for r in run.results), "failed": sum(not r.passed for r in run.results), "coverage": run.coverage_ratio()},
    }


def render_json(run: TestRun) -> str:
    return json.dumps(to_dict(run), indent=2) + "\n"


def render_junit(run: TestRun) -> str:
    suite = ET.Element("testsuite", name="policy-engine test", tests=str(len(run.results)), failures=str(sum(bool(r.failures) for r in run.results)), errors=str(sum(bool(r.error) for r in run.results)))
    for result in run.results:
        case = ET.SubElement(suite, "testcase", classname=f"{result.policy}.{result.file}", name=f"{result.name} (line {result.line})")
        if result.error:
            ET.SubElement(case, "error", message=result.error)
        elif result.failures:
            failure = ET.SubElement(case, "failure", message=result.failures[0])
            failure.text = "\n".join(result.failures) + ("\n\n" + result.diff if result.diff else "")
    return ET.tostring(suite, encoding="unicode") + "\n"


def render_github(run: TestRun) -> str:
    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    lines = [
        f"::error file={r.file},line={r.line},title=policy test failed: {escape(r.name)}::{escape('; '.join(r.failures) or r.error or '')}"
        for r in run.results
        if not r.passed
    ]
    failed = sum(not r.passed for r in run.results)
    lines.append(f"{len(run.results) - failed} passed, {failed} failed; constraint coverage {run.coverage_ratio():.0%}")
    return "\n".join(lines) + "\n"


RENDERERS = {"json": render_json, "junit": render_junit, "github": render_github}
