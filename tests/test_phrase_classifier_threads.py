"""Concurrent callers of :func:`phrase_classifier.linear_scores` through the real embedder: the memory's lock is not
held while a caller embeds, a text is embedded once however many callers ask for it, and a failed embedding leaves
no caller waiting.

Each test wraps the shared embedder's ``embed`` in a gate that records the texts of each call and holds the first
call until a later event, so the order of events (not durations) shows who waited on whom."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from enforcers.output_guard import learned_qi
from policy_engine.nlp import phrase_classifier
from policy_engine.nlp.embedding import EmbeddingModelError, load_embedder
from policy_engine.nlp.phrase_classifier import EMBEDDING, linear_scores

#: Bound on any one wait: reached only when the code under test blocks where it must not.
PATIENCE = 30.0


class Caller(threading.Thread):
    """``linear_scores`` of ``texts`` under the QI phrase model on a thread of its own, keeping its answer or error."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__(daemon=True)
        self.texts = texts
        self.scores: dict[str, float] | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            self.scores = linear_scores(learned_qi.MODEL, self.texts)
        except Exception as error:  # noqa: BLE001 - the test reads it
            self.error = error


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """An empty memory, and the texts of each call the shared embedder receives (filled by :func:`gate`)."""
    monkeypatch.setattr(phrase_classifier, "_SCORE", {})
    monkeypatch.setattr(phrase_classifier, "_EMBEDDING", {})
    return []


def gate(
    monkeypatch: pytest.MonkeyPatch, calls: list[list[str]], first: Callable[[], None], later: Callable[[], None]
) -> None:
    """Route the shared embedder's calls through ``first`` (the first call, before it embeds) or ``later`` (every other
    call), recording each call's texts."""
    embedder = load_embedder(EMBEDDING)
    real = embedder.embed

    def embed(texts: Sequence[str]) -> np.ndarray:
        calls.append(list(texts))
        (first if len(calls) == 1 else later)()
        return real(texts)

    monkeypatch.setattr(embedder, "embed", embed)


def by_hand(texts: list[str]) -> dict[str, float]:
    vectors = np.asarray(load_embedder(EMBEDDING).embed(texts))
    return dict(zip(texts, (float(x) for x in vectors @ np.load(learned_qi.MODEL)["coef"].astype(np.float32))))


def test_a_caller_with_remembered_texts_finishes_while_another_is_embedding(
    calls: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    new = "a forklift driver in Omaha"
    expected = by_hand([new])
    remembered = linear_scores(learned_qi.MODEL, ["a night-shift nurse"])
    entered, second_done = threading.Event(), threading.Event()
    released_by_second: list[bool] = []

    def hold_until_the_second_caller_is_done() -> None:
        entered.set()
        released_by_second.append(second_done.wait(PATIENCE))

    gate(monkeypatch, calls, hold_until_the_second_caller_is_done, lambda: None)
    first = Caller([new])
    first.start()
    assert entered.wait(PATIENCE)
    assert linear_scores(learned_qi.MODEL, ["a night-shift nurse"]) == remembered
    second_done.set()
    first.join(PATIENCE)
    assert released_by_second == [True], "the remembered text waited for the other caller's embedding"
    assert first.scores is not None
    np.testing.assert_allclose(first.scores[new], expected[new], rtol=1e-5)


@pytest.mark.parametrize("first_fails", [False, True], ids=["first-stores", "first-fails"])
def test_a_text_another_caller_is_embedding_is_waited_for(
    calls: list[list[str]], monkeypatch: pytest.MonkeyPatch, first_fails: bool
) -> None:
    """The second caller embeds only its own new text while the first holds the shared one; it takes the first's
    score, or, where the first caller's embedding fails, embeds the shared text itself."""
    shared, own = "lives in Boise", "her second husband"
    expected = by_hand([shared, own])
    entered, second_embedding = threading.Event(), threading.Event()

    def hold_until_the_second_caller_embeds() -> None:
        entered.set()
        assert second_embedding.wait(PATIENCE)
        if first_fails:
            raise EmbeddingModelError("the encoder failed")

    gate(monkeypatch, calls, hold_until_the_second_caller_embeds, second_embedding.set)
    first, second = Caller([shared]), Caller([shared, own])
    first.start()
    assert entered.wait(PATIENCE)
    second.start()
    first.join(PATIENCE)
    second.join(PATIENCE)
    assert calls == ([[shared], [own], [shared]] if first_fails else [[shared], [own]])
    assert (isinstance(first.error, EmbeddingModelError) if first_fails else first.error is None), first.error
    assert second.error is None and second.scores is not None
    np.testing.assert_allclose([second.scores[shared], second.scores[own]], [expected[shared], expected[own]], rtol=1e-5)
    assert phrase_classifier._EMBEDDING == {}
