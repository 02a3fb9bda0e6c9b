"""Disclosed units inside a context clause, learned from labelled spans (Need-to-Know Section 3: necessity is decided per span).

The disclosure tagger (:mod:`enforcers.query_rewrite.learned`) reads whole clauses; the necessity model
(:mod:`enforcers.query_rewrite.need`) was fitted on CAPID's spans, which are phrases ("Sharif University", "MBA from
Harvard", "younger brother", "160cm").  A clause judged needed as one unit forwards every value in it, so a nationality
inside "As a Portuguese marine biologist" or a university inside a clause about a degree leaves with the clause.  This
module finds, inside a clause, the phrases that are units of disclosure, so each is decided on its own:

* candidates from the parse (:func:`candidates`): noun chunks without their determiner, with and without what hangs on
  their head, and with the prepositional phrase right after them wherever the parse attached it ("MBA from Harvard"),
  named entities, single content words (an adjective of nationality, a number), a
  number with its unit, the subtree of a complement or object;
* a logistic regression over each candidate's token states read in its sentence (the shared MiniLM, as the necessity
  model's contextual span) plus its syntax (root part of speech, dependency, entity label, length), giving the
  probability that the candidate is a labelled unit; and a multinomial regression over the same features giving its
  CAPID type (the necessity model's kind).

Both are fitted by ``training/query_rewrite/fit_units.py`` on CAPID's development part only (a candidate is a unit
when its words match a labelled span's with F1 >= :data:`MATCH`) and shipped as ``unit_model.npz``.  Units are chosen
greedily, most probable first, without overlap, from the shipped threshold.  Numpy at prediction time plus one encoder
pass per sentence; thread-safe.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass

import numpy as np
from spacy.tokens import Doc

from enforcers.query_rewrite.learned import package_arrays
from enforcers.query_rewrite.task import EMBEDDING
from policy_engine.nlp.embedding import Embedder, load_embedder, token_states
from policy_engine.nlp.phrase_classifier import sigmoid

MODEL_FILE = "unit_model.npz"
#: Word F1 from which a candidate counts as a labelled span (training labels).
MATCH = 0.6
#: Syntax one-hots: the candidate root's universal part of speech, its dependency, and its entity label.
POS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X")
DEPS = ("nsubj", "dobj", "pobj", "attr", "acomp", "amod", "compound", "appos", "conj", "npadvmod", "nummod", "poss", "ROOT", "xcomp", "ccomp", "advcl", "advmod", "oprd")
ENTS = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")
#: Dependency labels of tokens that only lead into a noun phrase ("my", "the").
_LEADING = frozenset({"det", "poss", "predet", "cc", "case"})
#: Labels whose whole subtree is a candidate (the thing a verb says: "I'm an Iranian national", "earned my MBA from Harvard").
_COMPLEMENTS = frozenset({"attr", "acomp", "dobj", "pobj", "oprd", "appos"})
#: Parts of speech of a one-word candidate.
_CONTENT = frozenset({"ADJ", "NUM", "PROPN", "NOUN"})
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Unit:
    """``text[start:end]`` is a unit of disclosure with ``probability``, most probably of CAPID type ``kind``."""

    start: int
    end: int
    probability: float
    kind: str


def word_f1(a: str, b: str) -> float:
    """F1 of the case-folded words of ``a`` against ``b`` (how a candidate is matched to a labelled span)."""
    x, y = Counter(w.casefold() for w in _WORD.findall(a)), Counter(w.casefold() for w in _WORD.findall(b))
    common = sum((x & y).values())
    if not common:
        return 0.0
    precision, recall = common / sum(x.values()), common / sum(y.values())
    return 2 * precision * recall / (precision + recall)


def candidates(doc: Doc, start: int, end: int) -> list[tuple[int, int]]:
    """Character ranges of the candidate units of ``doc.text[start:end]``, in order, without duplicates; each covers whole
    words."""
    found: set[tuple[int, int]] = set()

    def add(first: int, last: int) -> None:  # token range [first, last)
        while first < last and (doc[first].dep_ in _LEADING or doc[first].is_punct or doc[first].is_space):
            first += 1
        while last > first and (doc[last - 1].is_punct or doc[last - 1].is_space):
            last -= 1
        if last <= first:
            return
        # whole words only: a token the tokenizer split off a word ("7" of "7am") is the word
        r0, r1 = doc[first].idx, doc[last - 1].idx + len(doc[last - 1])
        while r0 > 0 and doc.text[r0 - 1].isalnum():
            r0 -= 1
        while r1 < len(doc.text) and doc.text[r1].isalnum():
            r1 += 1
        if start <= r0 and r1 <= end:
            found.add((r0, r1))

    span = doc.char_span(start, end, alignment_mode="expand")
    if span is None:
        return []
    chunks = list(span.noun_chunks)
    starts = {c.start: c for c in chunks}
    for chunk in chunks:
        add(chunk.start, chunk.end)
        add(chunk.start, chunk.root.right_edge.i + 1)
        # a noun phrase with the prepositional phrase right after it, wherever the parse attached that ("MBA from Harvard")
        if chunk.end < len(doc) and doc[chunk.end].pos_ == "ADP" and (following := starts.get(chunk.end + 1)) is not None:
            add(chunk.start, following.end)
    for entity in span.ents:
        add(entity.start, entity.end)
    for token in span:
        if token.pos_ in _CONTENT:
            add(token.i, token.i + 1)
        if token.pos_ == "NUM" and token.i + 1 < len(doc) and doc[token.i + 1].pos_ == "NOUN":
            add(token.i, token.i + 2)
        if token.dep_ in _COMPLEMENTS:
            add(token.left_edge.i, token.right_edge.i + 1)
    return sorted(found)


def _one_hot(value: str, vocabulary: tuple[str, ...]) -> np.ndarray:
    row = np.zeros(len(vocabulary), dtype=np.float32)
    if value in vocabulary:
        row[vocabulary.index(value)] = 1.0
    return row


def syntax_features(doc: Doc, start: int, end: int) -> np.ndarray:
    """``[root POS | root dependency | entity label | words / 10 | has a digit | capitalised]`` of one candidate."""
    span = doc.char_span(start, end, alignment_mode="expand")
    root = span.root if span is not None else doc[0]
    entity = next((t.ent_type_ for t in span if t.ent_type_), "") if span is not None else ""
    text = doc.text[start:end]
    shape = np.array([len(_WORD.findall(text)) / 10.0, float(any(c.isdigit() for c in text)), float(text[:1].isupper())], dtype=np.float32)
    return np.concatenate([_one_hot(root.pos_, POS), _one_hot(root.dep_, DEPS), _one_hot(entity, ENTS), shape])


def _sentence_of(doc: Doc, start: int) -> tuple[int, int]:
    return next(((s.start_char, s.end_char) for s in doc.sents if s.start_char <= start < s.end_char), (0, len(doc.text)))


def unit_features(embedder: Embedder, doc: Doc, ranges: list[tuple[int, int]]) -> np.ndarray:
    """Per candidate range of ``doc``: ``[mean token state of the candidate read in its sentence | the sentence's mean
    state | syntax_features]`` (states L2-normalised; one encoder pass per sentence)."""
    if not ranges:
        return np.zeros((0, 2 * embedder.dim + len(POS) + len(DEPS) + len(ENTS) + 3), dtype=np.float32)
    sentences = sorted({_sentence_of(doc, r0) for r0, _ in ranges})
    states = dict(zip(sentences, token_states(embedder, [doc.text[s0:s1] for s0, s1 in sentences])))
    rows = []
    for r0, r1 in ranges:
        s0, s1 = _sentence_of(doc, r0)
        vectors, offsets = states[(s0, s1)]
        inside = (offsets[:, 0] < r1 - s0) & (offsets[:, 1] > r0 - s0)
        own = vectors[inside].mean(axis=0) if inside.any() else vectors.mean(axis=0)
        whole = vectors.mean(axis=0)
        own, whole = (v / max(float(np.linalg.norm(v)), 1e-9) for v in (own, whole))
        rows.append(np.concatenate([own, whole, syntax_features(doc, r0, r1)]))
    return np.vstack(rows).astype(np.float32)


class UnitProposer:
    """P(candidate is a unit of disclosure) and its kind; greedy non-overlapping choice from ``threshold``."""

    def __init__(self, coef: np.ndarray, intercept: float, kinds: list[str], kind_coef: np.ndarray, kind_intercept: np.ndarray, threshold: float, embedder: Embedder) -> None:
        width = 2 * embedder.dim + len(POS) + len(DEPS) + len(ENTS) + 3
        if coef.shape != (width,) or kind_coef.shape != (len(kinds), width):
            raise ValueError(f"unit model has shapes {coef.shape} and {kind_coef.shape}, expected ({width},) and ({len(kinds)}, {width})")
        self.coef, self.intercept, self.kinds, self.kind_coef, self.kind_intercept = coef, intercept, kinds, kind_coef, kind_intercept
        self.threshold, self.embedder = threshold, embedder

    def units(self, doc: Doc, start: int, end: int) -> list[Unit]:
        """The units of ``doc.text[start:end]`` (:meth:`units_many` of one range)."""
        return self.units_many(doc, [(start, end)])[0]

    def units_many(self, doc: Doc, ranges: list[tuple[int, int]]) -> list[list[Unit]]:
        """Per range of ``doc``, its units: candidates from ``threshold``, most probable first, none overlapping another.
        Every candidate of every range is featured in one pass (a sentence holding several ranges is encoded once)."""
        per_range = [candidates(doc, start, end) for start, end in ranges]
        flat = [r for found in per_range for r in found]
        if not flat:
            return [[] for _ in ranges]
        x = unit_features(self.embedder, doc, flat)
        probability = sigmoid(x @ self.coef + self.intercept)
        kinds = (x @ self.kind_coef.T + self.kind_intercept).argmax(axis=1)
        out, at = [], 0
        for found in per_range:
            rows = slice(at, at + len(found))
            chosen = greedy(probability[rows], found, self.threshold)
            out.append(sorted((Unit(*found[i], float(probability[rows][i]), self.kinds[int(kinds[rows][i])]) for i in chosen), key=lambda u: u.start))
            at += len(found)
        return out


def greedy(probability: np.ndarray, ranges: list[tuple[int, int]], threshold: float) -> list[int]:
    """Indices of ``ranges`` chosen from ``threshold``, most probable first, none overlapping one chosen before."""
    chosen: list[int] = []
    for i in np.argsort(-probability, kind="stable"):
        r0, r1 = ranges[i]
        if probability[i] >= threshold and not any(ranges[j][0] < r1 and r0 < ranges[j][1] for j in chosen):
            chosen.append(int(i))
    return chosen


_lock = threading.Lock()


@functools.lru_cache(maxsize=1)
def shared_proposer() -> UnitProposer:
    """The shipped unit proposer, loaded once per process."""
    with _lock:
        data = package_arrays(MODEL_FILE)
        return UnitProposer(
            data["coef"].astype(np.float32), float(data["intercept"]), [str(k) for k in data["kinds"]],
            data["kind_coef"].astype(np.float32), data["kind_intercept"].astype(np.float32), float(data["threshold"]), load_embedder(EMBEDDING),
        )
