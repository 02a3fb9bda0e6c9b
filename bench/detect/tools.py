"""The two tools the detector benchmark compares: the engine's Analyzer and Microsoft Presidio.

Each tool is a pair ``(spans(text) -> [(start, end, label)], anonymize(text) -> str)``; the label is the
engine's category or Presidio's entity type, for over-redaction per category.
Presidio runs with its default recognizers and threshold, its NlpEngine
configured with the engine's own spaCy model, so both see the same NER.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from policy_engine.detect import Analyzer
from policy_engine.detect.ner import MODEL_NAME, EntityRecognizer, load_pipeline, model_location
from policy_engine.policy.model import Constraint, Metadata, Policy

Span = tuple[int, int, str]
Tool = tuple[Callable[[str], list[Span]], Callable[[str], str]]


def analyzer_tool(analyzer: Analyzer, constraints: Sequence[Constraint]) -> Tool:
    """Spans and placeholder substitution of ``analyzer`` under ``constraints``."""

    def spans(text: str) -> list[Span]:
        return [(f.start, f.end, f.category) for f in analyzer.analyze(text, constraints)]

    def anonymize(text: str) -> str:
        out, cursor = [], 0
        for f in analyzer.analyze(text, constraints):
            out += [text[cursor : f.start], f"[{f.category.upper()}]"]
            cursor = f.end
        return "".join(out) + text[cursor:]

    return spans, anonymize


def statement_tool(name: str, statements: Sequence[str], model: str = MODEL_NAME) -> tuple[Tool, Analyzer, list[Constraint]]:
    """The engine under a policy of plain-language ``statements`` only (no detect hints), NER by spaCy ``model``."""
    constraints = [Constraint(id=f"s{i + 1}", statement=s) for i, s in enumerate(statements)]
    recognizer = None if model == MODEL_NAME else EntityRecognizer(load_pipeline(model))
    analyzer = Analyzer(Policy(metadata=Metadata(name=name), constraints=constraints), entity_recognizer=recognizer)
    return analyzer_tool(analyzer, constraints), analyzer, constraints


def presidio_tool(model: str = MODEL_NAME) -> Tool:
    import tldextract.tldextract
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_anonymizer import AnonymizerEngine

    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    # Presidio's e-mail and URL recognizers call tldextract, which would try to download the Public
    # Suffix List; the machine is offline, so use the snapshot shipped with tldextract.
    tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())
    nlp = NlpEngineProvider(
        nlp_configuration={"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model_location(model)}]}
    ).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
    anonymizer = AnonymizerEngine()

    def spans(text: str) -> list[Span]:
        return [(r.start, r.end, r.entity_type) for r in analyzer.analyze(text, language="en")]

    def anonymize(text: str) -> str:
        return anonymizer.anonymize(text=text, analyzer_results=analyzer.analyze(text, language="en")).text

    return spans, anonymize
