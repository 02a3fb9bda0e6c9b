"""Check-digit algorithms of structured identifiers.

A recognizer that matches the *shape* of a card, IBAN or routing number
confirms it with its check digits before reporting it, which removes most
false positives (any 16-digit number is not a card number).
"""

from __future__ import annotations


def digits_of(value: str) -> str:
    """The decimal digits of ``value`` in order, separators dropped."""
    return "".join(ch for ch in value if ch.isdigit())


def luhn_valid(value: str) -> bool:
    """ISO/IEC 7812 Luhn (mod 10) check of a payment card number (12-19 digits)."""
    number = digits_of(value)
    if not 12 <= len(number) <= 19:
        return False
    total = 0
    for position, char in enumerate(reversed(number)):
        digit = int(char)
        if position % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def iban_valid(value: str) -> bool:
    """ISO 13616 IBAN check: country code, two check digits, mod 97 == 1."""
    compact = "".join(value.split()).upper()
    if not 15 <= len(compact) <= 34 or not compact[:2].isalpha() or not compact[2:4].isdigit() or not compact.isalnum():
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def aba_valid(value: str) -> bool:
    """ABA routing transit number check: weights 3, 7, 1 repeated, sum divisible by 10."""
    number = digits_of(value)
    if len(number) != 9 or number == "000000000":
        return False
    return sum(weight * int(d) for weight, d in zip((3, 7, 1) * 3, number)) % 10 == 0


def ssn_plausible(value: str) -> bool:
    """US SSN structure rules: area not 000, 666 or 9xx; group not 00; serial not 0000."""
    number = digits_of(value)
    if len(number) != 9:
        return False
    area, group, serial = number[:3], number[3:5], number[5:]
    return area not in ("000", "666") and not area.startswith("9") and group != "00" and serial != "0000"
