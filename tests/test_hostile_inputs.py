"""Hostile policies and corpora (hypothesis), each batch checked in a child process under a memory cap.

Strategies produce alias bombs, deep nesting, long tokens, huge numbers,
control characters and path tricks (absolute, ``..``, symlinks out of the
repo).  The parent writes a batch of files; a child process whose address
space is capped (``RLIMIT_AS``) lints or ingests them and reports back.  The
properties: the child finishes in time and within the cap, nothing raises, every
policy problem is a positioned diagnostic (no empty ``PE001``), every corpus
file is ingested or skipped with a reason, nothing outside the repo is read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import policy_engine

REPO = Path(policy_engine.__file__).resolve().parents[1]
CAP_MB = 1536
HEADER = "apiVersion: policy-engine.dev/v1\nkind: PrivacyPolicy\nmetadata: {name: hostile}\n"
SECRET = "TOP-SECRET-LINE-7f3a"
#: Each example starts a child process; shrinking would start dozens more (the failing batch is printed whole).
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def run_capped(code: str, cwd: Path, timeout: float = 60) -> dict:
    """Run ``code`` (which prints one JSON line) in a child Python capped at :data:`CAP_MB`."""
    prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({CAP_MB} << 20, {CAP_MB} << 20))\n"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- policy strategies


@st.composite
def alias_bombs(draw: st.DrawFn) -> str:
    levels, width = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    lines = ['  b0: &b0 ["x"]'] + [f"  b{n}: &b{n} [{', '.join([f'*b{n - 1}'] * width)}]" for n in range(1, levels + 1)]
    return "bomb:\n" + "\n".join(lines) + "\n"


@st.composite
def deep_nesting(draw: st.DrawFn) -> str:
    depth = draw(st.integers(10, 3000))
    if draw(st.booleans()):
        return "deep: " + "[" * depth + "1" + "]" * depth + "\n"
    return "deep:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(min(depth, 400))) + "  " * 401 + "v: 1\n"


long_tokens = st.integers(1_000, 100_000).map(lambda n: f"constraints:\n  - id: long\n    statement: Hide {'y' * n}\n")
huge_numbers = st.integers(20, 60_000).map(lambda n: f"differential_privacy:\n  epsilon: {'9' * n}\n  delta: 1e{'9' * min(n, 400)}\n")
control_characters = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FFF, blacklist_categories=("Cs",)), min_size=1, max_size=200
).map(lambda t: f"constraints:\n  - id: ctl\n    statement: \"Hide {json.dumps(t)[1:-1]}\"\n    note: {t!r}\n")
include_tricks = st.sampled_from(
    ["/etc/passwd", "../outside.yaml", "parts/../../outside.yaml", "link-out.yaml", "./../outside.yaml", "/proc/self/environ"]
).map(lambda target: f"include:\n  - {target}\n")
sections = st.one_of(alias_bombs(), deep_nesting(), long_tokens, huge_numbers, control_characters, include_tricks)
hostile_policies = st.lists(sections, min_size=1, max_size=3).map(lambda parts: HEADER + "".join(parts))


def _policy_repo(base: Path, texts: list[str]) -> Path:
    (base / "outside.yaml").write_text(f"apiVersion: policy-engine.dev/v1\nkind: PolicyFragment\n# {SECRET}\n", encoding="utf-8")
    repo = base / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "link-out.yaml").symlink_to(base / "outside.yaml")
    for n, text in enumerate(texts):
        (repo / f"p{n:02d}.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    return repo


LINT_CHILD = """
import json, time
from policy_engine import lint
from policy_engine.lint.formats import render
t0 = time.perf_counter()
out = []
for path in sorted(__import__("pathlib").Path(".").glob("p*.yaml")):
    report = lint([str(path)])
    out.append({"file": path.name, "text": render(report, "human", colour=False, verbose=True, summary=False),
                "diags": [[d.code, d.span.line, d.message] for d in report.diagnostics]})
print(json.dumps({"seconds": time.perf_counter() - t0, "files": out}))
"""


@settings(max_examples=4, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts=st.lists(hostile_policies, min_size=4, max_size=6))
def test_hostile_policies_lint_to_positioned_diagnostics(tmp_path_factory, texts: list[str]) -> None:
    repo = _policy_repo(tmp_path_factory.mktemp("hostile"), texts)
    result = run_capped(LINT_CHILD, repo)
    assert result["seconds"] < 30
    for item in result["files"]:
        assert SECRET not in item["text"], item["file"]
        for code, line, message in item["diags"]:
            assert line >= 1 and message.strip() and not message.endswith(": "), (item["file"], code, message)
            assert "MemoryError" not in message and "RecursionError" not in message and "recursion" not in message, message


def test_include_count_is_bounded(tmp_path: Path) -> None:
    from policy_engine import lint
    from policy_engine.policy.loader import MAX_INCLUDES

    (tmp_path / ".git").mkdir()
    parts = tmp_path / "parts"
    parts.mkdir()
    for n in range(MAX_INCLUDES + 1):
        (parts / f"f{n:03d}.yaml").write_text("apiVersion: policy-engine.dev/v1\nkind: PolicyFragment\n", encoding="utf-8")
    listing = "".join(f"  - parts/f{n:03d}.yaml\n" for n in range(MAX_INCLUDES + 1))
    (tmp_path / "policy.yaml").write_text(HEADER + "include:\n" + listing, encoding="utf-8")
    report = lint([tmp_path / "policy.yaml"])
    hits = [d for d in report.diagnostics if d.code == "PE016"]
    assert hits and hits[0].span.line == 5 + MAX_INCLUDES


# -- corpus strategies

corpus_texts = st.one_of(
    st.text(min_size=1, max_size=2000),
    st.integers(10_001, 300_000).map(lambda n: "Intro. " + "z" * n),
    st.binary(min_size=1, max_size=4096),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=31), min_size=1, max_size=500),
)
corpus_names = st.sampled_from(["a.md", "b.txt", "c.jsonl", "d.png", "e.zip", "f", "g.rst", "h.md", "ünï cödé.txt", ".hidden.md"])


CORPUS_CHILD = """
import json
from policy_engine.bundle.corpus import ingest, chunk_corpus
from policy_engine.bundle.knowledge_graph import extract_chunks
from policy_engine.policy.model import CorpusSettings
report = ingest(CorpusSettings(paths=["docs", "../outside-docs", "/etc/hostname"]), ".")
chunks = chunk_corpus(report.documents, CorpusSettings().chunking)
extract_chunks([c.text for c in chunks])
print(json.dumps({"docs": [d.source for d in report.documents], "texts": [d.text for d in report.documents],
                  "skipped": [[s.path, s.reason] for s in report.skipped], "files": report.files}))
"""


@settings(max_examples=3, deadline=None, phases=NO_SHRINK, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files=st.dictionaries(corpus_names, corpus_texts, min_size=2, max_size=8))
def test_hostile_corpora_are_ingested_or_skipped_with_a_reason(tmp_path_factory, files: dict[str, str | bytes]) -> None:
    base = tmp_path_factory.mktemp("corpus")
    (base / "outside-docs").mkdir()
    (base / "outside-docs" / "secret.md").write_text(SECRET, encoding="utf-8")
    repo = base / "repo"
    docs = repo / "docs"
    docs.mkdir(parents=True)
    (repo / ".git").mkdir()
    (docs / "escape.md").symlink_to(base / "outside-docs" / "secret.md")
    for name, content in files.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8", errors="surrogatepass")
        (docs / name).write_bytes(data)
    result = run_capped(CORPUS_CHILD, repo, timeout=120)
    assert not any(SECRET in text for text in result["texts"])
    accounted = {path.split(":")[0] for path in result["docs"]} | {path.split(":")[0] for path, _ in result["skipped"]}
    for name in [*files, "escape.md"]:
        assert f"docs/{name}" in accounted, (name, result["skipped"])
    assert all(reason for _, reason in result["skipped"])
