"""LangChain and LlamaIndex adapters over the real engine (in process) and the real service, on the compiled fixture bundle.

The frameworks are the real ``langchain-core`` and ``llama-index-core``; the
LangChain retriever under test is an ``InMemoryVectorStore`` embedding with
the bundle's own embedder.  Each test skips cleanly when its framework is not
installed (the ``[langchain]`` / ``[llamaindex]`` extras).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from audit.sources import iter_decisions
from policy_engine.engine.runtime import Engine
from policy_engine.integrations.protector import ContextDenied, EngineProtector, Protector, ServiceProtector
from tests.compile_support import compiled_fixture

RAW = ("Maria Lopez", "555-123-4567", "asthma")
RECORD = "Maria Lopez was treated for asthma; her phone is 555-123-4567."
HANDBOOK = "The clinic opens at nine and closes at five on weekdays."


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    opened = Engine.open(compiled_fixture()[1])
    yield opened
    opened.close()


def _recorded(engine: Engine) -> dict[str, object]:
    log = engine.policy.resolve_path(engine.policy.audit.log)
    return {record.decision_id: record for _, record in iter_decisions([log])} if log.exists() else {}


def _assert_protected(texts: Sequence[str]) -> None:
    assert [v for t in texts for v in RAW if v in t] == []


class FaultyDetector:
    """The engine's real detector with a fault injected: it raises on every call (the batch must be denied)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[object]) -> list[list[object]]:
        raise RuntimeError(f"detector crashed reading {texts[0]!r}")


def test_langchain_transformer_and_retriever_protect_documents(engine: Engine) -> None:
    langchain = pytest.importorskip("langchain_core", reason="pip install 'policy-engine[langchain]'")
    assert langchain
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    from policy_engine.integrations.langchain import PolicyEngineTransformer, ProtectedRetriever

    protector = EngineProtector(engine, principal="nurse-7", purpose="care")
    before = _recorded(engine)
    documents = [Document(page_content=RECORD, id="record-1", metadata={"source": "notes"}), Document(page_content=HANDBOOK, id="handbook-1")]
    transformed = PolicyEngineTransformer(protector).transform_documents(documents, query="What is Maria treated for?")
    assert [d.id for d in transformed] == ["record-1", "handbook-1"] and transformed[1].page_content == HANDBOOK
    _assert_protected([d.page_content for d in transformed])
    assert transformed[0].metadata["source"] == "notes" and transformed[0].metadata["policy_engine"]["outcome"] == "redacted"

    class BundleEmbeddings(Embeddings):
        """The bundle's own sentence embedder (all-MiniLM-L6-v2) as LangChain embeddings."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [engine.retriever.embed_query(t).tolist() for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return engine.retriever.embed_query(text).tolist()

    store = InMemoryVectorStore(BundleEmbeddings())
    store.add_documents(documents)
    retriever = ProtectedRetriever(retriever=store.as_retriever(search_kwargs={"k": 2}), protector=protector)
    found = retriever.invoke("Which patient has asthma?")
    assert {d.id for d in found} == {"record-1", "handbook-1"}
    _assert_protected([d.page_content for d in found])
    new = {k: v for k, v in _recorded(engine).items() if k not in before}
    assert {d.metadata["policy_engine"]["decision_id"] for d in [*transformed, *found]} == set(new), "one decision record per batch"
    assert {r.principal for r in new.values()} == {"nurse-7"}


def test_llamaindex_postprocessor_protects_nodes(engine: Engine) -> None:
    pytest.importorskip("llama_index.core", reason="pip install 'policy-engine[llamaindex]'")
    from llama_index.core.schema import NodeWithScore, TextNode

    from policy_engine.integrations.llamaindex import PolicyEngineNodePostprocessor

    postprocessor = PolicyEngineNodePostprocessor(protector=EngineProtector(engine, principal="nurse-7", purpose="care"))
    nodes = [NodeWithScore(node=TextNode(text=RECORD, id_="record-1"), score=0.9), NodeWithScore(node=TextNode(text=HANDBOOK, id_="handbook-1"), score=0.4)]
    out = postprocessor.postprocess_nodes(nodes, query_str="Who has asthma?")
    assert [(n.node.node_id, n.score) for n in out] == [("record-1", 0.9), ("handbook-1", 0.4)]
    _assert_protected([n.node.get_content() for n in out])
    assert nodes[0].node.get_content() == RECORD, "the caller's nodes are not modified"
    assert out[0].node.metadata["policy_engine"]["decision_id"] in _recorded(engine)


@pytest.mark.parametrize("framework", ["langchain_core", "llama_index.core"])
def test_a_denied_batch_releases_nothing(engine: Engine, framework: str) -> None:
    """Fail closed: a detector failure denies the batch and the adapter raises instead of passing raw text on."""
    pytest.importorskip(framework)
    broken = Engine(engine.policy, detector=FaultyDetector(engine.detector))  # type: ignore[arg-type]
    protector = EngineProtector(broken)
    with pytest.raises(ContextDenied) as denied:
        if framework == "langchain_core":
            from langchain_core.documents import Document

            from policy_engine.integrations.langchain import PolicyEngineTransformer

            PolicyEngineTransformer(protector).transform_documents([Document(page_content=RECORD, id="r")])
        else:
            from llama_index.core.schema import NodeWithScore, TextNode

            from policy_engine.integrations.llamaindex import PolicyEngineNodePostprocessor

            PolicyEngineNodePostprocessor(protector=protector).postprocess_nodes([NodeWithScore(node=TextNode(text=RECORD, id_="r"))])
    _assert_protected([str(denied.value)])


def test_the_adapters_work_through_the_service(tmp_path: Path) -> None:
    """The same LangChain transformer over ``policy-engine serve`` (ServiceProtector): the key names the principal."""
    pytest.importorskip("langchain_core")
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient
    from langchain_core.documents import Document

    from policy_engine.integrations.langchain import PolicyEngineTransformer
    from policy_engine.service.app import create_app
    from policy_engine.service.bundles import ServedBundles
    from policy_engine.service.config import ApiKey, ServerConfig, hash_key

    served = ServedBundles([compiled_fixture()[1]])
    config = ServerConfig(keys=(ApiKey(principal="rag-app", sha256=hash_key("app-key"), purposes=("care",)),))
    with TestClient(create_app(served, config)) as client:
        assert served.wait(300)
        protector: Protector = ServiceProtector("http://testserver", "app-key", client=client)
        out = PolicyEngineTransformer(protector).transform_documents([Document(page_content=RECORD, id="r"), Document(page_content=HANDBOOK, id="h")])
        refused = ServiceProtector("http://testserver", "wrong-key", client=client)
        with pytest.raises(Exception, match="401"):
            refused.protect([("r", RECORD)])
        decision = out[0].metadata["policy_engine"]["decision_id"]
        engine = served.get(None).engine
        assert _recorded(engine)[decision].principal == "rag-app"  # type: ignore[attr-defined]
    assert [d.id for d in out] == ["r", "h"] and out[1].page_content == HANDBOOK
    _assert_protected([d.page_content for d in out])


@pytest.mark.parametrize(("framework", "opening"), [("langchain_core", "from langchain_core"), ("llama_index.core", "from llama_index")])
def test_the_readme_examples_run_as_written(framework: str, opening: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's integration blocks, run verbatim on the compiled fixture bundle: they print protected text only."""
    pytest.importorskip(framework, reason=f"the {framework} extra is not installed")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    (block,) = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:] if b.startswith(opening)]
    exec(compile(block.replace('"bundles/clinic"', repr(str(compiled_fixture()[1]))), "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "The clinic opens at nine" in printed, printed
    assert not any(value in printed for value in RAW), printed


def test_documents_whose_ids_hold_a_name_come_back_under_their_own_ids(engine: Engine) -> None:
    """The engine shows ids redacted (a file name may hold a patient's name); the adapter hands each document back under
    the id its caller gave it, matched by position, never by the redacted form."""
    pytest.importorskip("langchain_core", reason="pip install 'policy-engine[langchain]'")
    from langchain_core.documents import Document

    from policy_engine.integrations.langchain import PolicyEngineTransformer

    ids = ["notes/Maria-Lopez-2024.md", "notes/Maria-Lopez-2025.md"]
    documents = [Document(page_content=RECORD, id=ids[0]), Document(page_content=HANDBOOK, id=ids[1])]
    transformed = PolicyEngineTransformer(EngineProtector(engine)).transform_documents(documents)
    assert [d.id for d in transformed] == ids and transformed[1].page_content == HANDBOOK
    _assert_protected([d.page_content for d in transformed])
