"""Lint throughput: a generated repo of 1,000 policy files holding 10,000 constraints.

Each file is a realistic policy (10 constraints with detector hints, private
triples, necessity rules, QI and DP sections).  The lint runs in a fresh
process so peak RSS is the linter's own.  Writes bench/results/lint.json and
bench/results/lint.md.

    python bench/lint_bench.py [--files 1000] [--constraints-per-file 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

RESULTS = Path(__file__).parent / "results"

STATEMENTS = [
    ("Hide the names of patients", "extractive", "detect: {roles: [patient]}"),
    ("Do not reveal specific doses of medicine", "periphrastic", "detect: {patterns: ['\\b\\d+\\s?mg\\b']}"),
    ("Never disclose dates of birth", "extractive", "severity: high"),
    ("Redact medical record numbers", "extractive", "detect: {patterns: ['MRN-\\d{6}']}"),
    ("Hide home addresses of clients", "periphrastic", "detect: {roles: [client]}"),
    ("Do not reveal account numbers or IBANs", "extractive", "severity: critical"),
    ("Mask e-mail addresses and phone numbers", "extractive", "detect: {entity_types: []}"),
    ("Keep diagnoses of patients confidential", "periphrastic", "detect: {terms: [HIV, hepatitis]}"),
    ("Hide salaries and account balances", "periphrastic", "severity: high"),
    ("Do not reveal the employers of customers", "periphrastic", "detect: {entity_types: [ORG]}"),
]


def policy_file(i: int, per_file: int) -> str:
    constraints = []
    for j in range(per_file):
        statement, mode, extra = STATEMENTS[j % len(STATEMENTS)]
        constraints.append(
            f"  - id: c{i:04d}-{j:03d}\n    statement: {statement} (unit {i}.{j})\n    redaction: {mode}\n    {extra}\n"
        )
    return textwrap.dedent(
        f"""\
        apiVersion: policy-engine.dev/v1
        kind: PrivacyPolicy
        metadata:
          name: generated-{i:04d}
          owner: privacy@example.org
          version: "1"
        """
    ) + "constraints:\n" + "".join(constraints) + textwrap.dedent(
        f"""\
        private_knowledge:
          private:
            - [Person {i} Doe, diagnosed_with, condition {i}]
            - [Person {i} Doe, lives_at, {i} Elm Street]
          public:
            - [Clinic {i}, located_in, Springfield]
        necessity:
          rules:
            - task: summarisation
              essential: [health]
              non_essential: [identifiers]
        quasi_identifiers:
          domain: medical
          classes: [AGE, OCCUPATION, LOCATION, CONDITION]
          max_per_subject: 2
        differential_privacy:
          epsilon: 4
          delta: 1.0e-6
        """
    )


CHILD = r"""
import json, resource, sys, time
from policy_engine import lint
t0 = time.perf_counter()
report = lint([sys.argv[1]])
elapsed = time.perf_counter() - t0
print(json.dumps({
    "seconds": elapsed,
    "files": len(report.files),
    "policies": len(report.policies),
    "constraints": sum(len(lp.policy.constraints) for lp in report.policies),
    "diagnostics": len(report.diagnostics),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--constraints-per-file", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        for i in range(args.files):
            (repo / f"policy-{i:04d}.yaml").write_text(policy_file(i, args.constraints_per_file), encoding="utf-8")
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run([sys.executable, "-c", CHILD, str(repo)], check=True, capture_output=True, text=True)
            runs.append(json.loads(out.stdout))
    best = min(runs, key=lambda r: r["seconds"])
    result = {
        "benchmark": "lint",
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count(), "platform": platform.platform()},
        "files": best["files"],
        "constraints": best["constraints"],
        "diagnostics": best["diagnostics"],
        "seconds_best": round(best["seconds"], 3),
        "seconds_all": [round(r["seconds"], 3) for r in runs],
        "files_per_second": round(best["files"] / best["seconds"], 1),
        "constraints_per_second": round(best["constraints"] / best["seconds"], 1),
        "peak_rss_mb": round(max(r["peak_rss_mb"] for r in runs), 1),
        "target_seconds": 5.0,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "lint.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "lint.md").write_text(
        "# Lint benchmark\n\n"
        f"`python bench/lint_bench.py --files {args.files} --constraints-per-file {args.constraints_per_file}`\n\n"
        "| files | constraints | best time (s) | files/s | constraints/s | peak RSS (MB) | target |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| {result['files']} | {result['constraints']} | {result['seconds_best']} | {result['files_per_second']} | "
        f"{result['constraints_per_second']} | {result['peak_rss_mb']} | < 5 s |\n"
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
