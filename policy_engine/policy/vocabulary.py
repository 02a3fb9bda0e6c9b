"""Built-in vocabularies that policy sections refer to, extendable per policy.

* sensitive categories for constraints (``vocab/categories.yaml``): what a
  statement such as "Hide the names of patients" can resolve to, with the
  detectors and generalization operator of each category;
* the 20 task types and the 30 sensitive attributes in 6 families of the
  Need-to-Know benchmark (Appendix C, Tables 7 and 8);
* the 8-class quasi-identifier taxonomy of PPE (Table II).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from ruamel.yaml import YAML

from policy_engine.policy.model import CategoryDefinition, VocabularyExtension
from policy_engine.policy.statement_terms import PhraseIndex

#: Entity labels the spaCy English pipelines produce (OntoNotes scheme).
SPACY_ENTITY_LABELS = frozenset(
    "PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LAW LANGUAGE DATE TIME PERCENT MONEY QUANTITY ORDINAL CARDINAL".split()
)


def _load(name: str) -> dict:
    text = resources.files("policy_engine").joinpath("vocab", name).read_text(encoding="utf-8")
    return YAML(typ="safe").load(text)


@dataclass(frozen=True)
class Vocabulary:
    """The vocabularies in force for one policy (built-ins plus its extension)."""

    categories: dict[str, CategoryDefinition]
    task_types: dict[str, str]
    attribute_families: dict[str, tuple[str, ...]]
    qi_shared: tuple[str, ...]
    qi_domains: dict[str, tuple[str, ...]]
    qi_extra: tuple[str, ...] = ()

    @property
    def attributes(self) -> frozenset[str]:
        return frozenset(a for attrs in self.attribute_families.values() for a in attrs)

    def expand_attributes(self, names: list[str]) -> set[str]:
        """Attribute names with families expanded to their members."""
        out: set[str] = set()
        for name in names:
            out.update(self.attribute_families.get(name, (name,)))
        return out

    @functools.cached_property
    def keyword_index(self) -> dict[str, tuple[str, ...]]:
        """Lower-cased category keyword -> ids of the categories it names."""
        index: dict[str, list[str]] = {}
        for cat_id, cat in self.categories.items():
            for keyword in cat.keywords:
                index.setdefault(keyword.lower(), []).append(cat_id)
        return {k: tuple(v) for k, v in index.items()}

    @functools.cached_property
    def phrase_index(self) -> PhraseIndex:
        """Category keyword phrases by lemmas, for scoped statement resolution."""
        return PhraseIndex.build({cat_id: cat.keywords for cat_id, cat in self.categories.items()})

    def is_attribute_or_family(self, name: str) -> bool:
        return name in self.attribute_families or name in self.attributes

    def task_id(self, name: str) -> str | None:
        """Task identifier for an id or display name (case-insensitive), else None."""
        if name in self.task_types:
            return name
        folded = name.strip().casefold()
        for key, display in self.task_types.items():
            if folded in (key.casefold(), display.casefold()):
                return key
        return None

    def qi_classes(self, domain: str) -> tuple[str, ...]:
        """Classes valid for a domain: the shared five, the domain's three, and extensions."""
        return self.qi_shared + self.qi_domains.get(domain, ()) + self.qi_extra

    def extended(self, ext: VocabularyExtension) -> Vocabulary:
        families = dict(self.attribute_families)
        for family, attrs in ext.attributes.items():
            families[family] = tuple(dict.fromkeys(families.get(family, ()) + tuple(attrs)))
        return Vocabulary(
            categories={**self.categories, **ext.categories},
            task_types={**self.task_types, **ext.task_types},
            attribute_families=families,
            qi_shared=self.qi_shared,
            qi_domains=self.qi_domains,
            qi_extra=self.qi_extra + tuple(ext.qi_classes),
        )


@functools.lru_cache(maxsize=1)
def builtin_vocabulary() -> Vocabulary:
    """The built-in vocabularies, read once from the package data."""
    qi = _load("qi.yaml")
    return Vocabulary(
        categories={k: CategoryDefinition(**v) for k, v in _load("categories.yaml").items()},
        task_types=dict(_load("tasks.yaml")),
        attribute_families={k: tuple(v) for k, v in _load("attributes.yaml").items()},
        qi_shared=tuple(qi["shared"]),
        qi_domains={k: tuple(v or ()) for k, v in qi["domains"].items()},
    )


def vocabulary_for(ext: VocabularyExtension | None) -> Vocabulary:
    """Built-ins extended by a policy's ``vocabulary`` section."""
    base = builtin_vocabulary()
    return base.extended(ext) if ext else base
