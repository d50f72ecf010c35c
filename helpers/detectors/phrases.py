"""Per-language phrase tables, as data a reader can open and edit: data/phrases/*.yaml. Notebook 02.

Each table maps a language code (or a word class, then a language code) to a list of words or
phrases. `words(table, *keys)` gives every entry under those keys; `alternation(entries)` turns
them into one regular-expression alternation, each entry escaped and folded as notes are (case,
accents, look-alike letters), longest first; `pattern(table, class)` compiles a class of every
language at once (whole words in scripts with spaces, an entry ending in "*" as a stem, words of
scripts without spaces anywhere). Nothing in the tables is a pattern: a reader adds a word, not a
regular expression.

The grammar that places the classes is code, written once as a table of templates
(`templates`): each a pattern with named slots, `<word_class>` for a class of a table and
`<FRAGMENT>` for a shared piece of grammar, compiled by one function.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

import yaml

from helpers.detectors.normalize import _visible
from helpers.paths import data_dir


@cache
def table(name: str) -> dict[str, Any]:
    """data/phrases/<name>.yaml, parsed with every entry and key read as text: a word such as
    "null" (German zero), "no" (Norwegian) or "on" stays that word, never YAML's null or false."""
    path = data_dir() / "phrases" / f"{name}.yaml"
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)


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


# Scripts written without spaces between words: their entries match anywhere.
_UNSPACED = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER", "MYANMAR")


def _unspaced(word: str) -> bool:
    return unicodedata.name(word[0], "").startswith(_UNSPACED)


def _spellings(entry: str) -> set[str]:
    """The entry folded as notes are, in lower, upper and title case: look-alike letters fold by
    case ("Н" reads "H", "н" does not), so each case is folded on its own."""
    return {_visible(variant).lower() for variant in (entry.lower(), entry.upper(), entry.title())}


@cache
def pattern(name: str, cls: str) -> re.Pattern[str]:
    """One pattern for a class of data/phrases/<name>.yaml (every language): words of spaced
    scripts whole (an entry ending in "*" is a stem), words of unspaced scripts anywhere."""
    spaced: dict = {}
    unspaced: dict = {}
    for entries in table(name)[cls].values():
        for entry in entries:
            stem = str(entry).endswith("*")
            for word in _spellings(str(entry).rstrip("*")):
                if _unspaced(word):
                    _insert(unspaced, word, "")
                else:
                    _insert(spaced, word, r"[^\W\d_]*" if stem else r"(?![^\W\d_])")
    alternatives = []
    if spaced:
        alternatives.append(r"(?<![^\W\d_])" + _regex(spaced))
    if unspaced:
        alternatives.append(_regex(unspaced))
    # Every entry starts with a letter: the lookahead skips all other positions at once.
    return re.compile(r"(?=[^\W\d_])(?:" + "|".join(alternatives) + ")", re.IGNORECASE)


@cache
def group(name: str, cls: str, stem: str = r"\w*", lang: str | tuple[str, ...] | None = None) -> str:
    """A class of data/phrases/<name>.yaml (every language, or `lang`: one or a few) as one regex group,
    for code that places the class inside a larger pattern (the grammar stays code, the words are
    data): each entry folded and escaped, a "*" an open part of a word (`stem`)."""
    langs = (lang,) if isinstance(lang, str) else lang
    chosen = (words(name, cls) if langs is None
              else [str(w) for code in langs for w in table(name)[cls].get(code, [])])
    trie: dict = {}
    for entry in dict.fromkeys(_visible(w).lower() for w in chosen):
        _insert(trie, entry, "")
    return "(?:" + _regex(trie, stem) + ")"


# Entries are merged by their common beginnings (a trie: "tell|tells|telling" reads
# "tell(?:s|ing|)"): the same matches as the longest-first alternation, in fewer steps, since the
# engine no longer tries every entry at every letter of the note.
_END = ""  # a trie key no character can be: an entry ends here, with these tails


def _insert(trie: dict, entry: str, tail: str) -> None:
    """Add `entry` to `trie`, ending in the regex `tail` (what must follow it)."""
    node = trie
    for ch in entry:
        node = node.setdefault(ch, {})
    node.setdefault(_END, set()).add(tail)


def _regex(node: dict, stem: str | None = None) -> str:
    """The regex of a trie built by `_insert`: longer entries first, then the tails that end here;
    with `stem`, a "*" inside an entry is that regex (an open part of a word)."""
    branches = [(stem if ch == "*" and stem is not None else re.escape(ch)) + _regex(child, stem)
                for ch, child in sorted(node.items()) if ch != _END]
    ends = sorted(node.get(_END, ()), key=len, reverse=True)  # an open stem before a whole word
    alternatives = branches + ends
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"


_SLOT = re.compile(r"<([A-Za-z]\w*)>")
_ENTRY = re.compile(r"([A-Za-z]\w*):\s*$")
_INDENT = "    "


def templates(text: str, word_class: Callable[[str], str],
              fragments: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """A table of pattern templates, as regular-expression sources by name.

    The table is text. A line "name:" opens a row; the lines under it, indented four spaces, are
    its template, joined as written (the line breaks are not part of it, so no line starts or
    ends with a space that matters); a line whose first character is "#" (after the indent or not)
    is a comment. A name may open several rows: its value lists them all, in order.
    In a template, `<word>` (lower case) is a word class, `word_class(word)`, and `<WORD>` (upper
    case) a fragment: one of `fragments`, or a row of the table written above it (several rows of
    one fragment: any of them). Rows named in upper case are fragments; the others are the
    patterns a module compiles. Writing the grammar this way keeps each pattern one row of a
    table and its words in data/phrases/*.yaml.
    """
    known = dict(fragments or {})
    rows: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        opening = _ENTRY.match(line)
        if opening:
            name = opening.group(1)
            rows.setdefault(name, []).append("")
            continue
        if name is None or not line.startswith(_INDENT):
            raise ValueError(f"not a template line: {line!r}")
        rows[name][-1] += line[len(_INDENT):]

    def fill(template: str) -> str:
        return _SLOT.sub(lambda m: known[m.group(1)] if m.group(1).isupper() else word_class(m.group(1)),
                         template)

    out = {}
    for name, sources in rows.items():
        out[name] = [fill(t) for t in sources]
        if name.isupper():
            known[name] = either(out[name])
    return out


def either(sources: list[str]) -> str:
    """One source that matches where any of `sources` does."""
    return sources[0] if len(sources) == 1 else "|".join(f"(?:{s})" for s in sources)
