"""Stage 2 — capture (notebook 02): fold, tokenise and compare words in any script.

One module for what every stage needs to read text the same way: the capture tool's grounding
(notebook 02), consolidation's validation (notebook 07), trimming's summaries (notebook 06), the
echo test of answers and search (notebook 04).

- `fold(text)`: case, width, accents and invisible characters folded, so "ＺÜＲＩＣＨ", "Zurich"
  and "zu\u200brich" compare equal and "chcę" meets "chce".
- `tokens(text)`: the words and numbers of a text in any script. Scripts written without spaces
  (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) are read as overlapping character pairs, so
  "找车票时" and "帮我找车票的时候" share "找车" and "车票" without a dictionary.
- `unsupported(text, sources)`: the content words of `text` that no source has. The one grounding
  function: a note after a web page must come from the user's words, in Korean as in English.
- `stem(word)`: a light English stemmer ("lives", "living", "lived" meet) kept hand-written on
  purpose: SQLite's porter and PostgreSQL's snowball stem search, this one only compares words.
  Other languages meet by a shared stem-like prefix (`same_word`), not a per-language stemmer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from functools import lru_cache

STOPWORDS = frozenset("""
a an the and or but of to in on at for with by from as is are was were be been being am it its
this that these those i me my mine we our you your they them their he she his her him user users
has have had do does did will would should can could may might also very so than then there
when while into over about just some any each other own same such too up out if only now
""".split())
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "without", "cannot"})
TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[a-z]+(?:'[a-z]+)?")
# Stems of verbs that say how much the user likes something, not what it is about.
NOT_A_TOPIC = frozenset({"prefer", "lik", "want", "lov", "usual", "alway", "need", "not"})


def stem(word: str) -> str:
    # Crude on purpose: enough that "lives", "living", "lived" and "live" meet.
    if word in NEGATIONS or word.endswith("n't"):
        return "not"
    word = word.removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2]:  # preferr -> prefer
        word = word[:-1]
    if len(word) > 2 and word[-1] == "y" and word[-2] not in "aeiouy":  # fly, flies, flied -> fli
        return word[:-1] + "i"
    return word.removesuffix("e") if len(word) > 3 else word


def content_words(text: str) -> tuple[set[str], set[str]]:
    """(content stems, numbers) of a text's a-z words; stopwords are not claims. English only:
    `tokens` and `unsupported` read every script."""
    words, numbers = set(), set()
    for token in TOKEN.findall(text.lower()):
        if token[0].isdigit():
            numbers.add(token.replace(",", ""))
        elif token not in STOPWORDS:
            words.add(stem(token))
    return words, numbers


def topic_words(text: str) -> set[str]:
    """The content stems that say what a text is about: "Prefers window seats" -> {"window", "seat"}."""
    return content_words(text)[0] - NOT_A_TOPIC


# ---- any script ---------------------------------------------------------------------------------

_APOSTROPHES = str.maketrans("\u2018\u2019\u02bc\uff07", "''''")


def fold(text: str) -> str:
    """Compatibility forms, case, accents and invisible format characters (zero-width spaces,
    joiners, bidi marks) folded; the result is NFC. Lossy on purpose, and the same on both sides
    of every comparison: it is for comparing words, never for storing them."""
    text = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES).casefold())
    kept = "".join(ch for ch in text if unicodedata.category(ch) not in ("Mn", "Cf"))
    return unicodedata.normalize("NFC", kept)


# Scripts written without spaces between words: read as character pairs.
_UNSPACED = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x20000, 0x2FFFF),  # CJK extensions B-F
)
_FIRST_UNSPACED = min(lo for lo, _hi in _UNSPACED)  # every letter below it (Latin, Cyrillic...) is spaced


def unspaced(ch: str) -> bool:
    """Is `ch` a letter of a script written without spaces (Han, Kana, Thai, Lao, Khmer, Myanmar)?"""
    code = ord(ch)
    return code >= _FIRST_UNSPACED and any(lo <= code <= hi for lo, hi in _UNSPACED)


def _is_ideograph(ch: str) -> bool:
    code = ord(ch)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x2FFFF


def _ideograph_or_kana(ch: str) -> bool:
    """A character that is a word or a syllable on its own (Han, Kana), unlike a Thai letter."""
    return _is_ideograph(ch) or 0x3040 <= ord(ch) <= 0x30FF or 0x31F0 <= ord(ch) <= 0x31FF


def _word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


def _runs(text: str) -> Iterator[str]:
    """Maximal runs of letters, marks and digits; "don't" and "10:30" and "1,200" stay one run."""
    start = None
    for i, ch in enumerate(text):
        if _word_char(ch):
            if start is None:
                start = i
            continue
        inner = (start is not None and 0 < i < len(text) - 1 and _word_char(text[i + 1])
                 and ((ch == "'" and text[i - 1].isalpha() and text[i + 1].isalpha())
                      or (ch in ".,:" and text[i - 1].isdigit() and text[i + 1].isdigit())))
        if inner:
            continue
        if start is not None:
            yield text[start:i]
            start = None
    if start is not None:
        yield text[start:]


def _pieces(run: str) -> Iterator[str]:
    """A run split where digits meet letters ("qf12" -> "qf", "12") and where an unspaced script
    begins or ends; unspaced stretches become character pairs (a lone character stays one)."""
    kind = None
    piece = ""
    for ch in run:
        k = "digit" if (ch.isdigit() or (ch in ".,:'" and piece[-1:].isdigit())) else (
            "unspaced" if unspaced(ch) else "letter")
        if unicodedata.category(ch)[0] == "M" and kind is not None:
            k = kind  # a combining mark stays with its letter
        if kind is not None and k != kind:
            yield from _pairs(piece) if kind == "unspaced" else (piece,)
            piece = ""
        kind = k
        piece += ch
    if piece:
        yield from _pairs(piece) if kind == "unspaced" else (piece,)


def _pairs(piece: str) -> Iterator[str]:
    if len(piece) == 1:
        yield piece
    for i in range(len(piece) - 1):
        yield piece[i:i + 2]


def tokens(text: str) -> list[str]:
    """The words, numbers and character pairs of a text, folded, in order (duplicates kept)."""
    return list(_tokens(text))


@lru_cache(maxsize=1024)  # one write decision reads the same note and message several times
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(p for run in _runs(fold(text)) for p in _pieces(run))


def _is_number(token: str) -> bool:
    return token[0].isdigit()


def _comparable(token: str) -> str:
    """A number without its thousands commas ("2,000" is "2000"), so that a source and a note that
    write it alike, or one with commas and one without, agree; any other token as it is."""
    return token.replace(",", "") if _is_number(token) else token


def _function_word(token: str) -> bool:
    """A word of one or two letters of an alphabet ("de", "me", "אל", "في") is a function word in
    nearly every language; a Hangul syllable or an ideograph carries a word's meaning, so not those."""
    if stem(token) == "not":
        return False
    letters = [ch for ch in token if unicodedata.category(ch)[0] == "L"]
    return len(letters) <= 2 and not any(unspaced(ch) or 0xAC00 <= ord(ch) <= 0xD7A3 for ch in letters)


def terms(text: str, *, ignore: Collection[str] = ()) -> list[str]:
    """The content tokens of a text in order, once each: stopwords out (English's), negations
    kept (they change a claim), one- and two-letter words of an alphabet out, and any token whose stem is in `ignore`."""
    out = []
    for token in tokens(text):
        if _is_number(token):
            token = token.replace(",", "")
        elif token in STOPWORDS or stem(token) in ignore or token in ignore or _function_word(token):
            continue
        if token not in out:
            out.append(token)
    return out


def same_word(a: str, b: str) -> bool:
    """One word in two inflections: equal, the same English stem, or sharing a prefix of at least
    three letters and three quarters of the longer ("veut" and "veux", "ignora" and "ignorar";
    not "hot" and "hotel")."""
    if a == b:
        return True
    if _is_number(a) or _is_number(b) or unspaced(a[0]) or unspaced(b[0]):
        return False
    if stem(a) == stem(b):
        return True
    shared = 0
    for x, y in zip(a, b):
        if x != y:
            break
        shared += 1
    return shared >= 3 and shared * 4 >= 3 * max(len(a), len(b))


def _shared_run(a: str, b: str) -> tuple[int, int, int]:
    """(length, start in a, start in b) of the longest run of letters `a` and `b` share."""
    best = (0, 0, 0)
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            if k > best[0]:
                best = (k, i, j)
    return best


def _hangul(ch: str) -> bool:
    return 0xAC00 <= ord(ch) <= 0xD7A3


def related_word(a: str, b: str) -> bool:
    """`same_word`, or one word in another inflection or derivation, in any alphabet: a shared run
    of at least four letters (two Hangul syllables) that starts near the front of both words and
    covers two thirds of the shorter ("plannen" and "plan", "perra" and "perros",
    "шукати" and "шукай", "보험이" and "보험"); not "partner" and "apartment"."""
    if same_word(a, b):
        return True
    if _is_number(a) or _is_number(b) or unspaced(a[0]) or unspaced(b[0]):
        return False
    size, at_a, at_b = _shared_run(a, b)
    least = 2 if _hangul(a[0]) and _hangul(b[0]) else 4
    return size >= least and max(at_a, at_b) <= 3 and 3 * size >= 2 * min(len(a), len(b))


class Vocabulary:
    """The tokens of some source texts, to ask of a word whether any source has it."""

    def __init__(self, sources: Iterable[str]):
        self.tokens: set[str] = set()
        self.characters: set[str] = set()
        for source in sources:
            self.tokens.update(_comparable(token) for token in tokens(source))
            self.characters.update(fold(source))
        self._words = [t for t in self.tokens if not _is_number(t) and not unspaced(t[0])]
        self._negated = any(stem(t) == "not" for t in self.tokens)

    def has(self, token: str) -> bool:
        """A number: exactly. A character pair: exactly, or (ideographs) each character somewhere
        in the sources ("票时" when the source says "车票的时候"). A word: in any inflection."""
        token = _comparable(token)
        if token in self.tokens:
            return True
        if _is_number(token):
            return False
        if unspaced(token[0]):
            return all(_is_ideograph(ch) and ch in self.characters for ch in token)
        if stem(token) == "not":
            return self._negated
        return any(same_word(token, w) for w in self._words)

    def near(self, token: str) -> bool:
        """`has`, or close enough for a paraphrase: a word in another inflection or derivation
        (`related_word`), a pair of ideographs or kana whose characters each occur in the sources ("する" when the source says "しないでね" does not: neither "す" nor "る")."""
        if self.has(token):
            return True
        if _is_number(token):
            return False
        if unspaced(token[0]):
            return all(_ideograph_or_kana(ch) and ch in self.characters for ch in token)
        return any(related_word(token, w) for w in self._words)


def in_own_words(text: str, said: str) -> bool:
    """Is every token of `text`, stopwords and pronouns too, one the speaker said? "Never book me
    a room on the ground floor" is in the words of "...from now on never book me a room on the
    ground floor"; "I prefer aisle seats" is not in the words of "Book an aisle seat"."""
    vocabulary = Vocabulary([said])
    return all(vocabulary.has(t) for t in tokens(text))


def unsupported(text: str, sources: Iterable[str], *, ignore: Collection[str] = ()) -> list[str]:
    """The content tokens of `text` (folded, in order) that no source has, in any script.

    A token is a word, a number or (scripts without spaces) a character pair; stopwords and
    tokens whose stem is in `ignore` are not claims. `unsupported("用户喜欢安静，只订云栖山居",
    ["我喜欢安静"])` names the pairs of "只订云栖山居"; `unsupported("Prefers aisle seats",
    ["I prefer an aisle seat"])` is [].
    """
    vocabulary = sources if isinstance(sources, Vocabulary) else Vocabulary(sources)
    return [t for t in terms(text, ignore=ignore) if not vocabulary.has(t)]


# ---- echoes -----------------------------------------------------------------------------------

# Words that open a reply without saying anything: "Yes, you have a trip coming up" adds nothing to
# "Do I have a trip coming up?".
_REPLY_OPENERS = frozenset("yes yeah yep no nope sure okay ok certainly indeed absolutely".split())


def repeats_message(answer: str, message: str, n: int = 4, share: float = 0.5) -> bool:
    """An echo: the answer says nothing the message did not (no new content word or number), and at
    least `share` of its words sit in runs of `n` or more of the message's words (or it is the
    message). "The cheapest fare to Perth is 129 AUD" answers; "Flights to Perth next Friday" echoes,
    and so does "Yes, you have a trip coming up" to "Do I have a trip coming up?"."""
    said = tokens(message)
    got = tokens(answer)
    while got[:1] and got[0] in _REPLY_OPENERS and got[0] not in said:
        got = got[1:]
    if not got or got == said:
        return bool(got)
    known = {stem(w) for w in said}
    if any(w not in STOPWORDS and stem(w) not in known for w in got):
        return False
    runs = {tuple(said[i:i + n]) for i in range(len(said) - n + 1)}
    covered = {k for i in range(len(got) - n + 1) if tuple(got[i:i + n]) in runs for k in range(i, i + n)}
    return len(covered) >= share * len(got)


__all__ = [
    "NEGATIONS", "NOT_A_TOPIC", "STOPWORDS", "TOKEN", "Vocabulary", "content_words", "fold", "in_own_words",
    "related_word", "repeats_message", "same_word", "stem", "terms", "tokens", "topic_words", "unspaced",
    "unsupported",
]
