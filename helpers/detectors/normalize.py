"""Read a note as a person would, before any rule looks. Used by the write gate (notebook 02).

Invisible characters (format characters, combining marks, variation selectors) are dropped,
look-alike letters from other scripts become the Latin letter they imitate (Unicode TR39 via
confusable-homoglyphs), exotic dashes become "-", digits spelled out become digits, and base64
strings that decode to text are read too: each is a cheap way to slip a value past a pattern.
`_any` builds a detector from patterns (all linear: no nested unbounded quantifiers).
"""

from __future__ import annotations

import base64
import binascii
import re

from helpers.detectors import prefilter
import unicodedata

from collections.abc import Callable
from functools import cache



_I = re.IGNORECASE


# ---------------------------------------------------------------------------
# Normalisation: match what a reader sees, not how it was encoded.
# ---------------------------------------------------------------------------

# Characters a reader does not see, beyond category Cf and the combining marks (Mn, Me) dropped
# below:
# Hangul fillers and the Braille blank render as blank space but count as letters.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
_DASHES = re.compile("[\u2010-\u2015\u2212\u2043\ufe58\ufe63\uff0d]")
_SPACES = re.compile(r"[^\S\n]+")
# A run of line breaks (blank lines between) is one break: what a rule reads stays the same, and a
# pattern that starts at each break and scans the whitespace after it stays linear.
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")
_LINE_BREAKS = re.compile(r"\r\n?|[\u2028\u2029\x0b\x0c\x85]")
_DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4",
                "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
_DIGIT_WORD = "(?:" + "|".join(_DIGIT_WORDS) + r"|\d)"
# Three or more digits spelled out ("four eight two one"); "one or two bags" is not a run.
_SPELLED_RUN = re.compile(rf"\b{_DIGIT_WORD}(?:[\s,-]+{_DIGIT_WORD}){{2,}}\b", re.IGNORECASE)


# The first code point of each run of decimal digits 0-9 in Unicode (Arabic-Indic, Persian,
# Devanagari, Bengali, Thai, full-width, ...): a number reads the same in any script.
_DIGIT_ZEROS = (0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
                0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
                0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50,
                0xABF0, 0xFF10)
_ASCII_DIGITS = {zero + i: str(i) for zero in _DIGIT_ZEROS for i in range(10)}


@cache
def _confusables() -> dict[int, str]:
    """Look-alike letters from other scripts mapped to the Latin letter or digit they imitate.

    The table is Unicode's confusables list (TR39) as shipped by `confusable_homoglyphs`; a capital
    letter whose prototype is l maps to I instead, so "Іgnore" reads "Ignore".
    """
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for char, entries in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        latin = [e["c"] for e in entries
                 if len(e["c"]) == 1 and e["c"].isascii() and e["c"].isalnum()]
        if not latin:
            continue
        name = unicodedata.name(char, "")
        spelled = name.rsplit(" ", 1)[-1]
        if latin[0] == "l" and " CAPITAL " in name:  # TR39's prototype of I is l
            table[ord(char)] = "I"
        else:
            table[ord(char)] = next((c for c in latin if c.upper() == spelled), latin[0])
    return table


# Latin letters with a stroke or ligatures have no decomposition to strip: fold them by hand.
_STROKES = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ħ": "h",
                          "ı": "i", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                          "þ": "th", "ð": "d"})


def _visible(text: str) -> str:
    """Drop what a reader cannot see and fold look-alikes, so the rules see what a reader reads."""
    text = unicodedata.normalize("NFKC", _LINE_BREAKS.sub("\n", text))
    if not text.isascii():
        # Digits first: some look like letters ("۵" like "o", "০" like "O") to the table below.
        text = text.translate(_ASCII_DIGITS)
        decomposed = unicodedata.normalize("NFD", text)
        kept = "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Cf", "Mn", "Me")
                       and ch not in _BLANK_LETTERS)
        text = unicodedata.normalize("NFC", kept).translate(_STROKES).translate(_confusables())
    return text




def _spell_digits(match: re.Match[str]) -> str:
    words = re.findall(_DIGIT_WORD, match.group(), re.IGNORECASE)
    if all(w.isdigit() for w in words):
        return match.group()  # "rows 1, 2, 3": digits already, leave the separators
    return "".join(_DIGIT_WORDS.get(w.lower(), w) for w in words)


def _normalize(text: str) -> str:
    # Invisible characters, look-alike letters, exotic dashes and digits spelled out are cheap ways
    # to sneak a value past a pattern; fold them all before any rule looks.
    text = _visible(text)
    text = _DASHES.sub("-", text)
    text = _SPELLED_RUN.sub(_spell_digits, text)
    return _BLANK_LINES.sub("\n", _SPACES.sub(" ", text))


_BASE64 = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{8,}={0,2}(?![\w+/=-])")


def _encoded_payloads(text: str) -> list[str]:
    """Base64 strings that decode to readable text: rules look at what they say, too."""
    payloads = []
    for match in _BASE64.finditer(text):
        token = match.group()
        if token.isalpha() and (token.islower() or token.istitle() or token.isupper()):
            continue  # a word, not an encoding
        try:
            urlsafe = "-" in token or "_" in token
            raw = base64.b64decode(token + "=" * (-len(token) % 4),
                                   altchars=b"-_" if urlsafe else None, validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        readable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
        if len(decoded) >= 6 and readable == len(decoded):
            payloads.append(decoded)
    return payloads


def _any(*patterns: str, flags: int = _I) -> Callable[[str], bool]:
    """A rule check that fires when any of the patterns is found."""
    compiled = [prefilter.compile(p, flags) for p in patterns]
    return lambda text: any(p.search(text) for p in compiled)
