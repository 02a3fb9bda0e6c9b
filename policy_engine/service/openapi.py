"""The service's OpenAPI document, checked in as ``schemas/service.openapi.json``.

Generated from the routes and the models of :mod:`policy_engine.service.models`
(no bundle needs to be open), never edited by hand: ``policy-engine serve
--openapi schemas/service.openapi.json`` rewrites it, and a test fails when
the checked-in file drifts from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

from policy_engine.service.app import create_app
from policy_engine.service.bundles import ServedBundles
from policy_engine.service.config import ServerConfig

FILE_NAME = "service.openapi.json"


def openapi_text() -> str:
    """The OpenAPI document as stable JSON text (sorted keys, two-space indent, trailing newline)."""
    app = create_app(ServedBundles(()), ServerConfig(), owns_bundles=False)
    return json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n"


def write_openapi(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(openapi_text(), encoding="utf-8")
    return path
