"""Checksums and digit groups: what separates a real card, bank or ID number from an ordinary
number (a budget, a time, a seat). Used by the payment and identifier detectors (notebook 02
builds Luhn from scratch; this is the library's copy).

Digit groups may be split by any one to three marks that are not letters or digits, a line
break or up to three spaces: what counts is the shape of the groups and their checksum.
"""

from __future__ import annotations

import re




# ---------------------------------------------------------------------------
# Checksums: they separate real card and bank numbers from ordinary numbers.
# ---------------------------------------------------------------------------

def luhn_valid(digits: str) -> bool:
    """The Luhn checksum every payment card number carries."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616: move the first four characters to the end, letters to numbers, mod 97 == 1."""
    iban = re.sub(r"[ -]", "", candidate).upper()
    if not 15 <= len(iban) <= 34 or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


# Digit groups and the one separator a writer might put between them: "-", ".", "/", "_", "|", "~", "*",
# a line break, " - " or spaces. Colons and commas are left out: they separate times and lists.
# A separator between digit groups: one to three marks that are neither letters nor digits
# (",", "+", ";", ":", "_", ")(", "] ["), a line break or up to three spaces: what a reader types to
# break a number up, as a class, not a list.
_SEP = r"(?:[ \t]*(?:(?:[^\w\s]|_)[ \t]*){1,3}|[ \t]*\n[ \t]*|[ \t]{1,3})"
_GROUPED_RUN = re.compile(rf"(?<![\w.-])\d+(?:{_SEP}\d+)*(?![\w])")


def _digit_runs(text: str) -> list[tuple[int, list[str]]]:
    """Each run of digit groups in the text: (start offset, the groups)."""
    return [(m.start(), re.findall(r"\d+", m.group())) for m in _GROUPED_RUN.finditer(text)]
