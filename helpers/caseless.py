"""Stage 8 — persistence (notebook 08): the caseless forms text is matched in.

`caseless` (case only: NFKC, then Unicode casefold; accents kept) is what consolidation compares
words in and what the keyword index holds; `loose` (`helpers.text.fold`, the one folding of case,
width and accents, with every dash and apostrophe one character) is what `forget(matching=)`
compares, so an erasure typed without accents still reaches the note. Both are for comparing and
indexing, never for the text a note keeps.
"""

from __future__ import annotations

import unicodedata

from helpers.text import fold


def caseless(text: str) -> str:
    """The caseless form used for matching: NFKC, then Unicode casefold ("ZÜRICH" -> "zürich")."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


# Latin letters Unicode does not decompose into a base letter and an accent ("Øresund", "Łódź",
# "Ærø"), and the other ways of writing an apostrophe.
_PLAIN = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "ð": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ŀ": "l",
                        "æ": "ae", "œ": "oe", "þ": "th", "’": "'", "‘": "'", "ʼ": "'", "′": "'"})


def loose(text: str) -> str:
    """`helpers.text.fold` (case, width, accents, invisible characters), with the Latin letters
    Unicode does not decompose made plain: what `forget(matching=)` compares, so "Zurich" erases
    "Zürich", "Lodz" erases "Łódź" and "Aero" erases "Ærø" (a user who types without accents means
    the same place; an erasure may take a little more than asked, never less). Every dash is "-"
    and every apostrophe "'", so a number or a name typed on another keyboard still matches.
    Hangul stays decomposed (NFD), so a text folded one character at a time (the audit's masking)
    matches the same text folded whole."""
    plain = unicodedata.normalize("NFD", fold(text)).translate(_PLAIN)
    return "".join("-" if unicodedata.category(c) == "Pd" else c for c in plain)


__all__ = ["caseless", "loose"]
