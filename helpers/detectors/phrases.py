"""Per-language phrase tables, as data a reader can open and edit: data/phrases/*.yaml. Notebook 02.

Each table maps a language code (or a word class, then a language code) to a list of words or
phrases. `words(table, *keys)` gives every entry under those keys; `alternation(entries)` turns
them into one regular-expression alternation, each entry escaped and folded as notes are (case,
accents, look-alike letters), longest first. Nothing here is a pattern: a reader adds a word, not
a regular expression.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

import yaml

from helpers.detectors.normalize import _visible
from helpers.paths import data_dir


@cache
def table(name: str) -> dict[str, Any]:
    """data/phrases/<name>.yaml, parsed."""
    path = data_dir() / "phrases" / f"{name}.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def words(name: str, *keys: str) -> list[str]:
    """Every entry of the table (or of the class under `keys`), all languages, in file order."""
    node: Any = table(name)
    for key in keys:
        node = node[key]
    return [str(w) for entries in node.values() for w in entries]


def alternation(entries: Iterable[str]) -> str:
    """One regex alternation of the entries: folded as notes are, escaped, longest first."""
    folded = dict.fromkeys(_visible(w).lower() for w in entries)
    return "|".join(re.escape(w) for w in sorted(folded, key=len, reverse=True))
