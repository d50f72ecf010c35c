"""Stage 7 — consolidation (notebook 07): what a note claims, and whether another text says the same.

The word-level checks the merge runs on notes: `normalize` and `similarity` (a note reworded),
`is_near_duplicate` (the same fact said again: same numbers, negation, names and hedges),
`related` (the same subject), `unsupported_claims` (what a written note says that its sources do
not), `hedges` (the frequency words that are part of a fact) and `carries` (does one text say all
another says: what erasure uses to find the copies of a forgotten note). No model, no store.
"""

from __future__ import annotations

import re

from helpers.attributes import STATING_WORDS, attributes_of
from helpers.caseless import caseless
from helpers.state import MemoryNote
from helpers.text import STOPWORDS, content_words, stem, topic_words, unsupported

# Two notes whose content words overlap this much (Jaccard) are the same note reworded.
# High on purpose: "prefers an aisle seat" and "prefers aisle seats" fold, "window" vs
# "aisle" does not. Looser paraphrases are the model's job.
NEAR_DUPLICATE_THRESHOLD = 0.8

def normalize(text: str) -> str:
    """Lower case, punctuation removed, whitespace collapsed: exact duplicates compare equal."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _words(text: str) -> tuple[set[str], set[str]]:
    """(content stems, whole numbers) of a text, in any script: a-z words stemmed (stopwords out),
    words in other scripts whole ("Москве", "Zürich"), numbers with their separators."""
    folded = caseless(text)
    words = {token if not token.isascii() else stem(token) for token in _CLAIM_TOKEN.findall(folded)
             if not token[0].isdigit() and token not in STOPWORDS}
    return words, _number_runs(folded)


def similarity(a: str, b: str) -> float:
    """Jaccard overlap of content stems (words in any script); 1.0 for the same note reworded trivially."""
    wa, wb = _words(a)[0], _words(b)[0]
    if not wa | wb:  # nothing but stopwords and numbers: only the same text is the same note
        return 1.0 if normalize(a) == normalize(b) else 0.0
    return len(wa & wb) / len(wa | wb)


def is_near_duplicate(a: str, b: str) -> bool:
    if normalize(a) == normalize(b):
        return True
    (wa, na), (wb, nb) = _words(a), _words(b)
    # Different numbers or a negation on one side make a different fact, however similar, and so
    # does another name: "hotels near the old town in Tallinn ..." is not "... in Riga ...".
    names = {n if not n.isascii() else stem(n) for n in _names(a) + _names(b)}
    return (na == nb and ("not" in wa) == ("not" in wb) and not (wa ^ wb) & names
            and hedges(a) == hedges(b) and similarity(a, b) >= NEAR_DUPLICATE_THRESHOLD)


def _topic(note: MemoryNote) -> set[str]:
    return topic_words(note.text) | {k.lower() for k in note.keywords}


def related(a: MemoryNote, b: MemoryNote) -> bool:
    """Same subject: a shared keyword or content word (not just "prefers")."""
    return bool(_topic(a) & _topic(b))


# Words that put a statement in the past: "Was vegetarian" says what "Is vegetarian" does not.
_PAST = re.compile(
    r"\b(?:was|were|had|used to|formerly|previously|no longer|anymore|any more|ex-|once)\b", re.I)


def unsupported_claims(text: str, source_texts: list[str]) -> list[str]:
    """What `text` says that its sources do not: words, numbers, a flipped negation or tense, or
    subjects recombined ("Moved to Brisbane" from "Lives in Brisbane" + "Moved to Sydney": each
    word has a source, but the sources are about different things, so no source says it)."""
    order_problems = _reordered_names(text, source_texts)  # reads case: before folding
    text, source_texts = caseless(text), [caseless(s) for s in source_texts]
    source_words = {w for source in source_texts for w in content_words(source)[0]}
    source_runs = {r for s in source_texts for r in _number_runs(s)}
    problems = []
    for match in dict.fromkeys(_CLAIM_TOKEN.findall(text)):
        if match[0].isdigit():
            # Whole: "2026-05-12" is not "2026-12-05", though each part is a source's.
            if match.replace(",", "") not in source_runs:
                problems.append(f"number {match!r} is not in its sources")
        elif not match.isascii():
            # Any script (helpers.text.unsupported): TOKEN reads a-z only, so "Zärich" or "Москва"
            # would pass unseen.
            if unsupported(match, source_texts):
                problems.append(f"word {match!r} is not in its sources")
        elif match in _QUALIFYING:
            # Stopwords, but they change what is claimed: "Prefers other seats than aisle".
            if not any(match in _CLAIM_TOKEN.findall(s) for s in source_texts):
                problems.append(f"word {match!r} is not in its sources")
        elif match not in STOPWORDS and stem(match) not in source_words | {"not"}:
            problems.append(f"word {match!r} is not in its sources")
    negated = {"not" in content_words(s)[0] for s in source_texts}
    if negated != {"not" in content_words(text)[0]}:
        problems.append("its negation differs from its sources")
    if _PAST.search(text) and not any(_PAST.search(s) for s in source_texts):
        problems.append("it is in the past tense and no source is")
    if not _one_subject(source_texts):
        problems.append("its sources are about different subjects (it recombines them)")
    # Every word is a source's: are they still in the sources' order where order is the claim?
    return problems or _repaired(text, source_texts) or order_problems


# Stopwords that restrict or turn a claim around: a written note may use one only if a source
# does, and a merge may not drop one a source uses ("only on trains", "under 300", "over Jetstar").
_QUALIFYING = frozenset({"only", "other", "than", "if", "when", "while", "but", "or", "over"})
# Words that restrict a claim, stopwords or not: dropping one widens what the note says.
_RESTRICTING = _QUALIFYING - {"or"} | {
    "under", "above", "below", "before", "after", "more", "less", "most", "least", "fewer",
    "except", "unless", "until", "instead", "rather", "against", "max", "min", "maximum", "minimum"}
# Words that relate what stands on their left to what stands on their right: the same words in
# another order make another claim ("Prefers Qantas over Jetstar" is not "Prefers Jetstar over
# Qantas"; "Qantas to Tokyo, JAL to Osaka" is not "JAL to Tokyo, Qantas to Osaka").
_RELATING = frozenset({"over", "than", "to", "from", "into", "before", "after", "under", "above", "below",
                       "instead", "versus", "vs", "rather", "except", "unless", "until", "against"})


def _claim_sequence(text: str) -> list[tuple[str, str]]:
    """A folded text as (kind, token): "number", "word" (content stems, any script) or "relating"."""
    sequence = []
    for token in _CLAIM_TOKEN.findall(text):
        if token[0].isdigit():
            sequence.append(("number", token.replace(",", "")))
        elif token in _RELATING:
            sequence.append(("relating", token))
        elif not token.isascii():
            sequence.append(("word", token))
        elif token not in STOPWORDS:
            sequence.append(("word", stem(token)))
    return sequence


def _pairings(text: str) -> set[tuple[str, ...]]:
    """What a text pairs with what: (left, relating word, right) around each relating word, the
    nearest claim on each side ("" at an end), and (number, the word right after it): "2 kids"."""
    sequence = _claim_sequence(text)
    pairs: set[tuple[str, ...]] = set()
    for i, (kind, token) in enumerate(sequence):
        if kind == "relating":
            left = next((t for k, t in reversed(sequence[:i]) if k != "relating"), "")
            right = next((t for k, t in sequence[i + 1:] if k != "relating"), "")
            pairs.add((left, token, right))
        elif kind == "number" and i + 1 < len(sequence) and sequence[i + 1][0] == "word":
            pairs.add((token, sequence[i + 1][1]))
    return pairs


def _repaired(text: str, source_texts: list[str]) -> list[str]:
    """The pairings of `text` that no source makes: each word is a source's, but not in that order."""
    said = set().union(*(_pairings(s) for s in source_texts)) if source_texts else set()
    return [f"it pairs {' '.join(p for p in pairing if p)!r}, which no source does"
            for pairing in sorted(_pairings(text) - said)]


_WORDISH = re.compile(r"\d+(?:[-/.:,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*")


def _names(raw: str) -> list[str]:
    """The name-like tokens of a note in order, in any language: capitalised words after the first
    ("Qantas", "Osaka", German nouns) and words with letters outside a-z. (Numbers are read with
    the word after them, by `_pairings`: "1 dog and 2 kids" is "2 kids and 1 dog".)"""
    names = []
    for i, match in enumerate(_WORDISH.finditer(raw)):
        token = match.group(0)
        if token[0].isdigit():
            continue
        if (i > 0 and token[0].isupper()) or not token.isascii():
            names.append(caseless(token))
    return names


def _reordered_names(raw_text: str, raw_sources: list[str]) -> list[str]:
    """Two names the written note puts in an order that a source reverses and none keeps: a word
    order swap in a language whose relating words the rules do not know ("lieber Bus als Zug"
    from "lieber Zug als Bus")."""
    orders = [_names(s) for s in raw_sources]
    written = list(dict.fromkeys(_names(raw_text)))
    problems = []
    for i, first in enumerate(written):
        for second in written[i + 1:]:
            both = [o for o in orders if first in o and second in o]
            if both and not any(o.index(first) < o.index(second) for o in both):
                problems.append(f"it puts {first!r} before {second!r}, which no source does")
    return problems


# How often, or how firmly, a fact holds: part of the fact. "Usually prefers an aisle seat" is not
# "Prefers an aisle seat", and "Rarely drinks coffee" is not "Drinks coffee": a merge that drops
# one of these, or a fold of two notes that differ in them, would change what the user said.
# Frequency and hedge adverbs form a small closed class; these are the English ones and those of
# the other languages the merge reads (German, French, Spanish, Italian, Portuguese, Dutch).
FREQUENCY_WORDS = frozenset("""
usually mostly sometimes rarely seldom often frequently occasionally always never generally normally
typically mainly largely primarily ordinarily commonly regularly habitually
meistens normalerweise gewöhnlich manchmal selten oft häufig immer nie niemals gelegentlich meist
généralement habituellement normalement souvent parfois rarement toujours jamais quelquefois
normalmente generalmente habitualmente frecuentemente siempre nunca raramente usualmente
solitamente spesso sempre mai talvolta geralmente frequentemente
meestal soms zelden vaak altijd nooit gewoonlijk
""".split())
_FREQUENCY_PHRASES = re.compile(
    r"\b(?:most of the time|now and then|from time to time|every now and again|more often than not"
    r"|ab und zu|hin und wieder|la plupart du temps|de temps en temps|de temps à autre|a veces|de vez en cuando"
    r"|rara vez|por lo general|casi siempre|di solito|ogni tanto|a volte|de vez em quando|às vezes)\b")


def hedges(text: str) -> set[str]:
    """The frequency and hedge words of a text (`FREQUENCY_WORDS`, and phrases such as "most of
    the time"), folded: what a merge must keep and what two duplicates must share."""
    folded = caseless(text)
    return ({w for w in _ANY_LETTERS.findall(folded) if w in FREQUENCY_WORDS}
            | set(_FREQUENCY_PHRASES.findall(folded)))


def _restricting(text: str) -> set[str]:
    return {t for t in _CLAIM_TOKEN.findall(text) if t in _RESTRICTING}
# A number with its separators: a date (2026-12-05, 05/12), a time (10:30), an amount (1,200.50).
_NUMBER_RUN = re.compile(r"\d+(?:[-/.:,]\d+)*")
# A word in any script (letters only): what TOKEN's a-z misses.
_ANY_LETTERS = re.compile(r"[^\W\d_]+")
# What a written note claims, in order: numbers whole, words in any script (TOKEN's a-z words
# with their apostrophe, others whole).
_CLAIM_TOKEN = re.compile(_NUMBER_RUN.pattern + r"|[a-z]+(?:'[a-z]+)?(?![^\W\d_])|" + _ANY_LETTERS.pattern)


def _number_runs(text: str) -> set[str]:
    return {r.replace(",", "") for r in _NUMBER_RUN.findall(text)}


def _other_words(text: str) -> set[str]:
    """The words of a folded text that are not plain a-z (accents, other scripts, look-alikes)."""
    return {w for w in _ANY_LETTERS.findall(text) if not w.isascii()}


def _one_subject(texts: list[str]) -> bool:
    """Are the texts linked into one group by shared topic words? (One text always is.)"""
    topics = [topic_words(t) for t in texts]
    linked, reached = set(topics[0]) if topics else set(), {0}
    grew = True
    while grew:
        grew = False
        for i, words in enumerate(topics):
            if i not in reached and words & linked:
                reached.add(i)
                linked |= words
                grew = True
    return len(reached) == len(topics) or not topics


def dropped_words(text: str, source: str) -> set[str]:
    """What the source says that `text` does not: its topic words beyond how a fact is stated,
    its numbers (a budget, a date), its words in other scripts and its frequency and hedge words
    ("usually": `hedges`)."""
    text, said = caseless(text), caseless(source)
    return ((topic_words(said) - topic_words(text) - STATING_WORDS)
            | (_number_runs(said) - _number_runs(text)) | (_other_words(said) - _other_words(text))
            | (_restricting(said) - _restricting(text)) | (hedges(said) - hedges(text)))


def carries(text: str, source: str) -> bool:
    """Does `text` say all that `source` says? True for the two copies consolidation makes of a
    note: a near duplicate folded into it, and a merged note (which may drop none of its sources'
    words). Its attribute values count as content: "Eats meat" replaced "Is vegetarian", it
    does not carry it. Erasure uses this to find the copies of a forgotten note."""
    if is_near_duplicate(text, source):
        return True
    values = topic_words(" ".join(attributes_of(source).values())) - topic_words(caseless(text))
    return not (dropped_words(text, source) or values)


def mentions(text: str, source: MemoryNote) -> bool:
    """Does `text` share a content word with the source (not just "prefers")?"""
    text, said = caseless(text), caseless(source.text)
    return bool(topic_words(text) & topic_words(said) or _other_words(text) & _other_words(said))


__all__ = [
    "FREQUENCY_WORDS", "NEAR_DUPLICATE_THRESHOLD", "carries", "dropped_words", "hedges", "is_near_duplicate",
    "mentions", "normalize", "related", "similarity", "unsupported_claims",
]
