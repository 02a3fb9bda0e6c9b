"""A compiled bundle's stored parses are the parses spaCy gives, and requests are served from them (issue 29)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from policy_engine.bundle.manifest import file_sha256
from policy_engine.errors import EngineError
from policy_engine.nlp import pipeline as nlp_pipeline
from policy_engine.nlp.pipeline import NER, SYNTAX, parse, sentence_starts, use_stored_parses
from policy_engine.nlp.stored_parses import PARSES, StoredParses, compute_parses, write_parses

TEXTS = (
    "**Patient:** Ravi Menon  \n**MRN:** 4471120\n\nSeen by Dr. Lena Fischer at the Harbour Clinic on 03/02/2024.",
    "She reports that the inhaler helps. Follow-up in Leeds next month; her husband Tom will drive her.",
)


def _signature(doc) -> tuple:
    tokens = [(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, str(t.morph), t.ent_iob_, t.ent_type_, t.is_sent_start) for t in doc]
    return tokens, [(e.start, e.end, e.label_) for e in doc.ents], [(s.start, s.end) for s in doc.sents]


def _store(tmp_path: Path, texts: tuple[str, ...], model: str | None = None) -> StoredParses:
    parses, _ = compute_parses(texts)
    if model is not None:
        parses["model"] = model
    write_parses(tmp_path / PARSES, parses)
    return StoredParses(tmp_path / PARSES, file_sha256(tmp_path / PARSES))


@contextmanager
def _counted_parses() -> Iterator[list[str]]:
    """The texts the pipeline's ``pipe`` runs on while the block runs (the real pipe is put back after it)."""
    original, runs = nlp_pipeline.pipe, []

    def counting_pipe(texts, **kwargs):
        texts = list(texts)
        runs.extend(texts)
        return original(texts, **kwargs)

    nlp_pipeline.pipe = counting_pipe
    try:
        yield runs
    finally:
        nlp_pipeline.pipe = original


def test_a_stored_doc_is_the_parse_spacy_gives(tmp_path: Path) -> None:
    store = _store(tmp_path, TEXTS)
    nlp = nlp_pipeline.pipeline()
    prepare = ("ner", sentence_starts())
    for text in TEXTS:
        full = store.doc(nlp, tuple(nlp.pipe_names), None, text)
        ner = store.doc(nlp, NER, ("ner", "sentence_starts"), text)
        assert full is not None and ner is not None
        assert _signature(full) == _signature(next(nlp_pipeline.pipe([text])))
        assert _signature(ner) == _signature(next(nlp_pipeline.pipe([text], components=NER, prepare=prepare)))
        assert full.ents and ner.ents
    assert store.doc(nlp, tuple(nlp.pipe_names), None, "A text the bundle never held.") is None


@pytest.mark.parametrize("same_model", [True, False])
def test_parse_serves_a_registered_store_only_for_the_model_that_parsed(tmp_path: Path, same_model: bool) -> None:
    texts = tuple(f"{t} (store {same_model})" for t in TEXTS)  # texts no other test parsed in this process
    key = f"test-store-{same_model}"
    store = _store(tmp_path, texts, None if same_model else "en_another_model==1.0 spacy==0")
    use_stored_parses(key, store)
    try:
        with _counted_parses() as runs:
            full = parse(texts)
            syntax = parse(texts, components=SYNTAX)  # the leading components of the stored full run
            ner = parse(texts, components=NER, prepare=("ner", sentence_starts()))
    finally:
        nlp_pipeline.forget_stored_parses(key, store)
    assert (runs == []) is same_model, runs
    assert [_signature(d) for d in full] == [_signature(d) for d in nlp_pipeline.pipe(texts)]
    assert [_signature(d) for d in syntax] == [_signature(d) for d in nlp_pipeline.pipe(texts, components=SYNTAX)]
    assert [_signature(d) for d in ner] == [_signature(d) for d in nlp_pipeline.pipe(texts, components=NER, prepare=("ner", sentence_starts()))]
    full[0].set_ents([], default="outside")  # a caller's change never reaches the next caller
    assert [e.text for e in parse([texts[0]])[0].ents] == [e.text for e in next(nlp_pipeline.pipe([texts[0]])).ents] != []


def test_an_opened_bundle_protects_without_parsing_its_passages_again() -> None:
    from policy_engine.bundle.reader import Bundle
    from policy_engine.engine.runtime import Engine
    from tests.compile_support import compiled_fixture

    _, path, _ = compiled_fixture()
    assert (path / PARSES).is_file()
    stored = {n.chunk_id: n.text for n in Bundle.open(path).nodes}
    engine = Engine.open(path, audit=False)
    nlp_pipeline._PARSED.clear()  # the compile parsed the same texts in this process
    try:
        with _counted_parses() as runs:
            result = engine.protect("Which inhaler does Maria Lopez use for her asthma?")
    finally:
        engine.close()
    assert result.redactions and {c.chunk_id for c in result.chunks} & set(stored)  # it retrieved stored passages and redacted
    assert not set(runs) & set(stored.values()), "a passage the bundle stored parses of was parsed again"
    assert runs  # the question and the rewritten passages are still parsed


def test_parses_the_manifest_does_not_list_are_not_served(tmp_path: Path) -> None:
    """A parses file dropped into a bundle (not checked against a manifest digest at open) is ignored."""
    import json
    import shutil

    from policy_engine.bundle.reader import Bundle
    from tests.compile_support import compiled_fixture

    _, path, _ = compiled_fixture()
    assert Bundle.open(path).stored_parses() is not None
    copy = tmp_path / "bundle"
    shutil.copytree(path, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"][PARSES]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert Bundle.open(copy).stored_parses() is None


def test_parses_changed_after_the_bundle_opened_are_refused(tmp_path: Path) -> None:
    """The bytes are checked against the manifest's digest when they are read (first use), not only at open."""
    store = _store(tmp_path, TEXTS)
    parses, _ = compute_parses(TEXTS[:1])
    write_parses(tmp_path / PARSES, parses)  # swapped after the store was created from the manifest's digest
    with pytest.raises(EngineError, match="does not match the bundle manifest"):
        store.doc(nlp_pipeline.pipeline(), NER, ("ner", "sentence_starts"), TEXTS[0])


def test_compile_parses_each_node_once_and_a_recompile_reuses_the_stored_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted at the process's real spaCy pipeline: a compile runs the whole pipeline once per text (the knowledge
    graph reads the stored parse of a leaf); a recompile of the unchanged corpus parses nothing and writes the same
    ``parses.msgpack``; after one document changes, only its new texts are parsed and the file is byte for byte the
    one a compile into an empty directory writes."""
    from policy_engine.bundle.reader import Bundle, compile_bundle
    from tests.compile_support import copy_fixture

    nlp = nlp_pipeline.pipeline()
    real = nlp.pipe
    whole: list[str] = []  # texts the whole pipeline ran on
    seen: list[str] = []  # texts any run started on

    def counting(texts, **kwargs):
        texts = list(texts)
        seen.extend(t for t in texts if isinstance(t, str))
        if not kwargs.get("disable"):
            whole.extend(t if isinstance(t, str) else t.text for t in texts)
        return real(texts, **kwargs)

    monkeypatch.setattr(nlp, "pipe", counting)
    policy = copy_fixture(tmp_path / "policy")
    compile_bundle(policy, tmp_path / "a")
    nodes = {n.text for n in Bundle.open(tmp_path / "a").nodes}
    assert sorted(whole) == sorted(nodes)  # each node once, leaves included (no second parse for the knowledge graph)
    stored = (tmp_path / "a" / PARSES).read_bytes()

    seen.clear()
    again = compile_bundle(policy, tmp_path / "a")
    assert seen == [] and again.parsed_nodes == 0
    assert (tmp_path / "a" / PARSES).read_bytes() == stored

    note = policy.parent / "corpus" / "notes" / "visit-becker.md"
    note.write_text(note.read_text(encoding="utf-8").replace("routine check", "scheduled review"), encoding="utf-8")
    whole.clear()
    changed = compile_bundle(policy, tmp_path / "a")
    new_texts = {n.text for n in Bundle.open(tmp_path / "a").nodes} - nodes
    assert new_texts and sorted(whole) == sorted(new_texts) and changed.parsed_nodes == len(new_texts)
    compile_bundle(policy, tmp_path / "b")
    assert (tmp_path / "a" / PARSES).read_bytes() == (tmp_path / "b" / PARSES).read_bytes()


def test_closing_an_engine_unregisters_its_stored_parses() -> None:
    """An open engine serves its bundle's parses; once closed, the store is no longer registered (nor kept alive)."""
    from policy_engine.engine.runtime import Engine
    from tests.compile_support import compiled_fixture

    _, path, _ = compiled_fixture()
    key = str(path.resolve())
    engine = Engine.open(path, audit=False)
    assert engine.stored_parses is not None
    store = engine.stored_parses[1]
    assert nlp_pipeline._STORES.get(key) is store
    other = Engine.open(path, audit=False)  # the same bundle opened again replaces the registration under its key
    engine.close()
    assert nlp_pipeline._STORES.get(key) is not store and nlp_pipeline._STORES.get(key) is other.stored_parses[1]
    other.close()
    assert key not in nlp_pipeline._STORES


def test_closing_one_of_two_engines_on_a_bundle_keeps_the_other_served_from_stored_parses() -> None:
    """Two engines open on one bundle register their stores under one key; closing the later one leaves the earlier
    one's store registered, and its requests still parse no stored passage again."""
    from policy_engine.bundle.reader import Bundle
    from policy_engine.engine.runtime import Engine
    from tests.compile_support import compiled_fixture

    _, path, _ = compiled_fixture()
    key = str(path.resolve())
    stored = {n.text for n in Bundle.open(path).nodes}
    first = Engine.open(path, audit=False)
    second = Engine.open(path, audit=False)
    second.close()
    assert first.stored_parses is not None and nlp_pipeline._STORES.get(key) is first.stored_parses[1]
    nlp_pipeline._PARSED.clear()  # the compile parsed the same texts in this process
    try:
        with _counted_parses() as runs:
            result = first.protect("Which inhaler does Maria Lopez use for her asthma?")
    finally:
        first.close()
    assert result.redactions and runs
    assert not set(runs) & stored, "a passage the bundle stored parses of was parsed again"
    assert key not in nlp_pipeline._STORES


class RecordingStore:
    """A parse store holding nothing that records the digest each lookup hands it."""

    def __init__(self) -> None:
        self.digests: list[str | None] = []

    def doc(self, nlp, components, prepared, text, digest=None):
        self.digests.append(digest)
        return None


def test_a_lookup_hashes_each_text_once_for_every_registered_store() -> None:
    """:func:`parse` computes a text's digest once, before the run lock, and hands the same digest to every store."""
    first, second = RecordingStore(), RecordingStore()
    texts = ["A text parsed once for the digest test.", "Another text parsed once for the digest test."]
    use_stored_parses("test-digest-first", first)
    use_stored_parses("test-digest-second", second)
    try:
        parse(texts)
    finally:
        nlp_pipeline.forget_stored_parses("test-digest-first", first)
        nlp_pipeline.forget_stored_parses("test-digest-second", second)
    expected = [nlp_pipeline.text_digest(t) for t in texts]
    assert first.digests == second.digests == expected
    assert all(a is b for a, b in zip(first.digests, second.digests))  # the same string object: hashed once
    assert "test-digest-first" not in nlp_pipeline._STORES and "test-digest-second" not in nlp_pipeline._STORES
