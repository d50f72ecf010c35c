"""Payment data: card numbers (card-shaped groups with a Luhn checksum, or labelled as a card's),
part of a number labelled as the card's, IBANs (mod 97, in any case, labelled or not) and card
security codes.

A card's last four digits alone are not payment data: they are printed on every receipt (PCI DSS
lets them be shown), nobody can charge a card with them, and they are how a user says which card
to use ("use the Visa ending 4242 for hotel bookings" is a preference). Four digits right after
"card number" or "card starts" are refused (`_card_part`): there they are part of the number.
A detector family of the write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations

import re


from helpers.detectors.checksums import _digit_runs, iban_valid, luhn_valid
from helpers.detectors.cues import _CARD_WORDS, _ID_CUES
from helpers.detectors.labelled import labelled_card
from helpers.detectors.normalize import _I, _any


def card_shaped(groups: list[str]) -> bool:
    digits = "".join(groups)
    if not 13 <= len(digits) <= 19:
        return False
    lens = [len(g) for g in groups]
    # Printed in fours, or in blocks of eight ("55937741 65127855"): groups of multiples of four.
    return (len(groups) == 1 or all(n == 1 for n in lens) or lens in ([4, 6, 5], [4, 6, 4])
            or (all(n % 4 == 0 for n in lens[:-1]) and (1 <= lens[-1] <= 4 or lens[-1] % 4 == 0)))

_CARD_CUE = re.compile(_CARD_WORDS + r"\b[^.\d\n]{0,25}$", _I)
# "Card number starts 4929 1234", "card no. 5678 9012": part of a number labelled as the card's is
# the card's too (the last four are refused above; a note never needs any of its digits).
_CARD_PART_CUE = re.compile(
    _CARD_WORDS + r"\b[^.\d\n]{0,25}?(?:\b(?:numbers?|no|num|nr|digits?|starts?|starting|begins?|"
    r"beginning|prefix|continues|continued|continuing|rest|remaining|half|part)\b|#)"
    r"(?:\s+(?:is|are|with|of|reads?|goes))?[\s:=#.-]*$", _I)
_YEAR = re.compile(r"(?:19|20)\d\d")
# "the Visa ending 4242", "last four digits 4242": the last four alone, which pass (module docstring).
_LAST_FOUR = re.compile(r"\b(?:ending|ends|last|final|trailing)\b[^\d\n]{0,20}$", _I)


def _card_part(text: str, start: int, groups: list[str]) -> bool:
    """A run of four digits or more right after a card number's label ("card number starts"), or
    printed in fours after a card word ("Visa 4929 1234"); a year alone is not one."""
    digits = "".join(groups)
    if len(digits) < 4 or (len(groups) == 1 and _YEAR.fullmatch(digits)):
        return False
    before = text[max(0, start - 50):start]
    if len(digits) == 4 and _LAST_FOUR.search(before):
        return False
    label = _CARD_PART_CUE.search(before) or (
        _CARD_CUE.search(before[-40:]) if len(groups) >= 2 and all(len(g) == 4 for g in groups)
        else None)
    # "visa form, tax file number ...", "Visa number ...": an ID document's number, not a card's.
    return label is not None and _ID_CUES.search(label.group()) is None


def _has_card_number(text: str) -> bool:
    if labelled_card(text):
        return True
    for start, groups in _digit_runs(text):
        # "card number 4111 1111 1111 1112": right after a card word, a card-shaped number is
        # blocked
        # even when its checksum fails, since a mistyped card number is still nearly the card.
        labelled = _CARD_CUE.search(text[max(0, start - 40):start]) is not None
        if card_shaped(groups) and (labelled or luhn_valid("".join(groups))):
            return True
        if _card_part(text, start, groups):
            return True
    return False


# Printed IBANs: upper case, in groups of four (the last group may be shorter).
_IBAN_SHAPE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")


def _has_iban(text: str) -> bool:
    if re.search(r"\biban\b\s*(?:no\.?|number|#)?\s*(?:is|:)?\s*[A-Z]{2}\d{2}", text, _I):
        return True  # labelled as an IBAN: block even with a typo in the checksum
    # In any case, labelled or not ("gb82 west 1234 ..."): the mod-97 checksum decides.
    return any(iban_valid(m.group()) for m in _IBAN_SHAPE.finditer(text.upper()))


_cvv = _any(
    # The label may sit a few words from the value ("security code on the back of her Visa is 402").
    r"\b(?:cvv2?|cvc2?|csc|cid|card security code|security code|(?:card )?verification value|"
    r"card verification code|"
    r"cvn|kartenprufnummer|prufnummer|sicherheitscode|cryptogramme(?: visuel)?|"
    r"codigo de seguridad|codice di sicurezza|codigo de seguranca)\b"
    r"[^\d\n]{0,40}?(?<![\d-])(?:\d{3,4}|\d(?:[ -]\d){2,3})\b(?![-/.]\d)",
    r"\b(?:three|3|four|4)[ -]digits? (?:code )?on the back\b[^\d\n]{0,12}\d{3,4}\b",
)
