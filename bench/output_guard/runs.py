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
    another run may have written it meanwhile, rewrite ``results.md`` from every run, and print this run's tables."""
    path = results.with_suffix(".json")
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    runs[run] = {"command": command, "load_average": [round(x, 2) for x in os.getloadavg()], **entry}
    path.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    results.with_suffix(".md").write_text(render(runs), encoding="utf-8")
    print(render({run: runs[run]}))
