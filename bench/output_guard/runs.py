"""One results file of named runs, shared by the output guard's benches: ``<name>.json`` holds every run, ``<name>.md`` renders them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path


def run_arguments(doc: str, domains: Iterable[str]) -> argparse.ArgumentParser:
    """A bench's argument parser with the options every run has: its name in the results file and the domains to run."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--run", default="current", help="name of this run in the results file")
    parser.add_argument("--domain", action="append", choices=list(domains), help="only these domains")
    return parser


def announce() -> str:
    """The command line that reproduces this run of the running script (``sys.argv``; printed with the load average
    now); returned for the results file."""
    command = f"OMP_NUM_THREADS=1 PYTHONPATH=. python bench/output_guard/{Path(sys.argv[0]).name} " + " ".join(sys.argv[1:])
    print(command, "| load average", os.getloadavg())
    return command


def record(results: Path, run: str, command: str, entry: dict[str, object], render: Callable[[dict], str]) -> None:
    """Add ``run`` (its command, the load average now and ``entry``) to ``results.json``, read after the run since
    another run may have written it meanwhile; put this run's section into ``results.md`` (:func:`with_section`: the
    notes written between sections stay) and print it."""
    path = results.with_suffix(".json")
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    runs[run] = {"command": command, "load_average": [round(x, 2) for x in os.getloadavg()], **entry}
    path.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    rendered = render({run: runs[run]})
    section = rendered[rendered.index("\n## ") + 1:]
    document = results.with_suffix(".md")
    current = document.read_text(encoding="utf-8") if document.exists() else rendered[: rendered.index("\n## ") + 1]
    document.write_text(with_section(current, run, section), encoding="utf-8")
    print(section)


def with_section(document: str, run: str, section: str) -> str:
    """``document`` (markdown, one ``## <run>`` section per run) with ``run``'s section replaced by ``section``, from
    its heading to the next section's heading, notes under it included; appended at the end when ``run`` has none.
    A heading names its run alone or followed by a bracketed remark ("## base (person names, wnut)")."""
    lines = document.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == f"## {run}" or line.startswith(f"## {run} (")), None)
    if start is None:
        return document.rstrip("\n") + "\n\n" + section if document.strip() else section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + section.rstrip("\n") + "\n" + ("\n" + tail if tail else "")
