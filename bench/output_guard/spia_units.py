"""Evaluation units for the output guard from another team's annotations (SPIA over PANORAMA) and the hand-written set.

SPIA (``../shared/corpora/spia/``) annotates, per text and per person
("subject"), which quasi-identifiers the text reveals (tag, normalized
keyword, annotator certainty 0-5); the entity file beside it marks DIRECT /
QUASI spans with offsets.  Units:

* **answer** units: the whole text.  A subject's revealed QIs are its tags
  with certainty >= :data:`CERTAIN` that fall in one of the policy's QI
  classes (:data:`POLICY_CLASS`: POSITION counts as OCCUPATION,
  NATIONALITY as LOCATION, one piece of geographic evidence, RELATIONSHIP
  as FAMILY; SEX and EDUCATION only when the policy lists them).  The unit
  is ``unsafe`` when one subject's count reaches ``limit`` (the policy's
  ``max_per_subject``), else ``safe``.
* **sentence** units: each sentence (the project's splitter).  A subject's
  QI is located in a sentence when a part of its keyword ("Cagayan /
  Philippines" -> "Cagayan", "Philippines") occurs there, or when an
  annotated QUASI span in the sentence shares a word with it.  A sentence is
  ``unsafe`` when one subject's located QIs reach ``limit``; ``safe`` when
  its text is safe as a whole (then no sentence can reveal more); sentences
  of unsafe texts whose cluster is not located in them carry no reliable
  label and are left out (their number is reported).

The split is by text (``data_id``), seeded: every unit of a text lies in the
same part.  Each unit keeps what a leak check needs: its subjects' located
keyword parts and the annotated DIRECT span texts.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from policy_engine.nlp.sentences import sentence_spans

SPIA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "spia"
HANDWRITTEN = Path(__file__).resolve().parent / "handwritten_borderline.json"
#: Annotator certainty (0-5) from which a SPIA tag counts as revealed.
CERTAIN = 4
#: SPIA's quasi-identifier tags as the guard's QI classes.
POLICY_CLASS = {"AGE": "AGE", "LOCATION": "LOCATION", "NATIONALITY": "LOCATION", "OCCUPATION": "OCCUPATION", "POSITION": "OCCUPATION",
                "AFFILIATION": "AFFILIATION", "RELATIONSHIP": "FAMILY", "SEX": "SEX", "EDUCATION": "EDUCATION"}
_WORD = re.compile(r"[a-z0-9]{3,}")


@dataclass(frozen=True)
class Unit:
    """One text to guard, its label, and the evidence a leak check looks for in what the guard releases."""

    unit_id: str
    source: str  # "spia" or "handwritten"
    kind: str  # "answer" | "sentence" | a hand-written pattern
    domain: str  # "general" for SPIA
    text: str
    label: str  # "unsafe" | "safe" | "borderline"
    subject_keywords: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = ()  # per subject: (qi kind, keyword parts)
    direct_spans: tuple[str, ...] = ()


def _parts(keyword: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"[/,;|]", keyword) if len(p.strip()) >= 3)


def _subjects(record: dict, classes: frozenset[str]) -> list[dict[str, tuple[str, ...]]]:
    """Per subject: revealed QI class -> keyword parts (certainty >= CERTAIN, the policy's classes only)."""
    subjects = []
    for subject in record["subjects"]:
        kinds: dict[str, tuple[str, ...]] = {}
        for pii in subject["PIIs"]:
            kind = POLICY_CLASS.get(pii["tag"], "")
            if kind in classes and pii["keyword"] and pii["certainty"] >= CERTAIN:
                kinds[kind] = kinds.get(kind, ()) + _parts(pii["keyword"])
        subjects.append(kinds)
    return subjects


def _located(text: str, parts: tuple[str, ...], quasi: list[str]) -> bool:
    """Whether a keyword part occurs in ``text`` or shares a word with an annotated QUASI span of it."""
    lowered = text.casefold()
    if any(re.search(rf"\b{re.escape(p.casefold())}", lowered) for p in parts):
        return True
    words = {w for p in parts for w in _WORD.findall(p.casefold())}
    return any(words & set(_WORD.findall(q.casefold())) for q in quasi)


def load_spia(limit: int, classes: frozenset[str], root: Path = SPIA) -> tuple[list[Unit], dict[str, int]]:
    """SPIA answer and sentence units at ``limit`` QIs of ``classes`` per subject, and counts of what was left out."""
    spans = {}
    for line in (root / "entity_panorama_151.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        spans[record["metadata"]["data_id"]] = record["entities"]
    units: list[Unit] = []
    dropped = 0
    for line in (root / "spia_panorama_151.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        data_id, text = record["metadata"]["data_id"], record["text"]
        subjects = _subjects(record, classes)
        entities = spans.get(data_id, [])
        direct = tuple(sorted({e["span_text"] for e in entities if e["identifier_type"] == "DIRECT" and len(e["span_text"]) >= 3}))
        keywords = tuple(tuple(sorted(s.items())) for s in subjects)
        text_unsafe = any(len(s) >= limit for s in subjects)
        units.append(Unit(f"{data_id}#answer", "spia", "answer", "general", text, "unsafe" if text_unsafe else "safe", keywords, direct))
        for i, (start, end) in enumerate(sentence_spans(text, lines="break")):
            sentence = text[start:end]
            quasi = [e["span_text"] for e in entities if e["identifier_type"] == "QUASI" and start <= e["start_offset"] < end]
            located = [{k: p for k, p in s.items() if _located(sentence, p, quasi)} for s in subjects]
            if any(len(s) >= limit for s in located):
                label = "unsafe"
            elif not text_unsafe:
                label = "safe"
            else:
                dropped += 1
                continue
            units.append(Unit(f"{data_id}#s{i}", "spia", "sentence", "general", sentence, label,
                              tuple(tuple(sorted(s.items())) for s in located), tuple(d for d in direct if d in sentence)))
    return units, {"sentences_without_reliable_label": dropped}


def split_by_text(units: list[Unit], seed: int, validation: float = 0.5) -> tuple[list[Unit], list[Unit]]:
    """Development and validation parts; all units of one SPIA text (``data_id``) fall in the same part."""
    texts = sorted({u.unit_id.split("#")[0] for u in units})
    random.Random(seed).shuffle(texts)
    held = set(texts[: round(len(texts) * validation)])
    return [u for u in units if u.unit_id.split("#")[0] not in held], [u for u in units if u.unit_id.split("#")[0] in held]


def load_handwritten(path: Path = HANDWRITTEN) -> list[Unit]:
    """The hand-written regression answers (borderline-safe and unsafe, per domain)."""
    answers = json.loads(path.read_text(encoding="utf-8"))["answers"]
    return [Unit(a["id"], "handwritten", a["pattern"], a["domain"], a["text"], a["label"]) for a in answers]
