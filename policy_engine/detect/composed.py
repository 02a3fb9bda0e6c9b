"""The recognizer registry extended with international formats, durations and sensitive facts.

:func:`compose` takes the base recognizers of
:mod:`policy_engine.detect.recognizers` and returns the registry the
analyzer uses: each taxonomy recognizer name keeps its base recognizer and
gains the parts below, so a category of ``vocab/categories.yaml`` finds
them without change; new names (``identifier``, ``url``, ``ip_address``,
``nationality``, ``union_membership``) serve the categories appended for
them.

=================  ===========================================================
name               added parts
=================  ===========================================================
zip_code           UK postcodes, Eircodes, Canadian, Australian and Indian codes
street_address     UK/EU letter-style addresses ("Flat 3, 12 High Street",
                   "Lange Gasse 22, 1080 Wien"), unit designators ("Apt 14")
ssn                UK National Insurance numbers, and national identity, tax
                   and social-insurance numbers of many countries after their
                   cue, checked by python-stdnum (:mod:`national_numbers`)
mrn                NHS numbers (mod-11) after a health cue
account_number     bank codes after their name: UK sort codes, BLZ, BSB, BIC/SWIFT
case_number        the generic cue-word identifier (also a few words after its
                   cue, and the value of a form field or table cell)
date               lengths of time that date a fact, not an adverbial's
                   (:mod:`durations`), ordinal days, weekdays, years after
                   a preposition
date_of_birth      birth cue required on the same line (service dates excluded)
money              figures tied to a financial noun ("credit score 712")
relative           family and personal-life states ("going through a divorce",
                   "parental leave")
medical_condition  symptoms, procedures, pregnancy (:mod:`clinical`), therapy,
                   work-related stress
=================  ===========================================================
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from policy_engine.detect import clinical, facts, identifiers, temporal
from policy_engine.detect.checksums import nhs_number_valid
from policy_engine.detect.durations import DurationRecognizer
from policy_engine.detect.listed_ids import ListedIdentifiers
from policy_engine.detect.national_numbers import NationalNumberRecognizer
from policy_engine.detect.recognizers import (
    CompositeRecognizer,
    Hit,
    PatternRecognizer,
    Recognizer,
)

_ID_CONTEXT = re.compile(rf"\b(?:{identifiers.ID_CUES})\b", re.IGNORECASE)
_HEALTH_CONTEXT = re.compile(r"\b(?:nhs|hospital|patient|gp|clinic|health|medical)\b", re.IGNORECASE)


def _generic_identifier(name: str) -> CompositeRecognizer:
    """The cue-word identifier, further identifiers listed after one ("Nos. 46122/2018 and 15243/2019"), a strongly
    shaped identifier a few words after its cue, and the value of a form field or table cell labelled as one."""
    return CompositeRecognizer(
        name,
        (
            _pattern(name, identifiers.IDENTIFIER, score=0.8, contextual=(identifiers.LISTED_ID,), context=_ID_CONTEXT),
            _pattern(name, identifiers.IDENTIFIER_LATER, identifiers.FIELD_ID, score=0.8, validate=identifiers.identifier_shape_valid),
            ListedIdentifiers(name),
        ),
    )


@dataclass(frozen=True)
class BirthDateRecognizer:
    """Dates of birth: a calendar date with a birth cue on its own line and no service or visit cue in between."""

    name: str
    dates: Recognizer

    def find(self, text: str) -> Iterator[Hit]:
        for hit in self.dates.find(text):
            if temporal.birth_cue_before(text, hit.start):
                yield Hit(self.name, hit.start, hit.end, min(1.0, hit.score + 0.15))


def _pattern(name: str, *patterns: re.Pattern[str], score: float = 0.8, **kwargs) -> PatternRecognizer:
    return PatternRecognizer(name, tuple(patterns), score=score, **kwargs)


#: The postcode formats that belong to one country; the line-end postcode and the cue-word zip code serve any.
_NATIONAL_POSTCODES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GB", identifiers.UK_POSTCODE), ("IE", identifiers.EIRCODE), ("CA", identifiers.CA_POSTCODE), ("AU", identifiers.AU_POSTCODE), ("IN", identifiers.IN_PIN),
)


def _extensions(lexicons: Mapping[str, list[str]], countries: tuple[str, ...]) -> dict[str, tuple[Recognizer, ...]]:
    anatomy = lexicons["anatomy"]
    postcodes = tuple(pattern for country, pattern in _NATIONAL_POSTCODES if not countries or country in countries)
    return {
        "zip_code": (_pattern("zip_code", *postcodes, identifiers.LINE_END_POSTCODE, score=0.75),),
        "street_address": (
            _pattern("street_address", identifiers.UK_ADDRESS, identifiers.EU_ADDRESS, identifiers.UNIT, score=0.8),
            _pattern("street_address", identifiers.ADDRESS_BLOCK, score=0.75, validate=identifiers.address_block_valid),
        ),
        "ssn": (_pattern("ssn", identifiers.NINO, score=0.85, validate=identifiers.nino_valid), NationalNumberRecognizer("ssn", countries=countries)),
        "mrn": (_pattern("mrn", identifiers.NHS_NUMBER, score=0.85, validate=nhs_number_valid, context=_HEALTH_CONTEXT, context_required=True),),
        "account_number": (_pattern("account_number", identifiers.BANK_CODE, identifiers.BIC, score=0.85),),
        "case_number": (_generic_identifier("case_number"),),
        "date": (_pattern("date", temporal.ORDINAL_DAY, temporal.YEAR_AFTER_PREPOSITION, temporal.NUMERIC_DATE, score=0.7), DurationRecognizer("date")),
        "money": (_pattern("money", facts.FINANCIAL_FIGURE, score=0.75),),
        "relative": (_pattern("relative", facts.FAMILY_STATE, score=0.75),),
        "medical_condition": (
            _pattern(
                "medical_condition",
                facts.HEALTH_FACT,
                facts.DIAGNOSED_ABBREVIATION,
                clinical.PREGNANCY,
                clinical.procedure_morphology(anatomy),
                clinical.anatomical_procedure(anatomy),
                clinical.symptoms(lexicons["symptom"], anatomy),
                clinical.injuries(anatomy),
                score=0.75,
            ),
        ),
    }


def compose(base: Mapping[str, Recognizer], lexicons: Mapping[str, list[str]], countries: tuple[str, ...] = ()) -> dict[str, Recognizer]:
    """The full registry: ``base`` with the parts of :func:`_extensions` and the new recognizers.

    ``countries`` (ISO 3166-1 alpha-2, empty for all) scope the national postcode formats and national-number kinds.
    """
    out = dict(base)
    for name, parts in _extensions(lexicons, countries).items():
        out[name] = CompositeRecognizer(name, (base[name], *parts))
    birth_years = _pattern("date", temporal.YEAR_AFTER_PREPOSITION, score=0.7)
    out["date_of_birth"] = BirthDateRecognizer("date_of_birth", CompositeRecognizer("date", (base["date"], birth_years)))
    out["identifier"] = CompositeRecognizer("identifier", (_generic_identifier("identifier"), NationalNumberRecognizer("identifier", countries=countries)))
    out["url"] = _pattern("url", identifiers.URL, score=0.9)
    out["ip_address"] = _pattern("ip_address", identifiers.IP_ADDRESS, score=0.85)
    demonyms = "|".join(re.escape(w) for w in sorted(lexicons["nationality"], key=len, reverse=True))
    out["nationality"] = _pattern("nationality", re.compile(rf"(?<![\w-])(?:{demonyms})s?(?![\w-])"), score=0.8)
    out["union_membership"] = _pattern("union_membership", facts.UNION_MEMBERSHIP, score=0.8, validate=facts.trade_union_valid)
    return out
