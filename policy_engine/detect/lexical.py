"""Word evidence for person names: is a capitalized word a common English word, a first name, a surname?

spaCy's small model tags capitalized common words at the start of a
sentence, a heading or a table cell as PERSON or ORG ("Specimen received",
"Allergies confirmed", "Discrepancies").  Two lexicons that ship with
installed packages decide what such a word is:

* common English words: the WordNet-derived lemma index of the spaCy
  model's own lemmatizer (nouns, verbs, adjectives, adverbs) and its
  irregular forms, looked up by lemma so "Allergies", "received" and
  "heard" are found;
* personal names: the first- and last-name lists of Faker's person
  providers, every Latin-script locale (Faker is a dependency already).

A word that is a common word and no name is not evidence of a person; a
capitalized word that is a first name and no common word ("Priya",
"Connor") is evidence of one even when NER misses it.  Both sets are built
once per process.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from policy_engine.nlp.pipeline import pipeline

_SUFFIX_LEMMAS = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"), ("ly", ""))


@functools.lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    lookups = pipeline().get_pipe("lemmatizer").lookups
    words: set[str] = set()
    for name in ("lemma_index", "lemma_exc"):  # dictionary words, and their irregular forms ("heard", "children")
        table = lookups.get_table(name)
        for key in table:
            words.update(w for w in table[key] if w.isalpha())
    return frozenset(words)


@functools.lru_cache(maxsize=1)
def _name_lists() -> dict[str, frozenset[str]]:
    from faker.providers import person

    lists: dict[str, set[str]] = {"first_names": set(), "first_names_male": set(), "first_names_female": set(), "last_names": set()}
    for module_info in pkgutil.iter_modules(person.__path__):
        provider = getattr(importlib.import_module(f"{person.__name__}.{module_info.name}"), "Provider", None)
        for attribute, bucket in lists.items():
            values = provider.__dict__.get(attribute) if provider is not None else None
            if isinstance(values, (list, tuple, set, frozenset, dict)):
                bucket.update(v.lower() for v in values if isinstance(v, str) and v.isalpha() and len(v) > 1 and _latin(v))
    return {k: frozenset(v) for k, v in lists.items()}


def _latin(word: str) -> bool:
    return all(ch.isascii() or "\u00c0" <= ch <= "\u024f" for ch in word)


@functools.lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], frozenset[str]]:
    lists = _name_lists()
    return lists["first_names"] | lists["first_names_male"] | lists["first_names_female"], lists["last_names"]


def first_name_gender(word: str) -> str:
    """"m" or "f" when ``word`` is only in Faker's male or only in its female first names, else ""."""
    lists, lower = _name_lists(), word.lower()
    male, female = lower in lists["first_names_male"], lower in lists["first_names_female"]
    return "m" if male and not female else "f" if female and not male else ""


def is_common_word(word: str) -> bool:
    """True when ``word`` (any case) or a regular inflection of it is an English dictionary word."""
    lower = word.lower().strip(".,:;'\u2019")
    if lower.endswith(("'s", "\u2019s")):
        lower = lower[:-2]
    words = _common_words()
    if lower in words:
        return True
    return any(
        lower.endswith(suffix) and _inflects(lower[: len(lower) - len(suffix)], suffix, repl) and lower[: len(lower) - len(suffix)] + repl in words
        for suffix, repl in _SUFFIX_LEMMAS
        if len(lower) > len(suffix) + 2
    )


def _inflects(stem: str, suffix: str, repl: str) -> bool:
    """False where English spelling forbids the inflection: a stem ending in "e" drops it before "-ed"/"-ing" ("Naveed" is no form of "nave")."""
    return not (suffix in ("ed", "ing") and not repl and stem.endswith("e"))


def is_first_name(word: str) -> bool:
    return word.lower() in _names()[0]


def is_surname(word: str) -> bool:
    return word.lower() in _names()[1]


def is_name_word(word: str) -> bool:
    """True when ``word`` is a known first name or surname."""
    return is_first_name(word) or is_surname(word)


def is_language_name(phrase: str) -> bool:
    """True when ``phrase`` (any case) is the English name of a language (ISO 639, Faker's list: "French", "Tamil")."""
    return phrase.strip().lower() in _language_names()


@functools.lru_cache(maxsize=1)
def _language_names() -> frozenset[str]:
    from faker.providers.person.en import Provider

    return frozenset(n.lower() for n in Provider.language_names)


def is_plain_word(word: str) -> bool:
    """A common English word that is no known name (or a function word, which some locale lists as a surname): no evidence of a person by itself."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return word.lower().strip(".,:;") in STOP_WORDS or (is_common_word(word) and not is_name_word(word))
