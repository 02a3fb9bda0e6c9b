"""Check digits of the structured identifiers the corpora contain.

The corpora must carry *valid* identifiers (Luhn card numbers, ISO 13616
IBANs, ABA routing numbers) so that checksum-validating recognizers fire on
them; the generator asserts each value with these functions.
"""

from __future__ import annotations


def digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def luhn_valid(number: str) -> bool:
    """Luhn (mod 10) check used by payment card numbers."""
    ds = [int(d) for d in digits(number)]
    if len(ds) < 12:
        return False
    total = 0
    for i, d in enumerate(reversed(ds)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """ISO 13616 mod-97 check of an IBAN (spaces allowed)."""
    compact = iban.replace(" ", "").upper()
    if len(compact) < 15 or not compact[:2].isalpha() or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    numeric = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(numeric) % 97 == 1


def aba_valid(routing: str) -> bool:
    """ABA routing number check: 3-7-1 weighted digit sum divisible by 10."""
    ds = [int(d) for d in digits(routing)]
    if len(ds) != 9:
        return False
    return sum(w * d for w, d in zip([3, 7, 1] * 3, ds)) % 10 == 0


def group(number: str, size: int = 4) -> str:
    """Write a number in space-separated groups (``4539 1488 0343 6467``)."""
    compact = number.replace(" ", "")
    return " ".join(compact[i : i + size] for i in range(0, len(compact), size))
