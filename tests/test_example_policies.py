"""The example policy repos (policies/) and their synthetic corpora (examples/).

Checks that each example policy loads, is lint-clean and fmt-canonical, points at
an existing corpus, and that its private knowledge talks about people and facts
of that corpus (including one fact that only emerges across two documents,
Eraser4RAG Section 2).  Checks that GROUND_TRUTH.json offsets are exact, that
labels use the vocabulary's categories and the resolver's role words, that
structured identifiers carry valid check digits, that the corpus generator is
deterministic, that every detector pattern in the policies matches only labelled
values of its constraint's categories, and that the offsets hold on the text the
engine's corpus ingestion reads.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from policy_engine import lint, load_policy, load_repo
from policy_engine.policy.fmt import format_paths
from policy_engine.policy.resolution import ROLE_WORDS, resolve_constraint
from policy_engine.policy.vocabulary import vocabulary_for

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NAMES = ("clinic", "bank", "lawfirm")

sys.path.insert(0, str(EXAMPLES))
from corpusgen.identifiers import aba_valid, iban_valid, luhn_valid  # noqa: E402

#: roles of people in the corpora that the resolver has no role word for
CORPUS_ONLY_ROLES = {"relative"}


@cache
def truth(name: str) -> dict:
    return json.loads((EXAMPLES / name / "GROUND_TRUTH.json").read_text(encoding="utf-8"))


@cache
def texts(name: str) -> dict[str, str]:
    """Document id -> text, read the way a corpus loader reads the files."""
    out: dict[str, str] = {}
    for line in (EXAMPLES / name / "records.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        out[record["id"]] = record["text"]
    for path in sorted((EXAMPLES / name / "docs").iterdir()):
        out[path.stem] = path.read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("name", NAMES)
def test_policy_loads_with_its_parts(name: str) -> None:
    policy = load_policy(ROOT / "policies" / name)
    assert policy.metadata.name == name
    assert policy.metadata.owner and policy.metadata.labels
    assert any(s.endswith(".md") for s in policy.sources), policy.sources
    assert len([s for s in policy.sources if s.endswith(".yaml")]) >= 2, "root plus at least one fragment"
    assert len(policy.constraints) >= 10
    assert {c.redaction.value for c in policy.constraints} == {"extractive", "periphrastic"}
    assert len({c.severity for c in policy.constraints}) >= 3
    assert len(policy.necessity.rules) >= 4
    assert policy.private_knowledge.private and policy.private_knowledge.public
    qi, dp = policy.quasi_identifiers, policy.differential_privacy
    assert qi is not None and qi.domain in {"medical", "finance", "law"}
    assert dp is not None and 3 <= dp.epsilon <= 8 and dp.documents == len(texts(name))
    assert dp.delta <= 1e-5 and dp.delta < 1 / dp.documents
    assert policy.corpus.binding.top_k == 50


def test_example_policies_are_lint_clean_and_canonical() -> None:
    report = lint([ROOT / "policies"])
    assert [f"{d.span} {d.code} {d.message}" for d in report.diagnostics] == []
    assert sorted(lp.policy.metadata.name for lp in report.policies) == sorted(NAMES)
    results = format_paths([ROOT / "policies"], write=False)
    assert results and [r.path for r in results if r.changed or r.error] == []


@pytest.mark.parametrize("name", NAMES)
def test_corpus_paths_exist_and_hold_the_corpus(name: str) -> None:
    policy = load_policy(ROOT / "policies" / name)
    matched: list[Path] = []
    for pattern in policy.corpus.paths:
        hits = [Path(p) for p in glob.glob(str(Path(policy.root_dir) / pattern), recursive=True)]
        assert hits, pattern
        matched += hits
    resolved = {p.resolve() for p in matched}
    assert (EXAMPLES / name / "docs").resolve() in resolved
    assert (EXAMPLES / name / "records.jsonl").resolve() in resolved


@pytest.mark.parametrize("name", NAMES)
def test_private_knowledge_is_about_the_corpus(name: str) -> None:
    knowledge = load_policy(ROOT / "policies" / name).private_knowledge
    docs = texts(name)
    corpus = "\n".join(docs.values())
    for head, _, tail in knowledge.private_triples():
        assert head in corpus, f"private head {head!r} does not occur in examples/{name}"
        assert tail in corpus, f"private tail {tail!r} does not occur in examples/{name}"
    # A private fact about a person is true in the ground truth: the tail value belongs to that person.
    pid = {person["name"]: key for key, person in truth(name)["people"].items()}
    spans = [s for d in truth(name)["documents"] for s in d["spans"] if s["category"] != "person_name"]
    for head, relation, tail in knowledge.private:
        owners = {s.get("subject") for s in spans if s["value"] == tail}
        if head in pid and owners:
            assert pid[head] in owners, f"[{head}, {relation}, {tail}]: the ground truth gives {tail!r} to {owners}"
    for head, _, _ in knowledge.public:
        assert head in corpus, f"public head {head!r} does not occur in examples/{name}"
    # Eraser4RAG cross-document de-anonymization: some private fact is never stated in one document.
    split = [(h, t) for h, _, t in knowledge.private if h != t and not any(h in d and t in d for d in docs.values())]
    assert split, "no private triple whose head and tail only meet across documents"


@pytest.mark.parametrize("name", NAMES)
def test_ground_truth_offsets_are_exact(name: str) -> None:
    gt, docs = truth(name), texts(name)
    assert gt["corpus"] == name and set(docs) == {d["id"] for d in gt["documents"]}
    assert 40 <= len(docs) <= 60
    for entry in gt["documents"]:
        text = docs[entry["id"]]
        assert 150 <= len(text.split()) <= 600, entry["id"]
        assert entry["spans"], entry["id"]
        for span in entry["spans"]:
            assert text[span["start"] : span["end"]] == span["value"], (entry["id"], span)


@pytest.mark.parametrize("name", NAMES)
def test_ground_truth_labels_use_the_vocabulary(name: str) -> None:
    gt = truth(name)
    vocab = vocabulary_for(load_policy(ROOT / "policies" / name).vocabulary)
    spans = [s for d in gt["documents"] for s in d["spans"]]
    categories = Counter(s["category"] for s in spans)
    assert set(categories) <= set(vocab.categories)
    assert len(categories) >= 10, categories
    known_roles = set(ROLE_WORDS.values()) | CORPUS_ONLY_ROLES
    for s in spans:
        if s["category"] == "person_name":
            assert s["role"] in known_roles and gt["people"][s["subject"]]["role"] == s["role"], s
        if "subject" in s:
            assert s["subject"] in gt["people"], s
    assert len({s["role"] for s in spans if s["category"] == "person_name"}) >= 3
    templates = Counter(d["template"] for d in gt["documents"])
    assert len(templates) >= 8
    assert {Path(d["path"]).suffix for d in gt["documents"]} == {".md", ".txt", ".jsonl"}


def test_identifier_checksums_are_valid() -> None:
    # Published test vectors pin the validators themselves.
    assert iban_valid("GB82 WEST 1234 5698 7654 32") and not iban_valid("GB82 WEST 1234 5698 7654 33")
    assert luhn_valid("4111 1111 1111 1111") and not luhn_valid("4111 1111 1111 1112")
    assert aba_valid("011000015") and not aba_valid("011000016")
    accounts = [s["value"] for d in truth("bank")["documents"] for s in d["spans"] if s["category"] == "financial_account"]
    cards = [v for v in accounts if re.fullmatch(r"\d{4}( \d{4}){3}", v)]
    ibans = [v for v in accounts if re.fullmatch(r"[A-Z]{2}\d{2}[ A-Z0-9]+", v)]
    routing = [v for v in accounts if re.fullmatch(r"\d{9}", v)]
    assert cards and ibans and routing
    assert all(luhn_valid(v) for v in cards)
    assert all(iban_valid(v) for v in ibans)
    assert all(aba_valid(v) for v in routing)


def test_detector_patterns_find_labelled_values() -> None:
    """Every regex hint matches only ground-truth values of its constraint's categories; every term hint occurs."""
    for name in NAMES:
        policy = load_policy(ROOT / "policies" / name)
        vocab = vocabulary_for(policy.vocabulary)
        docs = texts(name)
        corpus = "\n".join(docs.values()).casefold()
        by_doc = {d["id"]: d["spans"] for d in truth(name)["documents"]}
        for constraint in policy.constraints:
            categories = set(resolve_constraint(constraint, vocab).category_ids)
            for pattern in constraint.detect.patterns:
                matches = [(doc_id, m) for doc_id, text in docs.items() for m in re.finditer(pattern, text)]
                assert matches, f"{name}/{constraint.id}: pattern {pattern!r} matches nothing"
                for doc_id, m in matches:
                    inside = any(
                        s["start"] <= m.start() and m.end() <= s["end"] and s["category"] in categories for s in by_doc[doc_id]
                    )
                    assert inside, f"{name}/{constraint.id}: pattern {pattern!r} matched {m.group()!r} in {doc_id}, not a labelled {sorted(categories)} value"
            missing = [t for t in constraint.detect.terms if t.casefold() not in corpus]
            assert not missing, f"{name}/{constraint.id}: terms {missing} never occur in the corpus"


def test_generator_is_deterministic(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("generate_examples", EXAMPLES / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path, list(NAMES))
    for name in NAMES:
        committed = sorted(p.relative_to(EXAMPLES / name) for p in (EXAMPLES / name).rglob("*") if p.is_file())
        regenerated = sorted(p.relative_to(tmp_path / name) for p in (tmp_path / name).rglob("*") if p.is_file())
        assert committed == regenerated
        for rel in committed:
            assert (EXAMPLES / name / rel).read_bytes() == (tmp_path / name / rel).read_bytes(), f"{name}/{rel} differs"


@pytest.mark.parametrize("name", NAMES)
def test_ground_truth_offsets_hold_on_the_engine_ingested_text(name: str) -> None:
    """The corpus as compile reads it (policy_engine.bundle.corpus) is the text the offsets refer to."""
    from policy_engine.bundle.corpus import ingest

    policy = load_policy(ROOT / "policies" / name)
    report = ingest(policy.corpus, policy.root_dir, strict=True)
    entries = truth(name)["documents"]
    matched = set()
    for doc in report.documents:
        # Ids are relative to the corpus root: a file's path, or records.jsonl/<record id>.
        entry = next((e for e in entries if doc.doc_id in (e.get("path"), f"records.jsonl/{e['id']}")), None)
        assert entry is not None, doc.doc_id
        for span in entry["spans"]:
            assert doc.text[span["start"] : span["end"]] == span["value"], (doc.doc_id, span)
        matched.add(entry["id"])
    assert matched == {e["id"] for e in entries}


def test_load_repo_reads_all_three_policies_without_diagnostics() -> None:
    result = load_repo([ROOT / "policies"])
    assert result.diagnostics == []
    assert len(result.policies) == 3
