"""An OpenAI-compatible chat server on this machine as the answer model (llama.cpp's ``llama-server``, vLLM, …).

Teams with a GPU run a larger instruction model behind a local server; the
engine then sends each completion it would run in process (answers,
paraphrases, query rewrites) to ``POST {base}/chat/completions`` instead.

Settings (one string, accepted wherever a model path is: ``--model``,
``model.path`` of a policy):

* the **base URL**, ``http://127.0.0.1:8080/v1`` (``/chat/completions`` is appended);
* the **model name** the server serves, as the URL's fragment:
  ``http://127.0.0.1:8080/v1#qwen2.5-7b-instruct`` (servers that serve one
  model ignore it; without a fragment ``default`` is sent).

The server must be on the loopback interface (``127.0.0.0/8``, ``::1``,
``localhost``): the prompts carry the sanitized context, which must not
leave the machine by accident.  A server elsewhere is refused unless the
operator sets ``POLICY_ENGINE_ALLOW_REMOTE_MODEL=1`` (an environment
setting, not a policy one, so a policy file cannot send context off the
machine).  An unreachable server raises
:class:`~policy_engine.llm.runtime.ModelNotAvailable` naming the URL.

Decoding is greedy (``temperature`` 0) with the same new-token limits as the
in-process model; the output passes the same degeneration check
(:func:`policy_engine.llm.generation.complete`).  Differentially private
decoding needs the model's token distributions and always runs in process
(``dp_decoding`` loads the local model itself).
"""

from __future__ import annotations

import ipaddress
import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from policy_engine.errors import PolicyEngineError
from policy_engine.llm.prompts import Prompt
from policy_engine.llm.runtime import ModelNotAvailable

#: The environment setting that allows a server off the loopback interface.
ALLOW_REMOTE_ENV = "POLICY_ENGINE_ALLOW_REMOTE_MODEL"
#: Seconds one completion may take before the server counts as unreachable.
TIMEOUT_S = 120.0


class ServerNotAllowed(PolicyEngineError, ValueError):
    """The answer server's URL is not on the loopback interface and remote servers are not allowed."""


def is_server_url(spec: str) -> bool:
    """Whether a model setting names a server (``http://`` or ``https://``) rather than a local path."""
    return spec.startswith(("http://", "https://"))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False



#: The most stop strings the OpenAI chat-completions API accepts in one request.
MAX_STOP_STRINGS = 4

#: Requests go straight to the server: an ``http_proxy`` in the environment must not carry the sanitized context off
#: the loopback interface that :func:`open_server` checked.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))

@dataclass(frozen=True)
class ChatServer:
    """An OpenAI-compatible ``/chat/completions`` endpoint; :attr:`source` is how answers name it."""

    base_url: str
    model: str = "default"
    timeout_s: float = TIMEOUT_S

    @property
    def source(self) -> str:
        return f"{self.base_url}#{self.model}"

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, prompt: Prompt, max_new_tokens: int, stop: Sequence[str] = ()) -> tuple[str, bool]:
        """The server's greedy reply to ``prompt`` (at most ``max_new_tokens``, ended at the first of ``stop``: the API
        takes up to :data:`MAX_STOP_STRINGS`, the caller still cuts at all of them), stripped, and whether the length
        limit ended it (``finish_reason`` "length"); raises when unreachable."""
        body: dict[str, Any] = {"model": self.model, "messages": list(prompt.messages), "max_tokens": max_new_tokens, "temperature": 0.0, "stream": False}
        if stop:
            body["stop"] = list(stop)[:MAX_STOP_STRINGS]
        request = urllib.request.Request(self.endpoint, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
        try:
            with _DIRECT.open(request, timeout=self.timeout_s) as response:
                reply = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:  # the body may echo the prompt: only the status is reported
            raise ModelNotAvailable(f"answer server {self.endpoint} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelNotAvailable(f"answer server {self.endpoint} is unreachable ({reason}); start it or use a local model (--model default)") from None
        try:
            choice = reply["choices"][0]
            return str(choice["message"]["content"] or "").strip(), choice.get("finish_reason") == "length"
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelNotAvailable(f"answer server {self.endpoint} sent no chat completion (no choices[0].message.content in its reply)") from None


def open_server(spec: str) -> ChatServer:
    """The :class:`ChatServer` a setting names (``http://HOST:PORT/v1#MODEL``); refuses a server off loopback unless allowed."""
    parts = urlsplit(spec)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServerNotAllowed("an answer server is an http(s) URL such as http://127.0.0.1:8080/v1")
    if parts.username or parts.password:  # the URL is named in answer records and errors: no credentials in it
        raise ServerNotAllowed("an answer server URL carries no user or password; the engine sends no credentials")
    if not _loopback(parts.hostname) and os.environ.get(ALLOW_REMOTE_ENV) != "1":
        raise ServerNotAllowed(
            f"answer server {parts.hostname} is not on this machine's loopback interface: the prompts carry the sanitized context; "
            f"set {ALLOW_REMOTE_ENV}=1 to allow it"
        )
    base = parts._replace(fragment="").geturl()
    return ChatServer(base, parts.fragment or "default")
