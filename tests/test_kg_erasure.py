"""kg_erasure on real spaCy parses (Eraser4RAG Figure 1, Sections 2, 4.1.3, 4.3)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

import enforcers.kg_erasure.mentions as mentions_module
from enforcers.kg_erasure.connections import (
    PROTECTED,
    build_graph,
    connected,
    minimum_cut,
)
from enforcers.kg_erasure.enforcer import KGErasureEnforcer
from enforcers.kg_erasure.eraser import Eraser
from enforcers.kg_erasure.mentions import ExtractionError, parse_texts
from policy_engine import load_policy
from policy_engine.detect.analyzer import Analyzer
from policy_engine.enforcement.base import EnforcementContext, Passage
from policy_engine.enforcement.registry import EngineParts, registered
from policy_engine.engine.runtime import Engine
from policy_engine.nlp.entities import normalize_entity
from policy_engine.policy.model import PrivateKnowledge

ROOT = Path(__file__).resolve().parents[1]
CLINIC_DOCS = [ROOT / "examples/clinic/docs/clinic-049.md", ROOT / "examples/clinic/docs/clinic-050.txt"]
FIGURE_1 = [
    ("doc1", "Jane Doe lives with Tom Reyes. She teaches music at a school in Ohio."),
    ("doc2", "Tom Reyes's home at 12 Elm Road is large, and he bought it in 2019."),
]


def _pronoun_targets(text: str, entities: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    (parsed,), _ = parse_texts([text], entities)
    return [(text[m.start : m.end], m.entities) for s in parsed.sentences for m in s.mentions if m.pronoun]


def test_pronouns_resolve_to_the_most_recent_compatible_person() -> None:
    text = "James Cook was a British explorer. He saw action in the Seven Years' War."
    assert _pronoun_targets(text, ["James Cook"]) == [("He", ("james cook",))]
    text = "Mary Stone met Mr. Paul Grant at the harbour. He gave her a map, and she thanked him."
    targets = {surface.lower(): ents for surface, ents in _pronoun_targets(text, ["Mary Stone", "Paul Grant"])}
    assert targets["he"] == ("paul grant",) and targets["him"] == ("paul grant",)
    assert targets["she"] == ("mary stone",) and targets["her"] == ("mary stone",)


def test_a_fact_stated_through_a_pronoun_is_erased_and_the_rest_kept() -> None:
    knowledge = PrivateKnowledge(private=[("James Cook", "fought_in", "Seven Years' War")])
    result = Eraser(knowledge).erase([("c", "James Cook was a British explorer. He saw action in the Seven Years' War.")])
    assert "Seven Years" not in result.texts[0] and "British explorer" in result.texts[0]
    assert [t.triple for t in result.section.triples_erased] == ["private:0"]


def test_figure_1_two_document_inference_is_cut_and_the_public_triple_kept() -> None:
    knowledge = PrivateKnowledge(private=[("Jane Doe", "lives_at", "12 Elm Road")], public=[("Jane Doe", "lives_with", "Tom Reyes")])
    eraser = Eraser(knowledge)
    before, _ = parse_texts([t for _, t in FIGURE_1], eraser.entities)
    assert connected(build_graph(before, eraser.public), "jane doe", "12 elm road"), "neither document states the fact, together they do"
    result = eraser.erase(FIGURE_1)
    after, _ = parse_texts(list(result.texts), eraser.entities)
    assert not connected(build_graph(after, eraser.public), "jane doe", "12 elm road")
    assert "12 Elm Road" not in " ".join(result.texts)
    assert "Jane Doe lives with Tom Reyes" in result.texts[0], "the protected public triple survives"
    (cut,) = result.section.connections_cut
    assert cut.triple == "private:0" and cut.chunk_ids == ["doc2"] and not cut.conflict
    assert "Jane" not in result.section.model_dump_json() and "Elm" not in result.section.model_dump_json()


def test_a_connection_through_protected_triples_only_is_a_conflict_the_policy_decides() -> None:
    docs = [("d1", "Jane Doe lives with Tom Reyes."), ("d2", "Tom Reyes owns the house at 12 Elm Road.")]
    public = [("Jane Doe", "lives_with", "Tom Reyes"), ("Tom Reyes", "owns", "12 Elm Road")]
    erased = Eraser(PrivateKnowledge(private=[("Jane Doe", "lives_at", "12 Elm Road")], public=public)).erase(docs)
    assert erased.section.connections_cut[0].conflict and erased.section.public_sacrificed
    withheld = Eraser(PrivateKnowledge(private=[("Jane Doe", "lives_at", "12 Elm Road")], public=public, on_conflict="withhold")).erase(docs)
    assert withheld.withheld and withheld.section.withheld and not withheld.section.public_sacrificed


def test_standalone_entity_is_removed_in_every_surface_form() -> None:
    knowledge = PrivateKnowledge(entities=["Antonio Jackson", "6158137041"])
    text = (
        "Antonio Jackson supervised the night shift. Mr. Jackson's messages were kept by HR. "
        "ANTONIO JACKSON later resigned, and Jackson moved away. The account 615-813-7041 was closed; 6158137041 is archived."
    )
    result = Eraser(knowledge).erase([("c", text)])
    out = result.texts[0]
    for form in ("Antonio", "Jackson", "JACKSON", "615-813-7041", "6158137041"):
        assert form not in out
    assert "night shift" in out and "resigned" in out
    counts = {e.triple: e.mentions for e in result.section.entities_removed}
    assert counts == {"private:0": 4, "private:1": 2}


def _random_graph(seed: int) -> nx.Graph:
    rng = random.Random(seed)
    g = nx.gnp_random_graph(9, 0.35, seed=seed)
    for u, v in g.edges():
        g[u][v]["capacity"] = rng.choice([1, 1, 2, 3])
    return nx.relabel_nodes(g, {n: f"e{n}" for n in g})


@pytest.mark.parametrize("seed", range(12))
def test_minimum_cut_matches_brute_force_and_networkx(seed: int) -> None:
    g = _random_graph(seed)
    if not nx.has_path(g, "e0", "e8"):
        pytest.skip("endpoints not connected in this sample")
    cut = minimum_cut(g, "e0", "e8")
    pruned = g.copy()
    pruned.remove_edges_from(cut.edges)
    assert not nx.has_path(pruned, "e0", "e8")
    assert cut.value == sum(g[u][v]["capacity"] for u, v in cut.edges) == nx.minimum_cut_value(g, "e0", "e8", capacity="capacity")
    edges = list(g.edges())
    best = min(
        sum(g[u][v]["capacity"] for u, v in subset)
        for k in range(len(edges) + 1)
        for subset in itertools.combinations(edges, k)
        if k <= 4 and not nx.has_path(nx.restricted_view(g, [], subset), "e0", "e8")
    ) if cut.value <= 4 else cut.value
    assert cut.value == best


def test_minimum_cut_avoids_protected_edges_when_it_can() -> None:
    g = nx.Graph()
    g.add_edge("h", "a", capacity=PROTECTED)
    g.add_edge("a", "t", capacity=3)
    g.add_edge("h", "b", capacity=1)
    g.add_edge("b", "t", capacity=PROTECTED)
    cut = minimum_cut(g, "h", "t")
    assert set(cut.edges) == {("a", "t"), ("h", "b")} and cut.value == 4 and not cut.conflict
    g["a"]["t"]["capacity"] = PROTECTED
    g["h"]["b"]["capacity"] = PROTECTED
    assert minimum_cut(g, "h", "t").conflict


class _Tree:
    def __init__(self, children: dict[str, list[str]], texts: dict[str, str]) -> None:
        self._children, self._texts = children, texts

    def children(self, node_id: str) -> list[str]:
        return self._children.get(node_id, [])

    def text(self, node_id: str) -> str:
        return self._texts[node_id]


def test_summary_is_resummarized_from_erased_children_or_withheld_without_its_tree() -> None:
    knowledge = PrivateKnowledge(private=[("Shannon Patel", "diagnosed_with", "HIV infection")])
    leaves = {
        "c1": "Shannon Patel was diagnosed with HIV infection in March. The clinic opened a new wing in 2020.",
        "c2": "The community nursing service visits patients at home every month.",
    }
    summary = ("summary:L1:0", "Shannon Patel was diagnosed with HIV infection. The nursing service visits patients at home.")
    tree = _Tree({"summary:L1:0": ["c1", "c2"]}, leaves)
    result = Eraser(knowledge, summaries=tree).erase([summary, ("c2", leaves["c2"])])
    assert "HIV" not in result.texts[0] and "nursing service visits patients" in result.texts[0]
    assert [(s.chunk_id, s.action) for s in result.section.summaries] == [("summary:L1:0", "resummarized")]
    blind = Eraser(knowledge).erase([summary])
    assert blind.withheld == {0} and blind.texts == ("",)
    assert [(s.chunk_id, s.action) for s in blind.section.summaries] == [("summary:L1:0", "withheld")]


def _broken_parse(texts, **_):
    raise MemoryError("parser crashed")


def test_extraction_failure_fails_closed(monkeypatch) -> None:
    monkeypatch.setattr(mentions_module, "parse", _broken_parse)
    with pytest.raises(ExtractionError):
        Eraser(PrivateKnowledge(entities=["Antonio Jackson"])).erase([("c", "Antonio Jackson left.")])
    policy = _clinic_policy()
    engine = Engine.for_policy(policy, audit=False)
    result = engine.protect_passages([(p.name, p.read_text()) for p in CLINIC_DOCS])
    assert result.outcome.value == "denied" and result.context == ""
    assert "kg_erasure" in " ".join(result.notes)


def _clinic_policy():
    return load_policy(ROOT / "policies/clinic")


def test_engine_runs_kg_erasure_before_redaction_on_the_clinic_example() -> None:
    policy = _clinic_policy()
    assert list(policy.enforcement.order).index("kg_erasure") < list(policy.enforcement.order).index("redaction")
    engine = Engine.for_policy(policy, audit=False)
    result = engine.protect_passages([(p.name, p.read_text()) for p in CLINIC_DOCS])
    assert result.outcome.value == "redacted" and "Ochoa" not in result.context
    assert any(n.startswith("kg_erasure: ") for n in result.notes)
    assert any(name == "kg_erasure" for name, _ in [(e.name, e.version) for e in result.decision.enforcers])


def test_contract_without_private_knowledge() -> None:
    policy = load_policy(ROOT / "tests/fixtures/clean_policy")
    policy = policy.model_copy(update={"private_knowledge": PrivateKnowledge()})
    assert registered()["kg_erasure"] is KGErasureEnforcer
    assert not KGErasureEnforcer.has_work(policy)
    enforcer = KGErasureEnforcer.from_parts(EngineParts(policy, detector=Analyzer(policy)))
    context = EnforcementContext(passages=(Passage.of("c", "Jane Doe lives at 12 Elm Road."),), constraints=())
    assert enforcer.apply(context) is context


def test_erase_cli_prints_rewrite_and_table_without_values() -> None:
    from click_cli import cli

    result = CliRunner().invoke(cli, ["erase", str(ROOT / "policies/clinic"), *map(str, CLINIC_DOCS)], obj={})
    assert result.exit_code == 0, result.output
    assert "340 Ochoa Pine" not in result.output and "entity_removed" in result.output
    table = result.output.split("erasures (")[1]
    assert "Shannon" not in table and "private:" in table
    assert normalize_entity("Ochoa") not in result.output.lower()


class _SentencePerLine:
    """A paraphraser that only re-flows text (one sentence per line): its output must pass re-extraction."""

    def paraphrase(self, text: str, constraints) -> str:
        return text.replace(". ", ".\n")


def test_model_paraphrase_is_kept_only_when_re_extraction_accepts_it(tmp_path) -> None:
    from tiny_lm import build_tiny_model

    from policy_engine.llm.generation import ModelParaphraser
    from policy_engine.llm.runtime import load_model

    knowledge = PrivateKnowledge(private=[("Jane Doe", "lives_at", "12 Elm Road")], public=[("Jane Doe", "lives_with", "Tom Reyes")])
    context = EnforcementContext(passages=tuple(Passage.of(cid, text) for cid, text in FIGURE_1), constraints=())
    deterministic = KGErasureEnforcer(knowledge).apply(context)
    junk = KGErasureEnforcer(knowledge, paraphraser=ModelParaphraser(load_model(build_tiny_model(tmp_path)), max_new_tokens=8)).apply(context)
    assert [p.text for p in junk.passages] == [p.text for p in deterministic.passages]
    assert any("rejected by re-extraction" in n for n in junk.notes)
    reflowed = KGErasureEnforcer(knowledge, paraphraser=_SentencePerLine()).apply(context)
    assert any("verified by re-extraction" in n for n in reflowed.notes)
    assert "12 Elm Road" not in " ".join(p.text for p in reflowed.passages)


def test_erase_cli_with_redact_prints_no_protected_value() -> None:
    from click_cli import cli

    files = [str(ROOT / "examples/clinic/docs/clinic-049.md"), str(ROOT / "examples/clinic/docs/clinic-050.txt")]
    plain = CliRunner().invoke(cli, ["erase", str(ROOT / "policies/clinic"), *files], obj={})
    redacted = CliRunner().invoke(cli, ["erase", str(ROOT / "policies/clinic"), *files, "--redact"], obj={})
    assert plain.exit_code == 0 and redacted.exit_code == 0, redacted.output
    assert "(312) 555-0146" in plain.output  # erasure alone leaves what redaction would hide (the help says so)
    for value in ("538-75-4177", "Shannon Patel", "9595938", "05/30/1977", "(312) 555-0146"):
        assert value not in redacted.output
    assert "entity_removed" in redacted.output.split("erasures (")[1]


def test_erase_cli_with_redact_reads_files_under_a_personal_path(tmp_path) -> None:
    """The engine shows ids redacted, and a path may hold its owner's name ("/home/dana/..."): the files are still
    matched to what the engine returns, in order."""
    from click_cli import cli

    home = tmp_path / "dana" / "records"
    home.mkdir(parents=True)
    files = []
    for name in ("clinic-049.md", "clinic-050.txt"):
        (home / name).write_text((ROOT / "examples/clinic/docs" / name).read_text(encoding="utf-8"), encoding="utf-8")
        files.append(str(home / name))
    redacted = CliRunner().invoke(cli, ["erase", str(ROOT / "policies/clinic"), *files, "--redact"], obj={})
    assert redacted.exit_code == 0, redacted.output
    assert "538-75-4177" not in redacted.output and "entity_removed" in redacted.output
