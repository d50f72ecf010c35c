"""Labelled values, in any language: a label noun followed by a value of the right shape.

What a secret, an ID number or a date of birth shares across languages is not its wording but
its structure: a label ("PIN", "hasło", "パスワード", "رقم الهوية") and, in the same sentence, a
value shaped like a code — digits (in any script: the note is read with 0-9), a token mixing
letters and digits, digits spelled out as words, digits read out one by one after a word for
"code", a word after a colon, a copula or in quotes. A guess is its structure too: a word of
inference, or a weak hedge ("maybe") beside a sensitive trait of the person. The labels, digit
words, hedges and traits are data (data/phrases/labels.yaml, data/phrases/guesses.yaml), so a
reader can add a language without writing a pattern. A label alone is never refused ("Prefers not to be asked
for her passport"); nor is a value alone (prices, dates, flight numbers are other rules' work).
A detector family of the write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations

import re
from functools import cache

from helpers.detectors.phrases import _spellings, _unspaced, pattern, table

def _label(cls: str) -> re.Pattern[str]:
    return pattern("labels", cls)


@cache
def _digit_word() -> str:
    spaced: set[str] = set()
    unspaced: set[str] = set()
    for entries in table("labels")["digits"].values():
        for entry in entries:
            for word in _spellings(str(entry)):
                (unspaced if _unspaced(word) else spaced).add(re.escape(word))
    one = (r"(?:\d|(?<![^\W\d_])(?:" + "|".join(sorted(spaced, key=len, reverse=True)) + r")(?![^\W\d_])|"
           + "|".join(sorted(unspaced, key=len, reverse=True)) + ")")
    return one


# The rest of the sentence after a label: a value must stand there. A full stop (or "!", "?")
# ends it only when a space or the end follows ("14.03.1979", "ت.ز", "Tulp!2024" stay whole).
_SENTENCE_END = re.compile(r"[;\n\u3002\uff01\uff1f\u061f\u0964]|[.!?](?:\s|$)")
_WINDOW = 40


def _after(text: str, pattern: re.Pattern[str]) -> list[str]:
    windows = []
    for match in pattern.finditer(text):
        rest = text[match.end():match.end() + _WINDOW]
        end = _SENTENCE_END.search(rest)
        windows.append(rest[:end.start()] if end else rest)
    return windows


_SEP = r"[ \t\-./\u00b7\u30fb\u3001\u060c,]{0,2}"
_DIGITS_3 = re.compile(rf"\d(?:{_SEP}\d){{2,}}")
_DIGITS_5 = re.compile(rf"\d(?:{_SEP}\d){{4,}}")
_DIGITS_12 = re.compile(rf"\d(?:{_SEP}\d){{11,}}")
# A token that mixes letters and digits ("Tulp!2024", "24B71", "sakura0412", "P8452137").
_MIXED = re.compile(r"(?<!\S)[\"'\u00ab\u201c]?(?=[^\s]*\d)(?=[^\s]*[^\W\d_])[^\s,;()\"'\u00bb\u201d]{4,}")
# A document number: Latin letters and at least four digits ("AK1234567", "L01X00T47").
_MIXED_ID = re.compile(r"(?<![A-Za-z0-9-])(?=[A-Za-z-]*\d(?:[A-Za-z-]*\d){3})[A-Za-z0-9][A-Za-z0-9-]{4,19}"
                       r"(?![A-Za-z0-9-])")
# Numbers that are dates or year ranges, not documents ("9/2026", "2024-2025", "14.03.2029").
_DATE_LIKE = re.compile(r"\d{1,2}[./-]\d{4}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}(?:[./-]\d{1,2})?|"
                        r"(?:19|20)\d\d ?[-/] ?(?:19|20)?\d\d")
_TIME_OR_PRICE = re.compile(r"^\d{1,2}[:h]\d{2}$|^\d+(?:[.,]\d+)?(?:%|€|\$|£|¥|k|km|kg|h|min)$", re.IGNORECASE)
# A word value after a colon or an equals sign, in quotes, or after a dash right after the label.
_WORD_VALUE = re.compile(r"(?:[:=\uff1a]|^\s*(?:[-\u2013\u2014]|is|ist|est|es|e|je|jest)\s|"
                         r"[\"'\u00ab\u201c\u201e\u300c\u300e\u2018])\s*[\"'\u00ab\u201c\u201e\u300c\u300e]?[^\W_]")
_BOOKING_CODE = re.compile(r"(?<![\w-])(?-i:(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]{4,9})(?![\w-])|"
                           r"(?<!\d)\d{6,12}(?!\d)")
# A full date: three numbers, eight digits, or a day and a year with a month word between.
_DATE = re.compile(r"\d{1,4}\D{1,3}\d{1,2}\D{1,3}\d{1,4}|(?<!\d)(?:19|20)\d{6}(?!\d)|"
                   r"(?<!\d)\d{1,2}\D{2,14}(?<!\d)(?:19|20)\d\d(?!\d)")


@cache
def _spelled_run(digits: int) -> re.Pattern[str]:
    return re.compile(rf"{_digit_word()}(?:[\s,\u060c\u3001\u30fb\-]*{_digit_word()}){{{digits - 1},}}", re.IGNORECASE)


def _spelled(window: str, digits: int = 3) -> bool:
    return _spelled_run(digits).search(window) is not None


def _code_shaped(window: str, digits: re.Pattern[str]) -> bool:
    for token in _MIXED.finditer(window):
        if not _TIME_OR_PRICE.match(token.group().strip("\"'\u00ab\u201c")):
            return True
    return digits.search(window) is not None or _spelled(window)


# Four to eight digits read out one by one ("7 7 1 3", "7-7-1-3"): how a code is told, not a number.
_READ_OUT = re.compile(r"(?<![\d.,:/])\d(?:[ \-]\d){3,7}(?![\d.,:/])")


def labelled_secret(text: str) -> bool:
    """A credential label with a code after it ("hasło: Tulp!2024", "PIN ni 7 3 5 1"), a word for
    "code" with digits read out one by one after it ("Eshik kodi 6 1 3 8"), or a label whose value
    is a word, with that word after a colon or in quotes ("Kodovoe slovo - «...»")."""
    if any(_code_shaped(w, _DIGITS_3) for w in _after(text, _label("secret"))):
        return True
    if any(_READ_OUT.search(w) for w in _after(text, _label("code"))):
        return True
    return any(_WORD_VALUE.search(w) or _copula_value().search(_own_clause(w))
               for w in _after(text, _label("secret_word")))


def _own_clause(window: str) -> str:
    """The window up to the end of the label's clause (a comma or a word such as "and", "und"):
    a copula beyond it belongs to another clause ("Passwort vergessen und setzt es lieber ...")."""
    end = _clause_end().search(window)
    return window[:end.start()] if end else window


@cache
def _clause_end() -> re.Pattern[str]:
    return re.compile(rf",|{_label('clause_breaks').pattern}", re.IGNORECASE)


@cache
def _copula_value() -> re.Pattern[str]:
    """A copula, then a word: "(...) es Canela", "ist Bello"."""
    return re.compile(rf"(?:{_label('copula').pattern})\s*[\"'\u00ab\u201c]?[^\W_]", re.IGNORECASE)


def labelled_card(text: str) -> bool:
    """A card or bank-account label with a long number after it (twelve digits or more, grouped
    or spelled out), whatever its checksum: a number read out by the user is still theirs."""
    return any(_DIGITS_12.search(w) or _spelled(w, 12) for w in _after(text, _label("card")))


def _years_only(number: str) -> bool:
    """ "2019 2029", "2024/25": years side by side, not a document number."""
    groups = re.findall(r"\d+", number)
    return all(re.fullmatch(r"(?:19|20)\d\d|\d\d", g) for g in groups) and bool(_YEAR.match(groups[0]))


_YEAR = re.compile(r"(?:19|20)\d\d$")


def _id_number(window: str) -> bool:
    numbers = [m.group() for m in _DIGITS_5.finditer(window)] + [m.group() for m in _MIXED_ID.finditer(window)]
    return any(not _DATE_LIKE.fullmatch(n.strip()) and not _years_only(n) for n in numbers)


def labelled_identifier(text: str) -> bool:
    """An ID label with a number after it: five digits or more, or letters with four digits."""
    return any(_id_number(w) for w in _after(text, _label("identifier")))


def labelled_booking(text: str) -> bool:
    """A booking label with a reference after it: capitals and digits, or six digits or more."""
    return any(_BOOKING_CODE.search(w) for w in _after(text, _label("booking")))


def labelled_birth(text: str) -> bool:
    """A birth label with a full date after it (three numbers, in any order and script)."""
    return any(_DATE.search(w) for w in _after(text, _label("birth")))


def guessed(text: str) -> bool:
    """A word that marks an inference about the person ("wirkt", "chyba", "たぶん", "يبدو"),
    outside the fixed phrases that hold one without guessing ("chyba że": unless)."""
    return _label("guess").search(_label("not_guess").sub(" ", text)) is not None


def _sentences(text: str) -> list[str]:
    return _SENTENCE_END.split(text)


def hedged_trait(text: str) -> bool:
    """A weak hedge ("maybe", "vielleicht", "ndoshta", "也许") and a sensitive trait of the person
    ("pregnant", "muslim", "in debt") in one sentence: a guess about them. The hedge alone is a
    tentative plan ("maybe Lisbon in May") and passes; the words are data/phrases/guesses.yaml."""
    hedge, trait = pattern("guesses", "hedge"), pattern("guesses", "trait")
    return any(hedge.search(s) and trait.search(s) for s in _sentences(text))


__all__ = ["guessed", "hedged_trait", "labelled_birth", "labelled_card", "labelled_booking", "labelled_identifier", "labelled_secret"]
