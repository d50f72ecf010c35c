"""The phrase tables (data/phrases/*.yaml) and how helpers.detectors.phrases compiles them."""

import re

import pytest

from helpers.detectors.normalize import _visible
from helpers.detectors.phrases import group, table
from helpers.paths import data_dir

TABLES = sorted(p.stem for p in (data_dir() / "phrases").glob("*.yaml"))
CLASSES = [(name, cls) for name in TABLES for cls in table(name)]


def _plain(entries, stem=r"\w*"):
    """The same class as a plain alternation, without the trie."""
    folded = {_visible(str(e)).lower() for e in entries}
    return "(?:" + "|".join(stem.join(map(re.escape, e.split("*"))) for e in folded) + ")"


@pytest.mark.parametrize("name", TABLES)
def test_every_table_says_what_it_is_at_its_head(name):
    head = (data_dir() / "phrases" / f"{name}.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith("# ")


@pytest.mark.parametrize("name, cls", CLASSES)
def test_every_class_is_keyed_by_language_and_holds_words(name, cls):
    node = table(name)[cls]
    assert isinstance(node, dict) and node
    for lang, entries in node.items():
        assert re.fullmatch(r"[a-z]{2}|other", str(lang)), (cls, lang)
        assert entries and all(isinstance(e, str) and e.strip() for e in entries), (cls, lang)


@pytest.mark.parametrize("name, cls", CLASSES)
def test_the_trie_matches_what_the_plain_alternation_matches(name, cls):
    entries = [str(e) for entries in table(name)[cls].values() for e in entries]
    trie = re.compile(group(name, cls), re.IGNORECASE)
    plain = re.compile(_plain(entries), re.IGNORECASE)
    probes = set()
    for e in entries:
        word = _visible(e).lower()
        probes |= {word.replace("*", ""), word.replace("*", "ing"), word.replace("*", "") + "s",
                   word.replace("*", "")[:-1], word.replace("*", "") + " x"}
    for probe in probes:
        assert bool(trie.fullmatch(probe)) == bool(plain.fullmatch(probe)), (cls, probe)
        assert bool(trie.search(probe)) == bool(plain.search(probe)), (cls, probe)
    # Every entry is matched as written (an open ending by nothing at all too).
    for e in entries:
        assert trie.fullmatch(_visible(e).lower().replace("*", "")), (cls, e)


def test_a_class_of_one_language_holds_only_that_languages_words():
    german = re.compile(group("directive_foreign", "tell", lang="de"), re.IGNORECASE)
    assert german.fullmatch("erwahne") and german.fullmatch("sag")
    assert not german.fullmatch("dites")


def test_templates_fill_word_classes_and_fragments_row_by_row():
    from helpers.detectors.phrases import either, templates

    table = """
# a comment
PART:
    (?:a|b)
sig:
    x<PART>
    <cls>
sig:
    z
"""
    rows = templates(table, lambda cls: f"[{cls}]", {"OTHER": "o"})
    assert rows == {"PART": ["(?:a|b)"], "sig": ["x(?:a|b)[cls]", "z"]}
    assert either(rows["sig"]) == "(?:x(?:a|b)[cls])|(?:z)"
    with pytest.raises(KeyError):
        templates("sig:\n    <MISSING>\n", str)
    with pytest.raises(ValueError):
        templates("sig:\nnot indented\n", str)
