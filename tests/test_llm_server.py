"""Plain ``ask`` answered by an OpenAI-compatible chat server on loopback (issue 35, item 3).

The server is a real HTTP server (FastAPI under uvicorn, started by the test
on 127.0.0.1): it stands in for llama.cpp's or vLLM's server.  Its replies
are fixed per question, so the test checks what the engine sends and what it
does with the reply (the grounding check still runs on it).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from policy_engine.engine.runtime import Engine
from policy_engine.llm.generation import Decoding, checked_completion, raw_completion
from policy_engine.llm.prompts import answer_prompt
from policy_engine.llm.runtime import ModelNotAvailable
from policy_engine.llm.server import ALLOW_REMOTE_ENV, ChatServer, ServerNotAllowed, open_server
from policy_engine.policy.loader import load_policy

POLICY = Path(__file__).parent / "fixtures" / "clean_policy"
NOTE = "Maria Lopez was started on lisinopril once daily for high blood pressure. She returns in four weeks."
QUESTION = "Which medication was started for high blood pressure?"
CUT_AT = 7


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions server on loopback; yields its base URL and the request bodies it received."""
    received: list[dict[str, Any]] = []
    app = FastAPI()

    @app.post("/v1/chat/completions")
    def chat(body: dict[str, Any]) -> dict[str, Any]:
        received.append(body)
        content = "She was started on lisinopril once daily. It is made by Pfizer in Ireland."
        finish = "stop"
        if body["max_tokens"] == CUT_AT:  # a reply the length limit ended inside its second sentence
            content, finish = "She was started on lisinopril once daily.\n\nShe returns. She was also", "length"
        elif body["max_tokens"] == CUT_AT + 1:
            content, finish = "She was started on lisinopril once daily. She returns in", "length"
        return {"id": "c1", "object": "chat.completion", "model": body["model"], "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]}

    port = _free_port()
    runner = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not runner.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/v1", received
    runner.should_exit = True
    thread.join(10)


def test_plain_ask_is_answered_by_the_server_and_still_grounded(server: tuple[str, list[dict[str, Any]]]) -> None:
    base, received = server
    engine = Engine.for_policy(load_policy(POLICY), audit=False, answer_model=f"{base}#local-7b")
    try:
        asked = engine.ask_passages(QUESTION, [("note#1", NOTE)])
    finally:
        engine.close()
    body = received[-1]
    assert body["model"] == "local-7b" and body["temperature"] == 0.0 and body["max_tokens"] > 0
    sent = " ".join(m["content"] for m in body["messages"])
    sanitized = asked.protected.chunks[0].text
    assert "Maria Lopez" not in sanitized and sanitized in sent  # the server sees the sanitized context only
    assert asked.answer == "She was started on lisinopril once daily."  # the invented maker and country are cut
    assert asked.answered_by == "answer-stage enforcers"


def test_a_server_reply_goes_through_the_same_stop_cut_and_length_rule_as_the_local_model(server: tuple[str, list[dict[str, Any]]]) -> None:
    base, received = server
    chat = open_server(f"{base}#local-7b")
    prompt = answer_prompt(QUESTION, _context())
    # the length limit ended the reply mid-sentence: the cut sentence is dropped
    assert checked_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT + 1)).text == "She was started on lisinopril once daily."
    assert raw_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT + 1)) == ("She was started on lisinopril once daily. She returns in", True)
    # a stop string came first: what followed it, the cut sentence included, is gone, and nothing more is dropped
    assert raw_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT)) == ("She was started on lisinopril once daily.", False)
    assert received[-1]["stop"] == list(Decoding().stop_strings)  # the server stops there itself, not at the length limit
    raw_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT, stop_strings=("\n\n", ".", "!", "?", ";")))
    assert received[-1]["stop"] == ["\n\n", ".", "!", "?"]  # the API takes four; all five still cut the reply here
    raw_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT, stop_strings=()))
    assert "stop" not in received[-1]
    assert checked_completion(chat, prompt, Decoding(max_new_tokens=CUT_AT)).text == "She was started on lisinopril once daily."


def test_a_server_that_is_not_running_is_named_in_the_error() -> None:
    port = _free_port()
    with pytest.raises(ModelNotAvailable, match=rf"127\.0\.0\.1:{port}/v1/chat/completions is unreachable"):
        open_server(f"http://127.0.0.1:{port}/v1").complete(answer_prompt(QUESTION, _context()), 16)


def _context() -> Any:
    from policy_engine.llm.prompts import SanitizedContext

    return SanitizedContext("She was started on lisinopril.")


def test_only_loopback_unless_the_operator_allows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert open_server("http://localhost:8080/v1#m") == ChatServer("http://localhost:8080/v1", "m")
    assert open_server("http://[::1]:8080/v1").model == "default"
    monkeypatch.delenv(ALLOW_REMOTE_ENV, raising=False)
    with pytest.raises(ServerNotAllowed, match=ALLOW_REMOTE_ENV):
        open_server("http://10.0.0.5:8000/v1")
    with pytest.raises(ServerNotAllowed, match="http\\(s\\) URL"):
        open_server("ftp://127.0.0.1/v1")
    monkeypatch.setenv(ALLOW_REMOTE_ENV, "1")
    assert open_server("https://gpu.example.org/v1#big").endpoint == "https://gpu.example.org/v1/chat/completions"


def test_a_proxy_in_the_environment_never_carries_the_context(server: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch) -> None:
    """``http_proxy`` names a port nobody listens on: the request still reaches the loopback server directly."""
    base, received = server
    for variable in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.setenv(variable, f"http://127.0.0.1:{_free_port()}")
    for variable in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    before = len(received)
    open_server(f"{base}#local-7b").complete(answer_prompt(QUESTION, _context()), 16)
    assert len(received) == before + 1


def test_a_server_url_carries_no_credentials() -> None:
    with pytest.raises(ServerNotAllowed, match="no user or password"):
        open_server("http://admin:s3cret@127.0.0.1:8080/v1")
