"""A ``policy-engine serve`` subprocess on loopback: the base URL once it says where it listens and answers ``/readyz``."""

from __future__ import annotations

import re
import subprocess
import time

import httpx


def ready_base_url(server: subprocess.Popen[str], lines: list[str], timeout: float = 300.0) -> str:
    """``http://127.0.0.1:PORT`` of ``server`` (started with ``--port 0`` and ``stderr=PIPE``, text mode) once
    ``/readyz`` answers 200; the stderr lines read are appended to ``lines`` (shown when the server exits early)."""
    port = None
    while port is None:
        line = server.stderr.readline() if server.stderr else ""
        assert line, "".join(lines)
        lines.append(line)
        found = re.search(r"running on http://127\.0\.0\.1:(\d+)", line)
        port = int(found.group(1)) if found else None
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while httpx.get(f"{base}/readyz").status_code != 200:
        assert time.monotonic() < deadline, f"not ready in {timeout:g} s"
        time.sleep(0.2)
    return base
