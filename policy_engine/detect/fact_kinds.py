"""The kinds of fact a statement names, for matching by meaning (:mod:`policy_engine.detect.semantic_facts`).

"Do not reveal tenants' health conditions, disabilities or safeguarding
concerns" names three kinds of fact; the lexicons of the named categories
find "health conditions", and meaning fills what no category keyword names
("disabilities", "safeguarding concerns").  A statement that names no
category at all ("Do not reveal a client's immigration history") is
enforced by meaning alone when it restricts disclosure and names a kind
with content; one whose kinds are only general nouns ("Hide sensitive
information", "Keep things private") names nothing meaning could match and
stays refused (lint PE109).  The analyzer, the engine's gate and lint share
:func:`meaning_kinds`, so they agree on which statements are enforced.

spaCy is loaded only when a statement is parsed (lint imports this module).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from policy_engine.nlp.pipeline import parse
from policy_engine.policy.model import Constraint
from policy_engine.policy.resolution import Polarity
from policy_engine.policy.vocabulary import Vocabulary

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

#: Categories whose values are open-ended facts about a person rather than identifiers or named entities: a statement
#: that resolves to one of them (or to none) is also matched by meaning.  Trade union membership is one narrow kind its
#: recognizer names exactly; matched by meaning, "the European Union" comes close to it.
FACT_CATEGORIES = frozenset(["medical_condition", "relative"])
#: General nouns (Halliday and Hasan, Cohesion in English, 1976, Section 6.2: nouns that refer to any content, "thing",
#: "stuff", "matter") and the words that say only that something is private: a kind made of them alone names nothing
#: that meaning could tell apart from the rest of a text ("sensitive information", "anything confidential").
_GENERAL_WORDS = frozenset(
    "information info data details detail things thing stuff content contents matter matters material materials fact facts "
    "item items anything something everything sensitive confidential private personal secret secrets".split()
)
#: The markers that open a list of examples of a kind (closed-class English: "such as", "including", "like", "e.g.").
_EXAMPLE_MARKERS = frozenset({"including", "like", "e.g.", "eg", "especially", "notably"})
_DROPPED_DEPS = frozenset(["det", "poss", "case", "predet"])
#: The longest phrase taken as a kind or a candidate fact, in tokens.
MAX_PHRASE_TOKENS = 6


def statement_kinds(statement: str) -> tuple[str, ...]:
    """The kinds of fact a statement names: the coordinated parts of its verb's object, possessor left out.

    The statement is parsed as the sentence it is (a full stop added when it has none: without one the small
    model reads "reveal tenants' safeguarding concerns" as a clause).  A list of examples after the kind
    ("diagnoses such as depression, anxiety or bipolar disorder") holds instances, not kinds: the phrase ends
    where the examples start."""
    text = statement.rstrip()
    [doc] = parse([text if text.endswith((".", "!", "?")) else text + "."])
    objects = [t for t in doc if t.dep_ in ("dobj", "pobj", "attr") and t.head.pos_ in ("VERB", "AUX", "ADP")]
    if not objects:
        return ()
    head = objects[0]
    end = next((t.i for t in doc[head.i : head.right_edge.i + 1] if _starts_examples(t)), head.right_edge.i + 1)
    kinds = [kind.text for part in coordinated_parts(doc[head.left_edge.i : end]) if (kind := trimmed(part)) is not None]
    return tuple(dict.fromkeys(kinds))


def coordinated_parts(span: Span) -> list[Span]:
    """The parts of ``span`` between its coordinating conjunctions, commas and semicolons ("health conditions,
    disabilities or safeguarding concerns" -> three parts; a span without them is its own one part); empty parts are
    left out."""
    cuts = [t.i for t in span if t.dep_ == "cc" or (t.is_punct and t.text in ",;")]
    edges = [span.start - 1, *cuts, span.end]
    return [span.doc[a + 1 : b] for a, b in zip(edges, edges[1:]) if b > a + 1]


def trimmed(span: Span) -> Span | None:
    """``span`` without leading determiners, possessives and punctuation, nor trailing punctuation; ``None`` when
    nothing, more than a short phrase, or only pronouns or numbers are left."""
    start = span.start
    while start < span.end and (span.doc[start].dep_ in _DROPPED_DEPS or span.doc[start].is_punct):
        start += 1
    end = span.end
    while end > start and span.doc[end - 1].is_punct:
        end -= 1
    kept = span.doc[start:end]
    if not len(kept) or len(kept) > MAX_PHRASE_TOKENS or all(t.pos_ in ("PRON", "NUM", "PUNCT") for t in kept):
        return None
    return kept


def _starts_examples(token: Token) -> bool:
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return (token.lower_ == "such" and following is not None and following.lower_ == "as") or (token.lower_ in _EXAMPLE_MARKERS and token.i > 0)


def unnamed_kinds(kinds: Sequence[str], vocabulary: Vocabulary) -> tuple[str, ...]:
    """The kinds no category keyword names ("safeguarding concerns", not "health conditions"): the lexicons and
    recognizers of a named category are its high-precision seeds; meaning fills only what the vocabulary does not name."""
    keywords = {kw.lower() for category in vocabulary.categories.values() for kw in category.keywords}
    single = {kw for kw in keywords if " " not in kw}
    return tuple(
        kind for kind in kinds
        if not (single & {form for w in kind.split() for form in _singular_forms(w.lower().strip(":,"))})
        and not any(kw in kind.lower() for kw in keywords if " " in kw)
    )


def _singular_forms(word: str) -> set[str]:
    """``word`` and the singulars an English plural of it may have ("procedures", "injuries", "diagnoses")."""
    return {word, word.removesuffix("s"), word.removesuffix("es"), word[:-3] + "y" if word.endswith("ies") else word}


def is_general(kind: str) -> bool:
    """Whether ``kind`` is made only of general nouns and words saying it is private ("sensitive information")."""
    return all(word.lower().strip(",.:;'\u2019") in _GENERAL_WORDS for word in kind.split())


def meaning_kinds(constraint: Constraint, categories: Collection[str], polarity: Polarity, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The kinds of fact of ``constraint`` matched by meaning: for a restriction without detector hints that resolves
    to no category or to a :data:`FACT_CATEGORIES` one, the kinds no category keyword names and that are no general
    nouns; ``()`` otherwise (explicit terms, patterns or categories pin a constraint down)."""
    hints = constraint.detect
    if polarity is not Polarity.RESTRICTION or hints.terms or hints.patterns or hints.categories:
        return ()
    if categories and not FACT_CATEGORIES & set(categories):
        return ()
    return tuple(kind for kind in unnamed_kinds(statement_kinds(constraint.statement), vocabulary) if not is_general(kind))


#: How well the meaning matcher does on held-out data (CAPID validation contexts, candidate phrases; written by
#: ``bench/semantic_facts_calibrate.py`` to ``bench/results/semantic_facts_calibration.md``), quoted wherever a kind is
#: said to be matched by meaning, so the data owner knows to expect misses and some over-redaction.
VALIDATION = "precision 0.43, recall 0.81 of candidate phrases, 0.75 of annotated spans, on CAPID validation"


def describe_meaning(kinds: Sequence[str]) -> str:
    """``'safeguarding concerns' matched by meaning (modest: ...)``: the kinds and the matcher's measured quality."""
    return f"{', '.join(repr(k) for k in kinds)} matched by meaning, not by a lexicon (modest: {VALIDATION})"
