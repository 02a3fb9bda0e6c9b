"""JSON Schema files generated from the pydantic policy models.

``schemas/policy.schema.json`` describes one policy file (a PrivacyPolicy or a
PolicyFragment) and ``schemas/policy-test.schema.json`` one policy test file
(``*_test.yaml``, a PolicyTest); editors use them through yaml-language-server.  The files are
generated, never edited: :func:`stale_schemas` tells CI when they drift.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from policy_engine.policy.expectations import PolicyTestFile
from policy_engine.policy.model import PolicyDocument

SCHEMA_ID_BASE = "https://policy-engine.dev/schemas/"


def _schema(model: type[BaseModel], name: str, title: str) -> dict:
    schema = model.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID_BASE + name
    schema["title"] = title
    return schema


def policy_document_schema() -> dict:
    return _schema(PolicyDocument, "policy.schema.json", "policy-engine policy file")


def generated_schemas() -> dict[str, str]:
    """File name -> JSON text of every generated schema."""
    schemas = {
        "policy.schema.json": policy_document_schema(),
        "policy-test.schema.json": _schema(PolicyTestFile, "policy-test.schema.json", "policy-engine policy test file"),
    }
    return {name: json.dumps(schema, indent=2, sort_keys=True) + "\n" for name, schema in schemas.items()}


def export_schemas(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generated_schemas().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(out_dir: Path) -> list[str]:
    """Names of schema files that are missing or differ from the models."""
    stale = []
    for name, text in generated_schemas().items():
        path = out_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale
