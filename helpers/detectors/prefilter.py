"""Bounded time for many patterns: skip a pattern whose words are not in the text. Notebook 02.

The instruction detectors are some hundred regular expressions, and Python's engine tries each
of them at every position of a note, so a 300-character note of clause marks ("1.1.1...") costs
each pattern its full scan. Most patterns can only match where one of a few literal words stands
("ignore", "tell her", ...). `compile` reads that from the pattern itself (its parse tree: a
literal run every match must contain, or a set of alternatives one of which it must contain) and
checks those words first with plain substring search, which is linear and fast; only when one is
present does the regular expression run. The decision is the same with or without the prefilter
(tests/test_gate_prefilter.py checks it on the corpora); only the time changes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import importlib

# The engine's own parser (re._parser since Python 3.11, sre_parse before): what a pattern needs
# is read from the same parse tree the engine compiles.
_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")
_casefix: Any = importlib.import_module("re._casefix")

# Characters the engine treats as one letter when ignoring case ("ı" and "i", "ſ" and "s"): both
# sides are folded to one of them, so a substring test never says "absent" when the engine matches.
_FOLD: dict[int, int] = {}
for _key, _others in _casefix._EXTRA_CASES.items():
    _low = min((_key, *_others))
    for _ch in (_key, *_others):
        _FOLD[_ch] = _low
_FOLD[0x307] = None  # type: ignore[assignment]  # "İ".lower() is "i" + a combining dot: drop it

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}


def _fold(text: str) -> str:
    return text.lower().translate(_FOLD)


_FINITE_LIMIT = 32


def _finite(items) -> set[str] | None:
    """Every string this sequence can match, when there are few (a group of words: "(?:a(?:gent|i)|
    bot)" reads {"agent", "ai", "bot"}); None when the language is large or open."""
    out = {""}
    for op, av in items:
        if op is _c.LITERAL:
            out = {s + chr(av) for s in out}
        elif op is _c.IN and all(o is _c.LITERAL for o, _ in av):
            out = {s + chr(a) for s in out for _, a in av}
        elif op is _c.SUBPATTERN or op is _c.BRANCH:
            parts: set[str] = set()
            for branch in (av[1] if op is _c.BRANCH else [av[-1]]):
                sub = _finite(branch)
                if sub is None:
                    return None
                parts |= sub
            out = {s + p for s in out for p in parts}
        elif op in _REPEATS and av[0] == 0 and av[1] == 1:
            sub = _finite(av[2])
            if sub is None:
                return None
            out = {s + p for s in out for p in sub | {""}}
        else:
            return None
        if len(out) > _FINITE_LIMIT:
            return None
    return out


def _needed(items) -> frozenset[str] | None:
    """Strings one of which every match of this sequence contains, or None when there are none."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and (best is None or min(map(len, found)) > min(map(len, best))):
            best = found

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider(frozenset({_fold("".join(run))}))
            run = []
        if op is _c.SUBPATTERN or op is _c.BRANCH:
            # A group of words (a trie of a phrase table's class) needs one of its words whole.
            words = _finite(av[-1] if op is _c.SUBPATTERN else [(op, av)])
            if words and min(map(len, words)) >= 2:
                consider(frozenset(_fold(w) for w in words))
        if op is _c.SUBPATTERN:
            consider(_needed(av[-1]))
        elif op is _c.BRANCH:
            branches = [_needed(b) for b in av[1]]
            if all(branches):
                consider(frozenset(word for branch in branches if branch for word in branch))
        elif op in _REPEATS and av[0] >= 1:
            consider(_needed(av[2]))
    if run:
        consider(frozenset({_fold("".join(run))}))
    return best


@lru_cache(maxsize=16)
def _folded(text: str) -> str:
    return _fold(text)


class Prefiltered:
    """A compiled pattern that first checks, by substring, the words any match needs."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.regex = pattern
        self.pattern = pattern.pattern
        self.flags = pattern.flags
        needed = _needed(_parser.parse(pattern.pattern, pattern.flags))
        # A one-letter "word" is in nearly every text: the check would only cost time.
        self.needed = needed if needed and min(map(len, needed)) >= 2 else None

    def _absent(self, text: str) -> bool:
        if self.needed is None:
            return False
        folded = _folded(text)
        return not any(word in folded for word in self.needed)

    def search(self, text: str, *args):
        return None if self._absent(text) else self.regex.search(text, *args)

    def match(self, text: str, *args):
        return None if self._absent(text) else self.regex.match(text, *args)

    def fullmatch(self, text: str, *args):
        return None if self._absent(text) else self.regex.fullmatch(text, *args)

    def finditer(self, text: str, *args):
        return iter(()) if self._absent(text) else self.regex.finditer(text, *args)

    def findall(self, text: str, *args):
        return [] if self._absent(text) else self.regex.findall(text, *args)

    def sub(self, repl, text: str, count: int = 0):
        return text if self._absent(text) else self.regex.sub(repl, text, count)

    def subn(self, repl, text: str, count: int = 0):
        return (text, 0) if self._absent(text) else self.regex.subn(repl, text, count)

    def split(self, text: str, maxsplit: int = 0):
        return [text] if self._absent(text) else self.regex.split(text, maxsplit)

    def __repr__(self) -> str:
        return f"Prefiltered({self.regex!r})"


def compile(pattern: str, flags: int = 0) -> Prefiltered:
    """re.compile, with the substring check in front (same matches, less time on most texts)."""
    return Prefiltered(re.compile(pattern, flags))


__all__ = ["Prefiltered", "compile"]
