"""External, human-annotated corpora for the detector benchmark, mapped onto shared categories.

None of these texts was written by this project.  Each loader returns
:class:`Doc` objects whose spans carry a *shared* category (PERSON,
LOCATION, ORG, DATE, CODE, NRP, AGE) or :data:`NEUTRAL` for annotated
material a privacy policy does not ask to hide (WNUT's products, the
legal corpus's statutes); neutral characters count neither as a miss nor
as over-redaction.

Corpora (read from ``--corpora-dir``, never copied into the repository):

* ``wnut17``: WNUT 2017 emerging entities (CC-BY 4.0), social-media posts
  annotated by crowd workers and adjudicated; the dev and test files are
  used (``../shared/corpora/wnut17``).
* ``presidio-synth``: presidio-research's synthetic PII sentences (MIT),
  written by another team's generator (``../shared/corpora/presidio-synth``).
* ``legal-ner``: the dev split of Legal-NLP-EkStep/legal_NER (Apache-2.0;
  Indian court judgments, preambles and judgment sentences annotated by
  legal experts), the spaCy ``DocBin``
  ``training/Combined_Data_Judgement_Preamble_spacy_format/dev.spacy`` copied
  to ``<ext-dir>/legal_NER/dev.spacy``.

:func:`split` cuts every corpus into a development half (looked at while
fixing detectors) and a held-out half (only scored), with a fixed seed.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

NEUTRAL = "NEUTRAL"

WNUT_MAP = {"person": "PERSON", "location": "LOCATION", "corporation": "ORG", "group": "ORG"}
SYNTH_MAP = {
    "PERSON": "PERSON",
    "STREET_ADDRESS": "LOCATION",
    "GPE": "LOCATION",
    "ZIP_CODE": "LOCATION",
    "ORGANIZATION": "ORG",
    "DATE_TIME": "DATE",
    "NRP": "NRP",
    "AGE": "AGE",
    **{k: "CODE" for k in ("CREDIT_CARD", "PHONE_NUMBER", "EMAIL_ADDRESS", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "US_DRIVER_LICENSE", "DOMAIN_NAME")},
}
LEGAL_MAP = {
    **{k: "PERSON" for k in ("PETITIONER", "RESPONDENT", "JUDGE", "LAWYER", "WITNESS", "OTHER_PERSON")},
    "ORG": "ORG",
    "COURT": "ORG",
    "GPE": "LOCATION",
    "DATE": "DATE",
    "CASE_NUMBER": "CODE",
}


@dataclass(frozen=True)
class Doc:
    corpus: str
    doc_id: str
    text: str
    spans: tuple[tuple[int, int, str], ...]  # (start, end, shared category or NEUTRAL)


def conll_docs(path: Path, corpus: str, prefix: str) -> list[Doc]:
    """One :class:`Doc` per sentence of a tab-separated CoNLL file (WNUT-17's layout: token, then BIO tag): tokens
    joined by single spaces, a B- tag and the I- tags of the same type after it one span, its type mapped by
    :data:`WNUT_MAP` (:data:`NEUTRAL` for the rest); ids ``<prefix>-<n>``."""
    docs, tokens = [], []

    def flush() -> None:
        if not tokens:
            return
        text, spans, cursor, open_span = "", [], 0, None
        for token, tag in tokens:
            start = cursor + (1 if text else 0)
            text += (" " if text else "") + token
            cursor = len(text)
            kind = tag[2:] if tag != "O" else ""
            if tag.startswith("I-") and open_span and open_span[2] == kind:
                open_span[1] = cursor
                continue
            if open_span:
                spans.append(tuple(open_span))
                open_span = None
            if kind:
                open_span = [start, cursor, kind]
        if open_span:
            spans.append(tuple(open_span))
        docs.append(Doc(corpus, f"{prefix}-{len(docs)}", text, tuple((s, e, WNUT_MAP.get(k, NEUTRAL)) for s, e, k in spans)))
        tokens.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip():
            flush()
        else:
            tokens.append((parts[0], parts[-1].strip()))
    flush()
    return docs


def load_wnut17(root: Path) -> list[Doc]:
    base = root / "wnut17"
    return conll_docs(base / "emerging.dev.conll", "wnut17", "dev") + conll_docs(base / "emerging.test.annotated", "wnut17", "test")


def load_presidio_synth(root: Path) -> list[Doc]:
    records = json.loads((root / "presidio-synth" / "synth_dataset_v2.json").read_text(encoding="utf-8"))
    return [
        Doc(
            "presidio-synth",
            f"synth-{i}",
            r["full_text"],
            tuple((s["start_position"], s["end_position"], SYNTH_MAP.get(s["entity_type"], NEUTRAL)) for s in r["spans"]),
        )
        for i, r in enumerate(records)
    ]


def load_legal_ner(ext_root: Path) -> list[Doc]:
    import spacy
    from spacy.tokens import DocBin

    path = ext_root / "legal_NER" / "dev.spacy"
    if not path.exists():
        return []
    vocab = spacy.blank("en").vocab
    out = []
    for i, doc in enumerate(DocBin().from_disk(path).get_docs(vocab)):
        spans = tuple((e.start_char, e.end_char, LEGAL_MAP.get(e.label_, NEUTRAL)) for e in doc.ents)
        out.append(Doc("legal-ner", f"legal-{i}", doc.text, spans))
    return out


def load_all(corpora_dir: Path, ext_dir: Path) -> list[Doc]:
    return load_wnut17(corpora_dir) + load_presidio_synth(corpora_dir) + load_legal_ner(ext_dir)


def split(docs: list[Doc], seed: int) -> tuple[list[Doc], list[Doc]]:
    """(development, held-out) halves of every corpus, by a seeded shuffle of document ids."""
    dev, held = [], []
    for corpus in dict.fromkeys(d.corpus for d in docs):
        part = [d for d in docs if d.corpus == corpus]
        order = list(range(len(part)))
        random.Random(f"{seed}:{corpus}").shuffle(order)
        chosen = set(order[: len(part) // 2])
        dev += [d for i, d in enumerate(part) if i in chosen]
        held += [d for i, d in enumerate(part) if i not in chosen]
    return dev, held
