"""Stage 2 — capture (notebook 02): whose words a note is in, after a document or a tool result.

When a page, an e-mail or a tool result arrived in the turn, the write policy reads three texts:
what the user said (`said`), what the documents and tool results said (`heard`), and the note.
Each content word of the note is then one of three kinds:

    the user's      the user said it (in any inflection or derivation): allowed
    the document's  only the document has it: a page must not put words in the user's mouth
    nobody's        neither has it: the model reworded or translated something; whose meaning
                    it carries decides (`Meaning`)

`Meaning` is injected: a similarity function (a note against texts -> one score per text) and the
score above which a note restates a text. `LEXICAL`, the default, scores the share of the note's
words a text has, so it cannot see a translation and refuses one, as a word-by-word rule must;
`encoder_meaning(encoder)` scores cosine similarity of sentence vectors (helpers.encoder), so a
note that means the user's sentence in other words or another language is the user's, and a
note nearer in meaning to the document than to the user is the document's. The rule that uses
it is `grounded_in`; `helpers.write_policy.ungrounded` calls it with the policy's meaning.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from helpers.text import NOT_A_TOPIC, Vocabulary, stem, unsupported

# A note against some texts: one score per text, higher for nearer in meaning.
Similarity = Callable[[str, Sequence[str]], Sequence[float]]

# After a document, a note may reword the user's wish (another inflection, a synonym, "User
# wants ..."), but most of its content words must still be the user's: a planted order's are not.
PARAPHRASE_SHARE = 1 / 3
# Keywords the capture tool's description suggests: tags, not claims, grounded by themselves.
TOPIC_TAGS = frozenset(stem(w) for w in (
    "seat", "flight", "hotel", "meal", "diet", "dietary", "food", "travel", "trip", "airline", "room",
    "budget", "home", "car", "rental", "train", "family", "accessibility", "schedule", "time", "area"))
_ROUNDING = 1e-9  # 2/3 of a note's words is the lexical threshold (1 - 1/3), not just below it
MAX_SENTENCE_CHARS = 400  # well inside a sentence encoder's window (512 tokens for E5)
MAX_DOCUMENT_SENTENCES = 128  # a longer document cannot be compared with: only LEXICAL judges
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？؟।])\s*|\n+")


@dataclass(frozen=True)
class Meaning:
    """How near in meaning a note is to a text: `similarity`, and the score from which a note
    restates a text (`threshold`). A note may also need to be nearer the user than the document
    by `margin`."""

    name: str
    similarity: Similarity = field(compare=False)
    threshold: float
    margin: float = 0.0


@dataclass(frozen=True)
class Provenance:
    """The note's topical content words (topic tags aside) by whose they are, and the judgement."""

    users: tuple[str, ...]
    documents: tuple[str, ...]  # only the document has them
    nobodys: tuple[str, ...]  # neither has them
    unsaid_numbers: tuple[str, ...]
    near_user: float = 0.0  # the meaning's best score against the user's sentences
    near_document: float = 0.0  # ... against the document's sentences (0.0: no document text)

    @property
    def unsaid(self) -> tuple[str, ...]:
        return self.documents + self.nobodys


def sentences(text: str) -> list[str]:
    """The sentences (and lines) of a text, in any script's punctuation; one longer than
    MAX_SENTENCE_CHARS is cut into overlapping windows of that size, so an encoder (whose input is
    bounded) reads all of it: an order at the end of a long line of JSON is compared too."""
    out = []
    for sentence in _SENTENCE_END.split(text):
        sentence = (sentence or "").strip()
        step = MAX_SENTENCE_CHARS * 3 // 4
        out += [sentence[i:i + MAX_SENTENCE_CHARS]
                for i in range(0, max(len(sentence) - MAX_SENTENCE_CHARS, 0) + step, step)] if sentence else []
    return out


def lexical_similarity(note: str, texts: Sequence[str]) -> list[float]:
    """The share of the note's topical words each text has, even loosely (`Vocabulary.near`:
    another inflection or derivation). Blind to translation on purpose: it reads words."""
    content = topical(note)
    if not content:
        return [0.0 for _ in texts]
    scores = []
    for text in texts:
        vocabulary = Vocabulary([text])
        scores.append(sum(vocabulary.near(w) for w in content) / len(content))
    return scores


# The word-by-word default: a note restates the user when at most PARAPHRASE_SHARE of its content
# words are not the user's even loosely; it is compared with the user's whole message.
LEXICAL = Meaning("lexical", lexical_similarity, 1 - PARAPHRASE_SHARE)


# Chosen on data/planted_documents_wishes.json with multilingual-e5-small (helpers.encoder's
# default; benchmarks/bench_provenance.py): its cosines crowd into 0.7-1.0, so the margin over the
# document, not the floor, is what tells a wish from a planted order.
ENCODER_THRESHOLD = 0.80
ENCODER_MARGIN = 0.03


def encoder_meaning(encoder: Callable[[Sequence[str]], Any], threshold: float = ENCODER_THRESHOLD,
                    margin: float = ENCODER_MARGIN) -> Meaning:
    """A `Meaning` from an encoder (texts -> L2-normalised vectors, one row a text): cosine
    similarity. Vectors are cached by text and the missing ones encoded in one call, so a
    document is encoded once per turn."""
    cache: dict[str, Any] = {}

    def similarity(note: str, texts: Sequence[str]) -> list[float]:
        missing = list(dict.fromkeys(t for t in (note, *texts) if t not in cache))
        if missing:
            if len(cache) > 2048:
                cache.clear()
            cache.update(zip(missing, encoder(missing)))
        v = cache[note]
        return [float(v @ cache[t]) for t in texts]

    return Meaning(f"encoder({threshold:.2f}, margin {margin:.2f})", similarity, threshold, margin)


def default_meaning() -> Meaning:
    """`encoder_meaning` on helpers.encoder's default encoder, loaded when a note first needs it.
    When the encoder cannot load, every judgement by meaning fails, and a note that needed one
    is refused, as `LEXICAL` would refuse it."""

    def encode(texts: Sequence[str]) -> Any:
        from helpers.encoder import default_encoder  # optional: only when a note needs a meaning

        return default_encoder()(texts)

    return encoder_meaning(encode)


def topical(text: str) -> list[str]:
    """The note's content words that say something (folded, in order): not words of liking
    ("prefers", "wants") and not topic tags ("seat", "hotel")."""
    return [w for w in unsupported(text, [], ignore=NOT_A_TOPIC) if stem(w) not in TOPIC_TAGS]


def whose_words(text: str, said: str, heard: str | None) -> Provenance:
    """The note's topical content words, by whose they are: the user's when the user said them
    (`Vocabulary.near`), the document's when only `heard` has them, else nobody's; numbers the
    user never said apart (a number is never reworded)."""
    content = topical(text)
    user = Vocabulary([said])
    document = Vocabulary([heard]) if heard else None
    users: list[str] = []
    documents: list[str] = []
    nobodys: list[str] = []
    numbers: list[str] = []
    for word in content:
        if word[0].isdigit():
            (users if user.has(word) else numbers).append(word)
        elif user.near(word):
            users.append(word)
        elif document is not None and document.has(word):
            documents.append(word)
        else:
            nobodys.append(word)
    return Provenance(tuple(users), tuple(documents), tuple(nobodys), tuple(numbers))


def judged(text: str, said: str, heard: str | None, meaning: Meaning) -> tuple[float, float]:
    """(nearest the note is to the user's words, nearest to the document's): the meaning's best
    score against the user's whole message and each of its sentences, and against each of the
    document's sentences (0.0 when no document text is known)."""
    own = sentences(said)
    near_user = max(meaning.similarity(text, [said, *own] if len(own) > 1 else [said]), default=0.0)
    theirs = sentences(heard) if heard else []
    near_document = max(meaning.similarity(text, theirs), default=0.0) if theirs else 0.0
    return near_user, near_document


def restates_user(text: str, said: str, heard: str | None, meaning: Meaning) -> Provenance | None:
    """The judgement by meaning, for a note not (mostly) in the user's words: the Provenance with
    its scores when the note means the user's words (at least the threshold, and nearer the user
    than the document by the margin), else None. None too when the meaning fails (an encoder
    that cannot load) or the document is longer than MAX_DOCUMENT_SENTENCES: no judgement, no pass."""
    if heard and len(sentences(heard)) > MAX_DOCUMENT_SENTENCES:
        return None
    try:
        near_user, near_document = judged(text, said, heard, meaning)
    except Exception:  # noqa: BLE001 - a meaning that fails passes nothing
        return None
    if near_user >= meaning.threshold - _ROUNDING and near_user >= near_document + meaning.margin:
        return Provenance((), (), (), (), near_user, near_document)
    return None


def grounded_in(text: str, said: str, heard: str | None, *, meaning: Meaning = LEXICAL) -> list[str]:
    """The words that make a note written after a document not the user's ([] when it is theirs).

    Refused: a number the user never said; a word only the document has (a page must not put
    words in the user's mouth). Passed: a note the user's words restate by `LEXICAL` (at most
    PARAPHRASE_SHARE of its content words are not the user's, even loosely), or one that
    `meaning` says restates the user (at least its threshold, and nearer the user than the
    document by its margin): a rewording or a translation of the user's wish. `LEXICAL` cannot
    read a translation, so with it a note mostly in other words is refused; so it is without the
    document's text (`heard` None), since no meaning can tell then which side a note is nearer."""
    words = whose_words(text, said, heard)
    if words.unsaid_numbers or words.documents:
        return list(words.unsaid_numbers + words.unsaid)
    if not words.unsaid or restates_user(text, said, None, LEXICAL) is not None:
        return []
    if meaning is not LEXICAL and heard and restates_user(text, said, heard, meaning) is not None:
        return []
    return list(words.unsaid)


__all__ = ["ENCODER_MARGIN", "ENCODER_THRESHOLD", "LEXICAL", "MAX_DOCUMENT_SENTENCES", "MAX_SENTENCE_CHARS", "Meaning", "PARAPHRASE_SHARE", "Provenance",
           "Similarity", "TOPIC_TAGS", "default_meaning", "encoder_meaning", "grounded_in", "judged", "lexical_similarity",
           "restates_user", "sentences", "topical", "whose_words"]
