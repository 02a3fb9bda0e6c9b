"""Telephone numbers of many countries, recognised by ``phonenumbers`` (Google's libphonenumber).

The library knows every country's numbering plan: which lengths are
possible, which ranges are assigned (valid), how numbers are grouped when
written.  :class:`PhoneRecognizer` takes each digit run of telephone shape
(7 to 15 digits, optionally ``+`` or ``00`` first, grouped by spaces, dots,
hyphens or an area code in parentheses, optionally an extension, never
cut short before a further digit) and asks
the library about it, for the regions of :attr:`PhoneRecognizer.regions`
(a broad default; a policy serving other countries passes its own):

* written internationally (``+353 87 123 4567``, ``0044 20 ...``): a
  possible number of the country code it names;
* written nationally: a valid (assigned) number of a region, grouped as the
  library writes that region's numbers (``(02) 9374 4000`` as Australia
  does, ``087 765 4321`` as Ireland does), so a date ("12.05.2023"), a
  reference ("1234-555-0100") or a bare digit run ("account 7646585305") is not;
* after a telephone cue ("call", "mobile", "fax" ...): any possible number
  of one of the regions, however it is grouped ("Phone 7646585305");
* never a span of two years ("office manager 2019-2023"), cued or not.

A bare extension ("ext. 2083") is a hand-written pattern: the library parses
extensions only as part of a full number, and a transcript often gives the
extension alone.  ``phonenumbers`` is imported on first use, not when the
registry is built (lint builds the registry without engine dependencies).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from types import ModuleType

from policy_engine.detect.recognizers import CONTEXT_WINDOW, Hit

#: Regions tried when a policy names none: North America, the British Isles, Oceania, India and the EU/EFTA countries.
DEFAULT_REGIONS: tuple[str, ...] = (
    "US", "CA", "GB", "IE", "AU", "NZ", "IN", "ZA", "SG",
    "DE", "FR", "NL", "BE", "LU", "ES", "PT", "IT", "AT", "CH", "SE", "DK", "NO", "FI", "PL", "CZ", "GR",
)  # fmt: skip
#: Words that announce a telephone number, also inflected ("called", "texts", "ringing").
PHONE_CUE = re.compile(
    r"\b(?:phone|tel|telephone|mobile|cell|fax|call|contact|reach|desk|office|text|whatsapp|ring|landline|messages?\s+to)(?:e?s|e?d|ing)?\b",
    re.IGNORECASE,
)
_CANDIDATE = re.compile(
    r"(?<![\w+/.-])(?P<number>(?:\+|00)?(?:\(\d{1,5}\)|\d)(?:[ .-]?(?:\(\d{1,5}\)|\d)){6,16})"
    r"(?P<ext>[ ]?(?:x|ext\.?|extension)[ ]?\d{1,5})?(?![\w/]|-\d|[ .-]?\d)",
    re.IGNORECASE,
)
#: An extension on its own (see the module docstring for why this one is hand-written).
BARE_EXTENSION = re.compile(r"\b(?:ext|extension)\.?\s?\d{2,5}\b", re.IGNORECASE)
#: Two years joined by a hyphen: a period ("2019-2023"), which a cue such as "office" would otherwise let pass.
_YEARS = re.compile(r"(?P<first>(?:19|20)\d\d)-(?P<last>(?:19|20)\d\d)")


def _period(candidate: str) -> bool:
    """Whether ``candidate`` is a span of years, the second later than the first."""
    match = _YEARS.fullmatch(candidate)
    return match is not None and int(match["first"]) < int(match["last"])


@cache
def _library() -> ModuleType:
    import phonenumbers

    return phonenumbers


def _groups(text: str) -> list[str]:
    return re.findall(r"\d+", text)


@lru_cache(maxsize=4096)
def phone_number(candidate: str, regions: tuple[str, ...], cued: bool) -> bool:
    """Whether ``candidate`` (no extension) is a telephone number by the rules of the module docstring (memoized)."""
    international = candidate.startswith(("+", "00"))
    if not (international or cued) and len(_groups(candidate)) < 2:
        return False  # a bare digit run is a phone number only after a cue
    if _period(candidate):
        return False
    lib = _library()
    for region in ("ZZ",) if international else regions:
        try:
            number = lib.parse("+" + candidate[2:] if candidate.startswith("00") else candidate, region)
        except lib.NumberParseException:
            continue
        if not lib.is_possible_number(number):
            continue
        if international or cued:
            return True
        groups = _groups(candidate)
        if len(groups) >= 2 and lib.is_valid_number(number) and _groups(lib.format_number(number, lib.PhoneNumberFormat.NATIONAL)) == groups:
            return True
    return False


@dataclass(frozen=True)
class PhoneRecognizer:
    """Telephone numbers of :attr:`regions` (ISO 3166 codes) and bare extensions."""

    name: str
    regions: tuple[str, ...] = DEFAULT_REGIONS
    score: float = 0.8

    def find(self, text: str) -> Iterator[Hit]:
        for match in _CANDIDATE.finditer(text):
            cued = PHONE_CUE.search(text, max(0, match.start() - CONTEXT_WINDOW), match.start()) is not None
            if phone_number(match.group("number"), self.regions, cued):
                yield Hit(self.name, match.start(), match.end(), min(1.0, self.score + 0.15) if cued else self.score)
        for match in BARE_EXTENSION.finditer(text):
            yield Hit(self.name, match.start(), match.end(), self.score)
