"""Check digits of structured identifiers, from ``python-stdnum``.

A recognizer that matches the *shape* of a card, IBAN or routing number
confirms it with its check digits before reporting it, which removes most
false positives (any 16-digit number is not a card number).  The algorithms
are python-stdnum's (maintained, with published test vectors for dozens of
countries); this module only adapts their inputs (separators, lengths) to
the shapes the recognizers extract.  ``stdnum`` is imported when a value is
checked, not when the registry is built, so lint (which builds the registry
to see which detectors exist) stays free of engine dependencies.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


@cache
def stdnum_module(name: str) -> ModuleType:
    """The python-stdnum module ``stdnum.<name>`` (e.g. ``"ie.pps"``, ``"luhn"``)."""
    return importlib.import_module(f"stdnum.{name}")


def digits_of(value: str) -> str:
    """The decimal digits of ``value`` in order, separators dropped."""
    return "".join(ch for ch in value if ch.isdigit())


def luhn_valid(value: str) -> bool:
    """A payment card number: 12-19 digits passing the ISO/IEC 7812 Luhn check."""
    number = digits_of(value)
    return 12 <= len(number) <= 19 and stdnum_module("luhn").is_valid(number)


def iban_valid(value: str) -> bool:
    """An ISO 13616 IBAN (country format and mod-97 check digits)."""
    return stdnum_module("iban").is_valid(value)


def aba_valid(value: str) -> bool:
    """An ABA routing transit number (nine digits, weights 3-7-1); all zeros is not one."""
    number = digits_of(value)
    return number != "000000000" and stdnum_module("us.rtn").is_valid(number)


def ssn_plausible(value: str) -> bool:
    """A US social security number by SSA's structure rules (area, group and serial, known invalid numbers)."""
    number = digits_of(value)
    return len(number) == 9 and stdnum_module("us.ssn").is_valid(number)


def nhs_number_valid(value: str) -> bool:
    """An NHS number: ten digits with the modulus-11 check digit."""
    return stdnum_module("gb.nhs").is_valid(digits_of(value))
