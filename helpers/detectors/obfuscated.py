"""Words disguised letter by letter, read plainly: "p@ssw0rd", "pa$$word", "pass-word", "p a s s w o r d".

The gate (notebook 02) matches credential labels ("password is ..."); a reader slips one past by
writing the label in leetspeak, with a hyphen inside it or with its letters spaced out. `unmasked`
folds those once, and only for words that become a word the caller names (`is_label`), so the
value that follows ("hunter22") is left as it was. Linear: fixed-width character classes only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_LEET = str.maketrans("0134578@$!|", "oieastbasii")
# A token with at least one letter and a leet digit or symbol in it, hyphens allowed inside.
_MASKED = re.compile(r"(?<![\w@$!|])[A-Za-z0-9@$!|]+(?:-[A-Za-z0-9@$!|]+)*")
# Letters spaced out one by one: "p a s s w o r d", "p.a.s.s.w.o.r.d".
_SPACED = re.compile(r"(?<![A-Za-z])[A-Za-z](?:[ .\-_*+~]{1,2}[A-Za-z]){3,}(?![A-Za-z])")


def unmasked(text: str, is_label: Callable[[str], bool]) -> str:
    """`text` with each disguised word that reads as a label (`is_label(word)`) written plainly."""
    def fold(match: re.Match[str]) -> str:
        token = match.group()
        plain = token.translate(_LEET).replace("-", "").lower()
        return plain if plain != token.lower() and is_label(plain) else token

    def join(match: re.Match[str]) -> str:
        plain = re.sub(r"[^A-Za-z]", "", match.group()).lower()
        return plain if is_label(plain) else match.group()

    return _MASKED.sub(fold, _SPACED.sub(join, text))
