"""Identifiers: government ID numbers (labelled, or bare with a checksum), booking references,
loyalty and account numbers, dates of birth (in digits or in words), street and network
addresses. A detector family of the write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations

import re

from collections.abc import Iterable

from stdnum.ar import cuit
from stdnum.be import nn
from stdnum.br import cnpj, cpf
from stdnum.ch import ssn as ahv
from stdnum.cl import rut
from stdnum.cn import ric
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.se import personnummer
from stdnum.au import tfn
from stdnum.in_ import aadhaar

from helpers.detectors.checksums import _digit_runs, luhn_valid
from helpers.detectors.cues import _CARD_WORDS, _ID_CUES
from helpers.detectors.labelled import labelled_birth, labelled_booking, labelled_identifier
from helpers.detectors.normalize import _I, _any
from helpers.detectors.secrets import _SECRET_WORD
from helpers.detectors.spelled import dates_in_digits


# An ID value: digits in groups (at least five), or letters then at least four digits ("PA1234567").
_ID_VALUE = r"(?:[*x#]{2,}[ -]?)?(?:\d[\d -]{3,22}\d|(?=(?:[A-Z-]*\d){4})[A-Z][A-Z0-9-]{4,20})\b"
_DATE_SHAPES = re.compile(
    r"^(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}[/.-]\d{1,2}[/.-]\d{1,2}|(?:19|20)\d{2}(?:0[1-9]|"
    r"1[0-2])"
    r"(?:0[1-9]|[12]\d|3[01]))$"
)
# A value that could be a document number: letters and at least five digits, or six or more digits.
_ID_TOKEN = re.compile(
    r"(?<![\w$€£¥-])(?=[A-Z0-9-]*\d)(?=(?:[A-Z-]*\d){5})[A-Z0-9][A-Z0-9-]{4,19}(?![\w-])", _I)
_MONEY_AFTER = re.compile(
    r"^\s*(?:k\b|aud|usd|eur|gbp|jpy|nzd|cad|sgd|inr|yen|euros?|dollars?|pounds?|rupees?|points|"
    r"miles|km|kg)",
    _I)


# Document numbers printed in capitals that mix letters with only a few digits (German passports:
# "C3T9RK71M"): eight to twelve characters, three digits or more.
_ID_CAPS_TOKEN = re.compile(r"(?<![\w-])(?=(?:[A-Z]*\d){3})(?=\d*[A-Z])[A-Z0-9]{8,12}(?![\w-])")


def _id_values(text: str) -> Iterable[str]:
    """Values in the text that could be an identity document's number."""
    yield from (m.group() for m in _ID_CAPS_TOKEN.finditer(text))
    for match in _ID_TOKEN.finditer(text):
        value = match.group()
        if _DATE_SHAPES.match(value) or _MONEY_AFTER.match(text[match.end():]):
            continue
        yield value
    for _start, groups in _digit_runs(text):
        value = "-".join(groups)
        if len(groups) > 1 and sum(map(len, groups)) >= 6 and not _DATE_SHAPES.match(value):
            yield value


def _bare_government_id(text: str) -> bool:
    """Numbers whose shape or checksum names the document, with no cue needed."""
    for start, groups in _digit_runs(text):
        if text[max(0, start - 1):start] == "+":
            continue  # an international phone number
        lens, digits = [len(g) for g in groups], "".join(groups)
        if lens == [3, 2, 4] or lens == [2, 7]:  # US SSN / ITIN, US EIN
            return True
        if lens == [3, 3, 3] and (luhn_valid(digits) or tfn.is_valid(digits)):  # Canada SIN, AU TFN
            return True
        if lens == [4, 4, 4] and aadhaar.is_valid(digits):  # Aadhaar (python-stdnum: Verhoeff)
            return True
        if lens == [2, 3, 3, 3]:  # Australian business number
            return True
        if lens == [6, 7]:  # Korean resident registration number
            return True
    return _bare_id_shapes(text)


_LABEL_KEYWORD = re.compile(
    rf"(?:[\w'-]+ ){{0,2}}(?:{_SECRET_WORD}|{_CARD_WORDS}(?: number)?|cvv2?|cvc2?|security code|"
    rf"iban|"
    r"account(?: number)?)", _I)


_bare_id_shapes = _any(
    r"\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b",  # UK NINO
    r"\b[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]\b",  # India PAN
    r"\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b",  # Italy codice fiscale
    r"\b[STFGM]\d{7}[A-Z]\b|\b[XYZ]\d{7}[A-Z]\b|\b\d{8}[A-Z]\b",  # Singapore NRIC, Spain NIE / DNI
    r"\b[A-Z]{1,2}\d{6,8}[A-Z0-9]?\b",  # passport and licence numbers: letters then many digits
    r"\b[A-Z]{3}\d{7}\b",  # India voter ID (EPIC)
    r"\b[A-Z]{2}\d{5}[A-Z]{2}\b",  # Italian identity card
    r"\b[A-Z]{2}-?\d{1,2}-?[A-Z]{1,3}-?\d{4}\b",  # Indian vehicle registration
    r"\b\d{6}[-+A]\d{3}[0-9A-Y]\b",  # Finnish personal identity code
    flags=0,
)


# National numbers printed in their own format, each with a check digit (python-stdnum validates):
# the printed shape finds a candidate in one pass, the checksum decides. A price ("1.200.000") or a
# phone number has neither the shape nor the checksum.
_FORMATTED_IDS = (
    (r"\d{3}\.\d{3}\.\d{3}-\d{2}", cpf),  # Brazil CPF: 529.982.247-25
    (r"\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}", cnpj),  # Brazil CNPJ
    (r"756\.\d{4}\.\d{4}\.\d{2}", ahv),  # Swiss AHV/AVS: 756.9217.0769.85
    (r"\d{1,2}\.\d{3}\.\d{3}-[\dK]", rut),  # Chile RUT: 12.345.678-5
    (r"\d{2}-\d{8}-\d", cuit),  # Argentina CUIT
    (r"\d{4}\.\d{2}\.\d{3}", bsn),  # Dutch BSN: 1112.22.333
    (r"\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}", nn),  # Belgian national number
    (r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", nir),  # French NIR
    (r"\d{6}[-+]\d{4}", personnummer),  # Swedish personnummer
    (r"\d{3} \d{3} \d{4}", nhs),  # NHS number
    (r"[A-Z]{4}\d{6}[HM][A-Z]{5}[0-9A-Z]\d", curp),  # Mexican CURP
    (r"\d{17}[\dX]", ric),  # Chinese resident identity number
)
_FORMATTED_ID = re.compile("|".join(rf"(?<![\w.-])(?P<f{i}>{shape})(?![\w-]|[./]\d)"
                                    for i, (shape, _module) in enumerate(_FORMATTED_IDS)))


def _formatted_national_number(text: str) -> bool:
    """A national number as its document prints it, with a valid check digit (see _FORMATTED_IDS)."""
    for match in _FORMATTED_ID.finditer(text.upper()):
        group = match.lastgroup or "f0"  # every alternative is a named group f<i>
        module = _FORMATTED_IDS[int(group[1:])][1]
        if module.is_valid(match.group()):
            return True
    return False


def _government_id(text: str) -> bool:
    if _bare_government_id(text) or labelled_identifier(text) or _formatted_national_number(text):
        return True
    # A cue anywhere (the text or a keyword) and a value that could be the document's number.
    # "Hilton Honors ID 998877665" is a membership number: the account_number rule's business.
    cued = _ID_CUES.search(_LOYALTY_ID.sub(" ", text)) is not None
    return cued and any(True for _ in _id_values(text))

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_network_address = _any(
    rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\d.]|\.\d)",  # IPv4
    # IPv6
    r"\b(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}\b|\b(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}:?){1,6}\b",
    r"\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b",  # MAC
)

_STREET_TYPES = (
    r"(?:Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Place|Pl|Terrace|Tce|"
    r"Parade|Pde|Crescent|Cres|Highway|Hwy|Close|Square|Sq|Way|Grove|Circuit|Cct)"
)
# "42 Wallaby Way", "12B George St": a house number, capitalised name words, a street type.
# Case-sensitive on purpose, so "2 blocks from George Street" is not an address.
_named_street = _any(
    rf"\b\d{{1,5}}[A-Za-z]?(?:/\d{{1,5}})?,?\s+(?:[A-Z][\w'.-]*\s+){{1,4}}{_STREET_TYPES}\b", flags=0,
)
_labelled_address = _any(
    r"\bp\.? ?o\.? box\s*\d+|\b(?:p\.?o\.? box|post office box|apartment|apt\.?|unit|flat|suite)"
    r"\s*#?\s*\d+[A-Z]?\b[^.\n]{0,30}\d",
    r"\b(?:home|street|postal|mailing|billing|residential|delivery) address\b",
    r"\baddress\s*(?:is|:)\s*\S+",
    r"\b(?:lives|living|resides|residing) at (?:number |no\.? )?\d",
)


def _street_address(text: str) -> bool:
    return _named_street(text) or _labelled_address(text)


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_FULL_DATE = (
    r"(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}[/.-]\d{1,2}[/.-]\d{1,2}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?(?: of)? {_MONTH},? \d{{4}}|{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}})"
)
_date_of_birth_digits = _any(
    r"\b(?:dob|d\.o\.b\.?|date of birth|birth ?date)\b[^\n]{0,12}?\d",
    rf"\bborn\b[^.\n\d]{{0,25}}?{_FULL_DATE}",
    # "birthday is 14 March 1988" but not "a birthday trip on 14 December 2026"
    rf"\bbirth ?day\b(?:\s*(?:is|was|on|falls on|:))*\s*{_FULL_DATE}",
)



def _date_of_birth(text: str) -> bool:
    """A date of birth in digits, or in words ("born on the fourth of July nineteen eighty-five")."""
    return (_date_of_birth_digits(text) or _date_of_birth_digits(dates_in_digits(text))
            or labelled_birth(text))


# A reference value: letters mixed with digits ("XK7P2Q"), six or more digits, or six capitals ("QWERTY").
_REF_VALUE = r"(?:(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,12}|\d{6,}|(?-i:[A-Z]{6}))\b"
_booking_reference_en = _any(
    r"\b(?:booking|confirmation|reservation|record locator|locator|pnr|e-?ticket|ticket|itinerary|order|"
    r"reference|ref|conf|voucher)\b\s*(?:number|no\.?|#|code|ref(?:erence)?|id|locator)?\s*(?:is|was|:|=)?\s*"
    # An airline or system prefix may come first ("QF-XK7P2L", "LH XK7P2L").
    r"(?:[A-Z0-9]{2,3}[-/ ])?" + _REF_VALUE,
)


def _booking_reference(text: str) -> bool:
    return _booking_reference_en(text) or labelled_booking(text)


_LOYALTY_PROGRAMS = (
    r"(?:skymiles|velocity|qantas frequent flyer|frequent flyer|frequent flier|ff|krisflyer|asia miles|avios|"
    r"aadvantage|mileageplus|miles&more|miles and more|flying blue|executive club|marriott bonvoy|bonvoy|"
    r"hilton honors|ihg one rewards|world of hyatt|loyalty|rewards|membership|member|customer|client)"
)
_LOYALTY_ID = re.compile(
    rf"\b{_LOYALTY_PROGRAMS}\s*(?:account |acct |card )?(?:number|no\.?|#|num|id)\b", _I)
_account_number = _any(
    rf"\b{_LOYALTY_PROGRAMS}\s*(?:account |acct |card )?(?:number|no\.?|#|num|id)\s*(?:is|was|:|=)?\s*"
    + _ID_VALUE,
    # "Velocity member 1234 567 890": the digits may come in groups, as printed on the card.
    rf"\b{_LOYALTY_PROGRAMS}\s*(?:is|:)?\s*\d(?:[ -]?\d){{5,}}",
    # Account labels in other languages and abbreviated ("acc no", "Kontonummer", "numero de cuenta").
    r"\b(?:account|acct\.?|acc\.?|a/c|kontonummer|konto(?:-?nr\.?)?|rekeningnummer|rekening|"
    r"numero de (?:compte|cuenta|conta)|numero di conto|n(?:o|um)\.? de (?:compte|cuenta))"
    r"\s*(?:number|no\.?|nr\.?|#|num)?\s*(?:is|was|ist|est|es|:|=)?\s*" + _ID_VALUE,
    # Bank and branch codes: UK sort code, AU BSB, US routing/ABA, DE BLZ, IN IFSC, FR RIB, MX CLABE.
    r"\b(?:bsb|routing number|sort code|swift|bic|blz|aba(?: number)?|ifsc|rib|clabe|"
    # (a value, not a word: "ne veut pas que son RIB soit enregistre" gives none)
    r"bankleitzahl|transit number)\b\s*(?:is|:)?\s*(?:(?=[A-Z-]*\d)[A-Z0-9-]{4,}|(?-i:[A-Z]{6}[A-Z0-9]{2,5}\b))",
    # Crypto wallets: Bitcoin (legacy and bech32), Ethereum.
    r"\b(?:bc1[a-z0-9]{25,59}|[13][a-km-zA-HJ-NP-Z1-9]{25,34})\b|\b0x[a-fA-F0-9]{40}\b",
    r"(?<![\d.,])\d{9,}(?![\d.,])",  # a long bare number: an account or ID, never a preference
)
