"""National identity, tax and social-insurance numbers, validated by python-stdnum.

Each :class:`NationalNumber` kind names its ``python-stdnum`` module (which
holds the format and the check digits), the words a policy statement uses
for it and the cue words that mark it in text.  Most of these formats are
ambiguous on their own: nine digits with a Luhn check digit are a Canadian
SIN one time in ten, so :class:`NationalNumberRecognizer` reports a
candidate only when a cue of *some* national-number kind stands shortly
before it and the module of *some* kind accepts it ("his SIN is 130 692 544",
"Steuer-ID 36 574 261 809", "Aadhaar 2345 6789 0124").

Candidates are digit groups joined by single spaces, hyphens, dots or
slashes, with up to two letters attached at the end (Irish PPS numbers), or
single alphanumeric tokens holding a digit (Indian PAN, Italian codice
fiscale, Spanish NIE); a candidate that fails as a whole is retried on its
leading groups, so "130 692 544 12" still yields the SIN.  The kinds listed
here are also what lint knows as identifier kinds (:mod:`policy_engine.detect.kinds`).
A policy's ``countries`` limit the checks to those countries' kinds (the cues
stay shared: "tax id" announces the number of whichever listed country).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from policy_engine.detect.checksums import stdnum_module
from policy_engine.detect.recognizers import CONTEXT_WINDOW, Hit
from policy_engine.nlp.sentences import sentence_spans


@dataclass(frozen=True)
class NationalNumber:
    """One national number kind: its stdnum module, the names statements use, its cue words in text."""

    kind: str
    country: str
    module: str
    names: tuple[str, ...]
    cues: tuple[str, ...]


#: Acronym cues are matched case-sensitively ("PAN", not "pan"), longer cues in any case.
KINDS: tuple[NationalNumber, ...] = (
    NationalNumber("PPS number", "IE", "ie.pps", ("pps number", "ppsn", "personal public service number"), ("PPS", "PPSN", "personal public service")),
    NationalNumber("social insurance number", "CA", "ca.sin", ("social insurance number", "sin"), ("SIN", "social insurance", "NAS")),
    NationalNumber("business number", "CA", "ca.bn", ("business number",), ("BN", "business number")),
    NationalNumber("tax file number", "AU", "au.tfn", ("tax file number", "tfn"), ("TFN", "tax file")),
    NationalNumber("Australian business number", "AU", "au.abn", ("abn", "australian business number"), ("ABN", "australian business number")),
    NationalNumber("Australian company number", "AU", "au.acn", ("acn", "australian company number"), ("ACN", "australian company number")),
    NationalNumber("Aadhaar number", "IN", "in_.aadhaar", ("aadhaar", "aadhaar number", "uid number"), ("aadhaar", "aadhar", "UIDAI", "UID")),
    NationalNumber("PAN", "IN", "in_.pan", ("pan", "pan card", "pan card number", "permanent account number"), ("PAN", "permanent account number")),
    NationalNumber("tax identification number", "DE", "de.idnr", ("steuer-id", "steuerid", "tax identification number", "tax id", "idnr"), ("steuer-id", "steuerid", "steuer-idnr", "identifikationsnummer", "tax id", "tax identification", "IdNr")),
    NationalNumber("Steuernummer", "DE", "de.stnr", ("steuernummer", "tax number"), ("steuernummer", "StNr", "tax number")),
    NationalNumber("social security number", "US", "us.ssn", ("social security number", "ssn"), ("SSN", "social security")),
    NationalNumber("individual taxpayer identification number", "US", "us.itin", ("itin", "taxpayer identification number"), ("ITIN", "taxpayer identification")),
    NationalNumber("employer identification number", "US", "us.ein", ("ein", "employer identification number"), ("EIN", "employer identification")),
    NationalNumber("NHS number", "GB", "gb.nhs", ("nhs number",), ("NHS",)),
    NationalNumber("unique taxpayer reference", "GB", "gb.utr", ("utr", "unique taxpayer reference"), ("UTR", "unique taxpayer reference")),
    NationalNumber("burgerservicenummer", "NL", "nl.bsn", ("bsn", "burgerservicenummer", "citizen service number"), ("BSN", "burgerservicenummer", "citizen service number")),
    NationalNumber("NIR", "FR", "fr.nir", ("nir", "numéro de sécurité sociale", "insee number"), ("NIR", "INSEE", "sécurité sociale", "securite sociale")),
    NationalNumber("DNI", "ES", "es.dni", ("dni",), ("DNI",)),
    NationalNumber("NIE", "ES", "es.nie", ("nie",), ("NIE",)),
    NationalNumber("codice fiscale", "IT", "it.codicefiscale", ("codice fiscale",), ("codice fiscale", "CF")),
    NationalNumber("personnummer", "SE", "se.personnummer", ("personnummer", "personal identity number"), ("personnummer", "personal identity number")),
    NationalNumber("CPR number", "DK", "dk.cpr", ("cpr", "cpr number"), ("CPR",)),
    NationalNumber("PESEL", "PL", "pl.pesel", ("pesel",), ("PESEL",)),
    NationalNumber("fødselsnummer", "NO", "no.fodselsnummer", ("fødselsnummer", "fodselsnummer", "birth number"), ("fødselsnummer", "fodselsnummer")),
    NationalNumber("henkilötunnus", "FI", "fi.hetu", ("henkilötunnus", "hetu"), ("henkilötunnus", "HETU")),
    NationalNumber("IRD number", "NZ", "nz.ird", ("ird", "ird number"), ("IRD",)),
    NationalNumber("AHV number", "CH", "ch.ssn", ("ahv", "avs", "ahv number"), ("AHV", "AVS")),
    NationalNumber("Belgian national number", "BE", "be.nn", ("rijksregisternummer", "national register number"), ("rijksregisternummer", "national register", "numéro national")),
)
#: Cues every kind shares: a statement-neutral way of writing that a national number follows.
GENERIC_CUES = ("national id", "national identity", "identity number", "id number", "personal number", "tax id", "tax number", "taxpayer")


def _is_acronym(cue: str) -> bool:
    return cue.isupper() or (cue[:1].isupper() and any(ch.isupper() for ch in cue[1:]))


def _cue_index() -> dict[str, re.Pattern[str]]:
    """Cues by their first word (acronyms as written, other cues lower-cased): one anchored pattern per first word.

    Looking up each word of a text in this index is much cheaper than running one alternation of all cues at
    every position.
    """
    by_first: dict[str, set[str]] = {}
    for cue in {c for k in KINDS for c in k.cues} | set(GENERIC_CUES):
        key = re.split(r"[\s-]", cue)[0]
        by_first.setdefault(key if _is_acronym(cue) else key.lower(), set()).add(cue)
    index = {}
    for key, cues in by_first.items():
        alternatives = "|".join(re.escape(c) if _is_acronym(c) else f"(?i:{re.escape(c)})" for c in sorted(cues, key=len, reverse=True))
        index[key] = re.compile(rf"(?:{alternatives})(?:s|'s)?(?![\w-])")
    return index


_CUES = _cue_index()
_WORD_START = re.compile(r"(?<![\w-])[^\W\d_][\w]*")


def _cue_ends(text: str) -> Iterator[int]:
    """The end of every national-number cue in ``text``."""
    for word in _WORD_START.finditer(text):
        token = word.group()
        pattern = _CUES.get(token) or _CUES.get(token.lower())
        if pattern is not None and (cue := pattern.match(text, word.start())) is not None:
            yield cue.end()


#: Digit groups joined by one separator, up to two letters attached at the end; or one alphanumeric token with a digit.
_CANDIDATE = re.compile(r"(?<![\w/-])(?:\d+(?:[ ./-]\d+){0,6}(?:[A-Z]{1,2}|[ ][A-Z](?![\w]))?|(?=[A-Z0-9]*\d)[A-Z][A-Z0-9]{5,17})(?![\w/-])")
#: The cue and the candidate are in one clause: no semicolon between them (sentence ends come from the one splitter).
_CLAUSE_MARK = ";"


def kinds_of(countries: tuple[str, ...] = ()) -> tuple[NationalNumber, ...]:
    """The kinds of ``countries`` (ISO 3166-1 alpha-2); every kind when none are named."""
    return tuple(k for k in KINDS if k.country in countries) if countries else KINDS


def valid_national_number(value: str, countries: tuple[str, ...] = ()) -> bool:
    """Whether the check digits of some national-number kind of ``countries`` accept ``value``."""
    return any(stdnum_module(kind.module).is_valid(value) for kind in kinds_of(countries))


def _longest_valid(text: str, start: int, end: int, countries: tuple[str, ...]) -> tuple[int, int] | None:
    """The candidate, or its longest run of leading groups, that some kind accepts."""
    value = text[start:end]
    cuts = [m.start() for m in re.finditer(r"[ ./-]", value)] + [len(value)]
    for cut in reversed(cuts):
        if sum(ch.isalnum() for ch in value[:cut]) >= 6 and valid_national_number(value[:cut], countries):
            return start, start + cut
    return None


@functools.lru_cache(maxsize=64)
def national_number_spans(text: str, countries: tuple[str, ...] = ()) -> tuple[tuple[int, int], ...]:
    """Spans of national numbers of ``countries`` in ``text`` (memoized: the ``ssn`` and ``identifier`` recognizers both ask)."""
    spans: dict[tuple[int, int], None] = {}
    sentence_ends = [end for _, end in sentence_spans(text, lines="paragraph")]
    for cue_end in _cue_ends(text):
        sentence_end = sentence_ends[min(bisect.bisect_right(sentence_ends, cue_end), len(sentence_ends) - 1)] if sentence_ends else len(text)
        window_end = min(len(text), cue_end + CONTEXT_WINDOW, max(sentence_end, cue_end))
        if (mark := text.find(_CLAUSE_MARK, cue_end, window_end)) != -1:
            window_end = mark + 1
        for candidate in _CANDIDATE.finditer(text, cue_end, window_end):
            if (span := _longest_valid(text, *candidate.span(), countries)) is not None:
                spans[span] = None
    return tuple(spans)


@dataclass(frozen=True)
class NationalNumberRecognizer:
    """National numbers after a national-number cue, confirmed by their stdnum check (see the module docstring)."""

    name: str
    score: float = 0.9
    countries: tuple[str, ...] = ()

    def find(self, text: str) -> Iterator[Hit]:
        for start, end in national_number_spans(text, self.countries):
            yield Hit(self.name, start, end, self.score)
