"""One spaCy pipeline per process and one sentence splitter (issue #29).

The source checks read the runtime packages (policy_engine, enforcers, audit):
exactly one ``spacy.load`` call site, in :mod:`policy_engine.nlp.pipeline`; no
``spacy.blank``; no module-level regex that splits sentences outside
``policy_engine/nlp/``.  The behaviour checks run the real pipeline.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from policy_engine.nlp.pipeline import parse
from policy_engine.nlp.sentences import sentence_spans, sentences

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ("policy_engine", "enforcers", "audit")
PROVIDER = Path("policy_engine/nlp/pipeline.py")


def _sources() -> list[tuple[Path, ast.Module]]:
    out = []
    for package in RUNTIME:
        for path in sorted((ROOT / package).rglob("*.py")):
            out.append((path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))))
    return out


def _calls(tree: ast.Module, attribute: str) -> list[int]:
    """Lines of ``spacy.<attribute>(...)`` calls."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "spacy"
    ]


def test_exactly_one_spacy_load_call_site_and_it_is_the_provider() -> None:
    sites = [(path, line) for path, tree in _sources() for line in _calls(tree, "load")]
    assert len(sites) == 1 and sites[0][0] == PROVIDER, sites


def test_no_blank_pipeline_outside_the_provider() -> None:
    sites = [(path, line) for path, tree in _sources() for line in _calls(tree, "blank") if path != PROVIDER]
    assert sites == []


_PROSE = "The follow-up is fine. She went home. She called.\nDone."
#: Where a sentence of :data:`_PROSE` ends: after its last mark, or after the space or line break that follows.
_ENDS = {_PROSE.index(word) + len(word) + gap for word in ("fine.", "home.", "called.") for gap in (0, 1)} | {len(_PROSE)}


def _splits_sentences(pattern: str) -> bool:
    """Whether ``pattern`` finds sentences or their ends in plain prose: three or more matches, every one ending at a sentence end."""
    try:
        ends = [m.end() for m in re.finditer(pattern, _PROSE) if m.group()]
    except re.error:
        return False
    return len(ends) >= 3 and set(ends) <= _ENDS


def test_no_module_level_sentence_splitting_regex_outside_nlp() -> None:
    offenders = []
    for path, tree in _sources():
        if path.parts[:2] == ("policy_engine", "nlp"):
            continue
        for node in tree.body:
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            call = node.value
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "compile" and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                continue
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any("SENTENCE" in name for name in names) or _splits_sentences(call.args[0].value):
                offenders.append((str(path), names))
    assert offenders == []


def test_the_retired_splitters_are_recognized_by_the_check() -> None:
    for pattern in (r"[^.!?;\n]+(?:[.!?;]+|\n+|$)", r"[^.!?;\n]+[.!?;]?", r"(?<=[.!?])(?<!\b\d\.)\s+|\n+"):
        assert _splits_sentences(pattern), pattern


def test_two_uses_share_one_loaded_pipeline() -> None:
    from policy_engine.bundle.knowledge_graph import extract_chunks, load_spacy
    from policy_engine.detect.lexical import is_common_word
    from policy_engine.detect.ner import shared_recognizer
    from policy_engine.nlp.pipeline import pipeline
    from policy_engine.nlp.syntax import parse_many

    persons = [e for e in shared_recognizer().entities("Maria Gonzalez met Thomas Whitfield in Chicago.") if e.label == "PERSON"]
    parsed = parse_many(["The nurse called the clinic."])[0]
    extracted, parsed_count = extract_chunks(["Maria Gonzalez works at Acme Corp in Chicago."], workers=1)
    assert len(persons) == 2 and parsed[1].dep_ == "nsubj" and parsed_count == 1 and extracted[0].entities
    assert is_common_word("Allergies")
    assert not parsed.has_annotation("ENT_IOB")  # the syntax use runs no NER on the shared pipeline
    assert id(shared_recognizer()._nlp) == id(load_spacy()) == id(pipeline())


def test_options_of_the_one_splitter() -> None:
    text = "See Dr. Smith e.g. today. It costs 3.5 dollars... really! Pick 1. flu 2. cold"
    assert sentences(text) == ["See Dr. Smith e.g. today.", "It costs 3.5 dollars... really!", "Pick 1.", "flu 2.", "cold"]
    assert sentences(text, option_numbers=True)[-1] == "Pick 1. flu 2. cold"
    assert sentences("a. b; c\nd", ends=".;", spaced=False, lines="break", abbreviations=False) == ["a.", "b;", "c", "d"]
    assert sentences("one\ntwo\n\nthree", lines="paragraph") == ["one\ntwo", "three"]
    assert sentence_spans("  Hi there.  Bye. ") == [(2, 11), (13, 17)]


def test_each_text_is_parsed_once_and_callers_get_private_copies() -> None:
    from policy_engine.nlp import pipeline as nlp_pipeline
    from policy_engine.nlp.pipeline import SYNTAX, parse

    text = "Dr. Amara Osei saw the patient in Leeds on Tuesday. She prescribed metformin."
    full = parse([text])[0]
    assert [e.text for e in full.ents]
    runs: list[int] = []
    original = nlp_pipeline.pipe

    def counting_pipe(texts, **kwargs):
        texts = list(texts)
        runs.append(len(texts))
        return original(texts, **kwargs)

    nlp_pipeline.pipe = counting_pipe
    try:
        syntax = parse([text], components=SYNTAX)[0]  # the leading part of the full run: served from it
        again = parse([text])[0]
    finally:
        nlp_pipeline.pipe = original
    assert runs == []
    fresh = list(original([text], components=SYNTAX))[0]
    assert [(t.text, t.tag_, t.dep_, t.head.i, t.lemma_) for t in syntax] == [(t.text, t.tag_, t.dep_, t.head.i, t.lemma_) for t in fresh]
    assert not syntax.has_annotation("ENT_IOB") and list(syntax.ents) == []
    assert [e.text for e in again.ents] == [e.text for e in full.ents]
    again.set_ents([], default="outside")  # a caller's change never reaches the next caller
    assert [e.text for e in parse([text])[0].ents] == [e.text for e in full.ents]


def test_the_tokenizer_splits_full_width_punctuation_and_a_change_of_script() -> None:
    """A CJK run glued to a name ("翻译成英文：Zhang") is two tokens and a full-width stop is one of its own, so no entity
    swallows the request before it; English tokenizes as spaCy's rules say."""
    from policy_engine.nlp.pipeline import pipeline

    nlp = pipeline()
    assert [t.text for t in nlp.tokenizer("翻译成英文：Zhang Wei,the new chairman")] == ["翻译成英文", "：", "Zhang", "Wei", ",", "the", "new", "chairman"]
    assert [t.text for t in nlp.tokenizer("请把这段话翻译成中文。Thanks")] == ["请把这段话翻译成中文", "。", "Thanks"]
    assert [t.text for t in nlp.tokenizer("电话13800138000谢谢")] == ["电话", "13800138000", "谢谢"]
    assert [t.text for t in nlp.tokenizer("I paid $5,500 (approx.) on 3/4/2021, e-mail a.b@c.com")] == [
        "I", "paid", "$", "5,500", "(", "approx", ".", ")", "on", "3/4/2021", ",", "e", "-", "mail", "a.b@c.com"]
    names = [e.text for e in nlp("翻译成英文：Zhang Wei,the new chairman of Harbor Bank,said rates will stay low.").ents if e.label_ == "PERSON"]
    assert names and all("翻译" not in n for n in names), names


def test_a_tokenizer_rule_a_model_lacks_becomes_the_added_rule_alone() -> None:
    """A model directory with no prefix rule still loads: the extension is then the whole rule."""
    import re as regex

    from policy_engine.nlp.pipeline import _extended

    assert _extended(None, "^：").search("：Zhang") is not None
    extended = _extended(regex.compile(r"^\(").search, "^：")
    assert extended.search("(a") is not None and extended.search("：a") is not None and extended.search("a") is None


def test_a_place_the_small_model_calls_a_person_is_a_place_after_a_preposition_of_place() -> None:
    """Own sentences: the small model labels "Rotterdam", "Yorkshire" and "Hull" PERSON; after "out of", "in" and
    "on her own in" the contextual name model reads them as no names, so every enforcer reads a place. A name after
    "at" that the name model reads as a name stays a person ("angry at Tom Hull")."""
    texts = [
        "I just started driving trucks out of Rotterdam and earn about 2,000 a month.",
        "Claimants over 50 in Yorkshire were paid first.",
        "My nan still lives on her own in Hull.",
        "She was angry at Tom Hull after the meeting.",
    ]
    labels = [{e.text: e.label_ for e in doc.ents} for doc in parse(texts)]
    assert labels[0].get("Rotterdam") == "GPE" and labels[1].get("Yorkshire") == "GPE", labels
    assert labels[2].get("Hull") in ("GPE", "LOC"), labels
    assert labels[3].get("Tom Hull") == "PERSON", labels
