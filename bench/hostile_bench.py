"""Hostile inputs, measured: a YAML alias bomb in lint, and a compile over unusable corpus files.

1. ``lint`` of a 9-level alias bomb (``&a9 [*a8 x 9]``: 9**9 values if
   expanded) in a fresh child process: wall time of the lint call and the
   child's peak resident memory (whole process, imports included).
2. ``compile`` of the test fixture policy whose corpus also holds a file with a
   2 MiB line without whitespace, a 20 MiB text file and a zip of random
   bytes: whether it completes, its wall time and peak memory, and the skipped
   files with their reasons.  The bench policy sets ``corpus.max_file_bytes``
   to 16 MiB (the default is 64 MiB), so the 20 MiB file is refused by size
   before it is read.

Usage::

    python bench/hostile_bench.py            # writes bench/results/hostile.json and hostile.md

Children run with ``RLIMIT_AS`` capped (2 GiB for lint, 6 GiB for compile),
so a regression fails the bench instead of exhausting the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FIXTURE = ROOT / "tests" / "fixtures" / "compile"


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ['  a0: &a0 ["lol"]']
    lines += [f"  a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * width)}]" for n in range(1, levels + 1)]
    return "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: bomb}\nx:\n" + "\n".join(lines) + "\n"


def run_child(code: str, cwd: Path, cap_gib: int) -> dict:
    prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({cap_gib} << 30, {cap_gib} << 30))\n"
    epilogue = "\nimport json, resource\nprint(json.dumps({**RESULT, 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code) + epilogue], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        return {"completed": False, "exit_code": done.returncode, "stderr_tail": done.stderr[-2000:]}
    return {"completed": True, **json.loads(done.stdout.strip().splitlines()[-1])}


def bench_alias_bomb(work: Path) -> dict:
    bomb = work / "bomb.yaml"
    bomb.write_text(alias_bomb(), encoding="utf-8")
    result = run_child(
        """
        import time
        from policy_engine import lint
        t0 = time.perf_counter()
        report = lint(["bomb.yaml"])
        RESULT = {"seconds": time.perf_counter() - t0,
                  "diagnostics": [f"{d.span}: {d.code} {d.message}" for d in report.diagnostics]}
        """,
        work,
        cap_gib=2,
    )
    result["input_bytes"] = bomb.stat().st_size
    return result


def bench_compile(work: Path) -> dict:
    policy_dir = work / "policy"
    shutil.copytree(FIXTURE, policy_dir)
    policy = policy_dir / "policy.yaml"
    policy.write_text(policy.read_text(encoding="utf-8").replace("corpus:\n", "corpus:\n  max_file_bytes: 16777216\n"), encoding="utf-8")
    corpus = policy_dir / "corpus"
    (corpus / "long-line.txt").write_text("A note before the dump.\n" + "x" * (2 * 1024 * 1024) + "\n", encoding="utf-8")
    sentence = "The clinic reviewed the discharge notes and scheduled a follow-up visit for next week.\n"
    (corpus / "big.txt").write_text(sentence * (20 * 1024 * 1024 // len(sentence) + 1), encoding="utf-8")
    (corpus / "archive.zip").write_bytes(os.urandom(1024 * 1024))
    result = run_child(
        """
        import time
        from policy_engine.bundle.reader import compile_bundle
        t0 = time.perf_counter()
        report = compile_bundle("policy/policy.yaml", "bundle")
        RESULT = {"seconds": time.perf_counter() - t0, "counts": report.manifest["counts"],
                  "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped]}
        """,
        work,
        cap_gib=6,
    )
    result["corpus_files"] = {p.name: p.stat().st_size for p in sorted(corpus.iterdir())}
    return result


def main() -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pe-hostile-") as tmp:
        work = Path(tmp)
        results = {"alias_bomb_lint": bench_alias_bomb(work), "compile_unusable_corpus": bench_compile(work)}
    (RESULTS / "hostile.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    bomb, comp = results["alias_bomb_lint"], results["compile_unusable_corpus"]
    lines = [
        "# Hostile inputs (bench/hostile_bench.py)",
        "",
        "| case | completed | seconds | peak RSS (MB) | outcome |",
        "|---|---|---|---|---|",
        f"| lint, 9-level alias bomb ({bomb.get('input_bytes')} bytes) | {bomb['completed']} | {bomb.get('seconds', 0):.3f} | {bomb.get('peak_rss_mb', 0):.0f} | {'; '.join(bomb.get('diagnostics', [])) or bomb.get('stderr_tail', '')} |",
        f"| compile, fixture + 2 MiB line + 20 MiB file + random zip | {comp['completed']} | {comp.get('seconds', 0):.1f} | {comp.get('peak_rss_mb', 0):.0f} | {comp.get('counts', {}).get('documents')} documents, {comp.get('counts', {}).get('chunks')} chunks |",
        "",
        "Skipped by compile:",
        "",
        *[f"- `{s['path']}`: {s['reason']}" for s in comp.get("skipped", [])],
        "",
    ]
    (RESULTS / "hostile.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
