"""Identifier kinds a statement names, and whether some detector covers each.

A statement such as "Do not reveal tenants' PPS numbers or Eircodes" names
kinds of identifier; the category resolver maps it to categories whose
recognizers may or may not know those kinds.  :func:`uncovered_kinds`
finds every identifier kind the statement names (a modifier run before an
identifier noun, "PPS numbers", "tax file numbers", "Zorblax IDs", or a word
compounded with one, "Eircodes", "Steuernummer") and returns those that no
detector covers, each with the closest known kinds, so lint can warn at
its position and the engine never reports that part of the statement as
enforced.

Known kinds are: the national-number kinds of
:mod:`~policy_engine.detect.national_numbers` (checked by python-stdnum), the
formats the built-in recognizers find (:data:`RECOGNIZED_FORMATS`), the cue
words of the generic identifier recognizer (customer, policy, claim ...
numbers) and the keywords of the vocabulary's categories.  A policy that
names its ``countries`` covers only those countries' national-number kinds
and Eircodes only with Ireland (:func:`policy_engine.detect.recognizers.registry`
scopes them the same way), so "SIN numbers" under ``countries: [IE]`` is
reported.  Imports no engine dependency: lint runs it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from policy_engine.detect.identifiers import ID_CUES
from policy_engine.detect.national_numbers import KINDS, kinds_of
from policy_engine.policy.vocabulary import Vocabulary

#: Formats the built-in recognizers find, as statements name them (see ``identifier_recognizers`` and ``composed``).
RECOGNIZED_FORMATS = (
    "phone", "telephone", "mobile", "fax", "email", "e-mail", "postcode", "post code", "postal code", "zip", "zipcode", "zip code",
    "eircode", "pin code", "pincode", "plz", "apartment", "apt", "flat", "unit", "suite", "room", "house", "street", "iban", "bic",
    "swift", "sort code", "bank code", "blz", "bsb", "routing", "transit", "aba", "card", "credit card", "debit card", "account",
    "bank account", "ssn", "national insurance", "ni", "nino", "nhs", "passport", "driving licence", "driver's license",
    "drivers license", "licence", "license", "mrn", "medical record", "insurance", "member", "ip", "url", "web", "case", "docket",
)  # fmt: skip
#: Words around an identifier noun that name no kind (determiners, connectives, the imperative verbs of statements).
_NOT_A_KIND = frozenset(
    "a an the any all other others their his her its our your my these those such some each every no and or of for with "
    "hide redact reveal disclose mention share show release expose remove mask protect keep never not do don't must "
    "should include print output store give send leak identifying identification personal private sensitive internal "
    "official own real full partial".split()
)
#: An identifier noun ("numbers", "IDs", "codes"), or a word compounded with one ("Eircodes", "Steuernummer").
_NOUN = re.compile(r"(?i)\b(?:(?P<compound>[a-zäöüß]{3,})(?:codes?|nummern?|numbers?)|(?P<noun>numbers?|nos?\.|ids?|identifiers?|codes?))\b")
_WORD = re.compile(r"[\w'\u2019-]+")


@dataclass(frozen=True)
class UncoveredKind:
    """A kind the statement names that no detector covers: its text, its offset in the statement, the closest known kinds."""

    phrase: str
    start: int
    closest: tuple[str, ...]


def _normal(words: Iterable[str]) -> str:
    return " ".join(w.lower().strip("'\u2019").removesuffix("'s") for w in words)


#: Recognized formats of one country's postcodes, out of scope when a policy's ``countries`` leave that country out.
NATIONAL_FORMATS = {"eircode": "IE"}


def known_kinds(vocab: Vocabulary, countries: tuple[str, ...] = ()) -> frozenset[str]:
    """Every kind name some detector covers (for ``countries``, empty for all), lower case, without the identifier noun."""
    names = {n for k in kinds_of(countries) for n in (*k.names, k.kind.lower(), *(c.lower() for c in k.cues))}
    formats = {f for f in RECOGNIZED_FORMATS if not countries or NATIONAL_FORMATS.get(f, countries[0]) in countries}
    names |= formats | set(re.findall(r"[a-z]+", ID_CUES.replace(r"\.", " ")))
    names |= {kw.lower() for cat in vocab.categories.values() for kw in cat.keywords}
    stripped = {re.sub(r"\s*\b(?:numbers?|ids?|identifiers?|codes?|nos?)$", "", n).strip() for n in names}
    return frozenset(n for n in names | stripped if n)


def identifier_kinds() -> list[str]:
    """The names of identifier kinds proposed as alternatives (national kinds and recognized formats)."""
    return sorted({n for k in KINDS for n in k.names} | set(RECOGNIZED_FORMATS))


def _modifier_runs(statement: str, noun_start: int) -> list[tuple[int, list[str]]]:
    """The modifier runs before an identifier noun, one per conjunct ("PPS, TFN or tax file" numbers -> 3 runs)."""
    words = [(m.start(), m.group()) for m in _WORD.finditer(statement, 0, noun_start)]
    runs: list[tuple[int, list[str]]] = []
    current: list[tuple[int, str]] = []
    for start, word in reversed(words):
        low = word.lower()
        between = statement[start + len(word) : (current[-1][0] if current else noun_start)]
        if low in ("or", "and") or "," in between and current:
            if current:
                runs.append((current[-1][0], [w for _, w in reversed(current)]))
                current = []
            if low in ("or", "and"):
                continue
        if low in _NOT_A_KIND or low.endswith(("'", "\u2019", "'s", "\u2019s")) or any(ch in between for ch in ".;:!?(") or _NOUN.fullmatch(word):
            break
        current.append((start, word))
        if len(current) == 3:
            break
    if current:
        runs.append((current[-1][0], [w for _, w in reversed(current)]))
    return runs


def uncovered_kinds(statement: str, vocab: Vocabulary, countries: Iterable[str] = ()) -> list[UncoveredKind]:
    """The identifier kinds ``statement`` names that no detector covers for ``countries`` (see the module docstring)."""
    known = known_kinds(vocab, tuple(countries))
    out: list[UncoveredKind] = []
    for noun in _NOUN.finditer(statement):
        if noun.group("compound"):
            if _normal([noun.group()]).removesuffix("s") in known or noun.group("compound").lower() in known:
                continue
            runs = [(noun.start(), [noun.group()])]
        else:
            runs = [(start, [*words, noun.group()]) for start, words in _modifier_runs(statement, noun.start())]
        for start, words in runs:
            if any(_normal(words[i:-1]) in known or _normal(words[i:-1]).removesuffix("s") in known for i in range(len(words) - 1)):
                continue
            closest = tuple(difflib.get_close_matches(_normal(words[:-1] or words), identifier_kinds(), n=3, cutoff=0.0))
            out.append(UncoveredKind(" ".join(words), start, closest))
    return out


def describe_uncovered(kinds: list[UncoveredKind]) -> str:
    """"'Zorblax numbers' (closest known: ...)" for messages."""
    return "; ".join(f"'{k.phrase}' (closest known kinds: {', '.join(k.closest)})" for k in kinds)
