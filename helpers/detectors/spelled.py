"""Dates written in words, as digits: "the fourth of July nineteen eighty-five" -> "4th of July 1985".

The gate (notebook 02) reads a date of birth in digits; a reader who writes it in words slips it
past. `dates_in_digits` rewrites ordinal day words and year words so the same rule reads both.
Linear: one pass of a word tokeniser, no regex backtracking.
"""

from __future__ import annotations

import re

_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9}
_TEENS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_ORDINAL_UNITS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                  "seventh": 7, "eighth": 8, "ninth": 9}
_ORDINAL_TEENS = {"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
                  "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                  "nineteenth": 19, "twentieth": 20, "thirtieth": 30}
_WORD = re.compile(r"[A-Za-z]+")


def _ordinal(words: list[str], i: int) -> tuple[int, int] | None:
    """(day, words used) for an ordinal day at words[i]: "fourth", "twenty-first", "thirtieth"."""
    w = words[i]
    if w in _ORDINAL_UNITS or w in _ORDINAL_TEENS:
        return (_ORDINAL_UNITS.get(w) or _ORDINAL_TEENS[w]), 1
    if w in ("twenty", "thirty") and i + 1 < len(words) and words[i + 1] in _ORDINAL_UNITS:
        return _TENS[w] + _ORDINAL_UNITS[words[i + 1]], 2
    return None


def _below_hundred(words: list[str], i: int) -> tuple[int, int] | None:
    w = words[i] if i < len(words) else ""
    if w in _TEENS:
        return _TEENS[w], 1
    if w in _TENS:
        if i + 1 < len(words) and words[i + 1] in _UNITS:
            return _TENS[w] + _UNITS[words[i + 1]], 2
        return _TENS[w], 1
    if w in ("oh", "o") and i + 1 < len(words) and words[i + 1] in _UNITS:
        return _UNITS[words[i + 1]], 2  # "nineteen oh five"
    return None


def _year(words: list[str], i: int) -> tuple[int, int] | None:
    """(year, words used): "nineteen eighty-five", "two thousand (and) three", "twenty twelve"."""
    if words[i] == "two" and i + 1 < len(words) and words[i + 1] == "thousand":
        j = i + 2 + (i + 2 < len(words) and words[i + 2] == "and")
        rest = _below_hundred(words, j) or (
            (_UNITS[words[j]], 1) if j < len(words) and words[j] in _UNITS else None)
        return (2000 + rest[0], j - i + rest[1]) if rest else (2000, 2)
    century = _TEENS.get(words[i]) or (20 if words[i] == "twenty" else None)
    if century in (19, 20) and (rest := _below_hundred(words, i + 1)):
        return century * 100 + rest[0], 1 + rest[1]
    return None


def dates_in_digits(text: str) -> str:
    """The text with ordinal days and years in words written as digits; other words as they were."""
    spans = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    words = [w for _, _, w in spans]
    out, last, i = [], 0, 0
    while i < len(words):
        found = _year(words, i)
        value = None if found is None else str(found[0])
        if found is None and (found := _ordinal(words, i)):
            value = f"{found[0]}th"
        if found is None or value is None:
            i += 1
            continue
        start, end = spans[i][0], spans[i + found[1] - 1][1]
        out += [text[last:start], value]
        last, i = end, i + found[1]
    return "".join(out) + text[last:]
