"""One request's view of an :class:`~policy_engine.detect.analyzer.Analyzer`: per-text work done once for all its calls.

A request asks the analyzer several times about the same texts: the
redaction enforcer runs its constraints in batches over the same passages
and re-checks each rewrite batch by batch.  Everything the analyzer derives
from a text alone (spaCy's entities, the entity clean-up and added
mentions, a recognizer's hits) or from the request's texts together (the
name variants spread across passages) is the same on every call, so the
session computes it once and hands out copies.  What depends on the
constraints of a call (plans, roles, keys, overlaps) is computed per call,
so ``analyze_many`` returns exactly what the analyzer's returns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from policy_engine.detect.ner import NamedEntity

if TYPE_CHECKING:
    from policy_engine.detect.analyzer import Analyzer
    from policy_engine.detect.findings import Finding
    from policy_engine.detect.recognizers import Hit
    from policy_engine.policy.model import Constraint


class AnalysisSession:
    """An :class:`Analyzer` with memos of per-text work, for the calls of one request.

    ``analyze_many`` returns exactly what the analyzer's returns; a text seen
    before in this session is not parsed again, nor its entities cleaned or
    a recognizer run over it again.  Thread-safe; the memos hold offsets and
    the texts as keys, so drop the session with the request.
    """

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self._entities: dict[str, tuple[NamedEntity, ...]] = {}
        self._cleaned: dict[str, tuple[NamedEntity, ...]] = {}
        self._variants: dict[tuple[str, ...], tuple[tuple[NamedEntity, ...], ...]] = {}
        self._hits: dict[tuple[str, str], tuple[Hit, ...]] = {}
        self._lock = threading.Lock()
        self.parsed = 0  # distinct texts sent to NER so far

    def analyze(self, text: str, constraints: Sequence[Constraint]) -> list[Finding]:
        return self.analyze_many([text], constraints)[0]

    def analyze_many(self, texts: Sequence[str], constraints: Sequence[Constraint]) -> list[list[Finding]]:
        """Findings per text, as :meth:`Analyzer.analyze_many`, with the per-text work memoized."""
        return self.analyzer._analyze_many(texts, constraints, self)

    def entities_many(self, texts: Sequence[str]) -> list[list[NamedEntity]]:
        """Raw entities per text: from the memo, the texts not yet seen parsed in one batch."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._entities]
            if missing:
                for text, found in zip(missing, self.analyzer._entity_recognizer().entities_many(missing)):
                    self._entities[text] = tuple(found)
                self.parsed += len(missing)
            return [list(self._entities[t]) for t in texts]

    def cleaned(self, text: str, clean: Callable[[str, list[NamedEntity]], Iterable[NamedEntity]]) -> list[NamedEntity]:
        """``clean(text, raw entities of text)``, computed once per text."""
        with self._lock:
            known = self._cleaned.get(text)
        if known is None:
            known = tuple(clean(text, self.entities_many([text])[0]))
            with self._lock:
                self._cleaned[text] = known
        return list(known)

    def variants(self, texts: Sequence[str], spread: Callable[[], list[list[NamedEntity]]]) -> list[list[NamedEntity]]:
        """``spread()`` (the name variants over the entities of all ``texts``), computed once per sequence of texts."""
        key = tuple(texts)
        with self._lock:
            known = self._variants.get(key)
        if known is None:
            known = tuple(tuple(ents) for ents in spread())
            with self._lock:
                self._variants[key] = known
        return [list(ents) for ents in known]

    def hits(self, text: str, recognizer: str, find: Callable[[str], Iterable[Hit]]) -> tuple[Hit, ...]:
        """``find(text)`` of the recognizer named ``recognizer``, run once per text."""
        with self._lock:
            known = self._hits.get((text, recognizer))
        if known is None:
            known = tuple(find(text))
            with self._lock:
                self._hits[(text, recognizer)] = known
        return known


__all__ = ["AnalysisSession"]
