"""Stage 10 — retrieval (notebook 10): pick the notes that serve the current message, not every note.

The pipeline, after the design notes (each step lives in one place):

    tenant/user filter (in the SQL of the store)  ->  kind and time filter (SQL: live notes only)
    ->  full-text recall (SQLite FTS5, or PostgreSQL tsvector)  ->  de-duplication
    ->  rerank by relevance (BM25 over the user's own notes), recency, confidence (`WEIGHTS`)
    ->  safety first (`safety_first`: a health or safety note the request concerns comes first)
    ->  threshold  ->  limit  ->  the token budget (helpers.budget)  ->  inject with the source.

Safety first is a rule on the note's own signal, not on its words: a note stored with
sensitivity "restricted" (health, safety and other special-category facts: an allergy, a
medication, a disability; the capture tool sets it, see `helpers.safety`) outranks every
convenience note that the request concerns as much, however new the other note is, and is not
cut by the score threshold for being old. Notebook 10 teaches why: for "Please order my meal"
the allergy must come before the aisle seat.

A store backend only recalls: `UserMemory.search` (SQLite) and `PostgresUserMemory.search`
run the filtered full-text query and hand the candidates to `rank`, so both backends
score the same way. Small memories do not need any of this: `should_retrieve` says when
injecting everything costs more than retrieving.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from helpers.render import inline, render_note_line
from helpers.safety import SAFETY_SENSITIVITY
from helpers.state import MemoryNote, parse_time
from helpers.text import NOT_A_TOPIC, STOPWORDS
from helpers.text import stem as _stem_word

# Note words repeat across users and turns: stem each distinct word once.
stem = functools.lru_cache(maxsize=100_000)(_stem_word)

# -- every knob of the ranking, in one visible place ----------------------------------------------


@dataclass(frozen=True)
class RankWeights:
    """How much each part counts in a note's score; the parts are each within [0, 1]."""

    relevance: float = 0.6  # full-text score, relative to the best candidate for this query
    recency: float = 0.2  # halves every HALF_LIFE_DAYS since the note was observed
    confidence: float = 0.2  # the note's own confidence (set by the write path)

    def __post_init__(self) -> None:
        parts = (self.relevance, self.recency, self.confidence)
        if any(w < 0 for w in parts) or not math.isclose(sum(parts), 1.0):
            raise ValueError(f"weights must be non-negative and sum to 1, got {parts}")


WEIGHTS = RankWeights()
HALF_LIFE_DAYS = 180.0
BM25_K1, BM25_B = 1.2, 0.75  # the usual Okapi constants
THRESHOLD = 0.6  # a note scoring below this is left out, however few notes are left
MIN_RELEVANCE = 0.5  # and so is one less than half as relevant as the best: fresh is not enough
RECALL_LIMIT = 300  # at most this many full-text matches (the newest) reach the reranker
SEARCH_LIMIT = 8  # notes `search` returns by default
# Below both of these, inject every live note (the simple path); above either, retrieve.
RETRIEVE_ABOVE_NOTES = 30
RETRIEVE_ABOVE_TOKENS = 800

LEFT_OUT_NOT_RECALLED = "not retrieved for this message"
LEFT_OUT_BELOW_THRESHOLD = "below the retrieval threshold"
LEFT_OUT_BEYOND_LIMIT = "beyond the retrieval limit"
LEFT_OUT_DUPLICATE = "duplicate of a better note"

# Travel words a user says in many ways. Recall is lexical, so the query is widened with these;
# the notes are never rewritten. Each group is one topic: a query word pulls in its whole group.
SYNONYMS: tuple[frozenset[str], ...] = tuple(
    frozenset(g.split())
    for g in (
        "flight flights fly flying flies plane planes airline airlines airfare fare fares aircraft",
        "seat seats sit sitting aisle window legroom row",
        "hotel hotels room rooms stay staying accommodation lodging inn resort bed",
        "food meal meals eat eating eats dinner lunch breakfast restaurant restaurants cuisine"
        " dishes table"
        " vegetarian vegan halal kosher diet dietary lactose gluten",
        "allergy allergic allergies intolerant epipen",
        "car cars rental rent rents hire hires drive driving wheels",
        "budget price cost costs spend cheap expensive afford night",
        "train trains rail railway railcard interrail",
        "airport airports layover layovers connection connections stopover transfer direct",
        "lounge lounges wait",
        "passport visa paperwork documents",
        "kid kids child children family daughter son",
        "pet pets dog dogs cat",
        "gym fitness workout",
        "quiet noise noisy",
        "loyalty points miles frequent flyer status member",
        "insurance cover covers",
        "home live lives living based",
        "work business conference meeting clients fair company corporate",
        "expense expenses receipts reimbursement claim claims",
        "evening night nightlife bar bars pub pubs",
        "luggage bag bags pack packing carry",
    )
)

# Words that ask for something rather than say what it is about: "find me", "what about", "please".
REQUEST_WORDS = frozenset(
    """
what which where who whom whose why how find book get give got go going make arrange plan pick help
please thanks thank tell show let lets any anything something somewhere someone usual next tonight
today tomorrow week day days time trip trips""".split()
)
SYNONYM_WEIGHT = 0.4  # a word the user did not say counts less than one they did
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _message_words(text: str) -> list[str]:
    words = [
        w
        for w in _WORD.findall(text.casefold())
        if len(w) > 1
        and w not in STOPWORDS
        and w not in REQUEST_WORDS
        and stem(w) not in NOT_A_TOPIC
    ]
    return list(dict.fromkeys(words))


def query_terms(text: str) -> list[str]:
    """The words of a message worth searching for: lower case, no stopwords, widened by `SYNONYMS`.

    Only letters and digits survive, so a term can never be full-text query syntax.
    """
    words = _message_words(text)
    terms = list(words)
    for word in words:
        for group in SYNONYMS:
            if word in group:
                terms += sorted(group - set(terms))
    return list(dict.fromkeys(terms))


def term_weights(text: str) -> dict[str, float]:
    """Stems to score, each weighted: the user's own words 1, words added by `SYNONYMS` less."""
    own = {stem(w) for w in _message_words(text)}
    return {stem(t): 1.0 if stem(t) in own else SYNONYM_WEIGHT for t in query_terms(text)}


# -- ranking --------------------------------------------------------------------------------

def safety_first(note: MemoryNote) -> int:
    """A note's tier before its score: 1 for a health or safety note (sensitivity "restricted"),
    0 for the rest. `rank(priority=...)` takes any such function (an app may tier by kind too)."""
    return 1 if note.sensitivity == SAFETY_SENSITIVITY else 0



@dataclass(frozen=True)
class ScoredNote:
    """A note with its score and the parts it is made of (why it was picked)."""

    note: MemoryNote
    score: float
    relevance: float
    recency: float
    confidence: float
    text_score: float  # BM25 over this user's notes, before normalising

    @property
    def source_ref(self) -> str:
        return self.note.source_ref

    def explain(self, weights: RankWeights = WEIGHTS) -> str:
        """ "0.84 = 0.6×relevance 1.00 + 0.2×recency 0.71 + 0.2×confidence 0.90"."""
        return (
            f"{self.score:.2f} = {weights.relevance:g}×relevance {self.relevance:.2f}"
            f" + {weights.recency:g}×recency {self.recency:.2f}"
            f" + {weights.confidence:g}×confidence {self.confidence:.2f}"
        )


@dataclass
class Ranking:
    """`rank`'s result: the notes kept, best first, and the ones dropped with their reason."""

    kept: list[ScoredNote]
    dropped: list[tuple[ScoredNote, str]] = field(default_factory=list)


def recency(observed_at: str, now: datetime, half_life_days: float = HALF_LIFE_DAYS) -> float:
    age_days = max(0.0, (now - parse_time(observed_at)).total_seconds() / 86400)
    return 0.5 ** (age_days / half_life_days)


def _same_text(note: MemoryNote) -> str:
    return " ".join(_WORD.findall(note.text.casefold()))


def _stems(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def bm25(weights: dict[str, float], notes: Sequence[MemoryNote], total_notes: int) -> list[float]:
    """Okapi BM25 of each note for the weighted stems (`term_weights`), with this user's statistics.

    `notes` are every note that matched any term (what full-text recall returns), so a term's
    document frequency among them is its frequency in all `total_notes` of the user. FTS5's own
    bm25() counts over the whole table: every tenant's notes (slow at a million, and it would let
    other tenants' words move this user's ranking).
    """
    wanted = set(weights)
    docs = [_stems(f"{n.text} {' '.join(n.keywords)}") for n in notes]
    if not docs:
        return []
    avg_len = sum(map(len, docs)) / len(docs) or 1.0
    total = max(total_notes, len(docs))
    distinct = [set(d) for d in docs]
    df = {t: sum(t in d for d in distinct) for t in wanted}
    idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in df.items()}
    scores = []
    for doc in docs:
        score = 0.0
        for t in wanted:
            tf = doc.count(t)
            if tf:
                score += (
                    weights[t]
                    * idf[t]
                    * tf
                    * (BM25_K1 + 1)
                    / (tf + BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / avg_len))
                )
        scores.append(score)
    return scores


def rank(
    notes: Sequence[MemoryNote],
    query: str,
    now: datetime,
    *,
    total_notes: int = 0,
    limit: int = SEARCH_LIMIT,
    threshold: float = THRESHOLD,
    weights: RankWeights = WEIGHTS,
    min_relevance: float = MIN_RELEVANCE,
    priority: Callable[[MemoryNote], int] = safety_first,
) -> Ranking:
    """Score the recalled `notes` for `query`, dedupe, threshold and cut; the best note comes first.

    `total_notes` is how many live notes the user has (for BM25's document frequencies).
    `priority` tiers the notes before their score (`safety_first`): a note of a higher tier that
    the request concerns (relevance at least `min_relevance`) comes before every note of a lower
    one and is kept below the score threshold too; the limit still applies.
    """
    if limit < 0:
        raise ValueError(f"limit must be a non-negative number of notes, got {limit!r}")
    notes = list(notes)
    text_scores = bm25(term_weights(query), notes, total_notes)
    best = max(text_scores, default=0.0)
    scored = []
    for note, text_score in zip(notes, text_scores):
        rel = text_score / best if best > 0 else 0.0
        rec = recency(note.observed_at, now)
        conf = float(note.confidence)
        total = weights.relevance * rel + weights.recency * rec + weights.confidence * conf
        scored.append(ScoredNote(note, round(total, 6), rel, rec, conf, text_score))
    # Ties break on the newest note, then the id, so the order never depends on the backend.
    scored.sort(key=lambda s: s.note.id, reverse=True)
    scored.sort(key=lambda s: (s.relevance >= min_relevance and priority(s.note), s.score,
                               parse_time(s.note.observed_at)), reverse=True)
    ranking, seen = Ranking([]), set()
    for s in scored:
        same = _same_text(s.note)
        if same in seen:
            ranking.dropped.append((s, LEFT_OUT_DUPLICATE))
        elif s.relevance < min_relevance or (s.score < threshold and not priority(s.note)):
            ranking.dropped.append((s, LEFT_OUT_BELOW_THRESHOLD))
        elif len(ranking.kept) >= limit:
            ranking.dropped.append((s, LEFT_OUT_BEYOND_LIMIT))
        else:
            ranking.kept.append(s)
        seen.add(same)
    return ranking


# -- when to retrieve, and how a retrieved note is shown ------------------------------------------


def should_retrieve(
    live_notes: Sequence[MemoryNote],
    tokens: int,
    *,
    above_notes: int = RETRIEVE_ABOVE_NOTES,
    above_tokens: int = RETRIEVE_ABOVE_TOKENS,
) -> bool:
    """Small memories are injected whole (cheap, and nothing relevant can be missed)."""
    return len(live_notes) > above_notes or tokens > above_tokens


def render_retrieved_line(note: MemoryNote) -> str:
    """A note line that carries where the note came from: "... [source: s12#turn3]"."""
    return f"{render_note_line(note)} [source: {inline(note.source_ref or 'unknown')}]"


def latest_user_message(items: Sequence[object]) -> str:
    """The text of the last user message in SDK input items (dicts or strings)."""
    for item in reversed(list(items)):
        data = item.model_dump() if hasattr(item, "model_dump") else item
        if isinstance(data, str):
            return data
        if isinstance(data, dict) and data.get("role") == "user":
            content = data.get("content", "")
            if isinstance(content, list):
                content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content)
    return ""


__all__ = [
    "BM25_B",
    "BM25_K1",
    "HALF_LIFE_DAYS",
    "LEFT_OUT_BELOW_THRESHOLD",
    "LEFT_OUT_BEYOND_LIMIT",
    "LEFT_OUT_DUPLICATE",
    "LEFT_OUT_NOT_RECALLED",
    "MIN_RELEVANCE",
    "RECALL_LIMIT",
    "RETRIEVE_ABOVE_NOTES",
    "RETRIEVE_ABOVE_TOKENS",
    "RankWeights",
    "Ranking",
    "SAFETY_SENSITIVITY",
    "SEARCH_LIMIT",
    "SYNONYM_WEIGHT",
    "bm25",
    "SYNONYMS",
    "ScoredNote",
    "THRESHOLD",
    "WEIGHTS",
    "latest_user_message",
    "query_terms",
    "rank",
    "safety_first",
    "term_weights",
    "recency",
    "render_retrieved_line",
    "should_retrieve",
]
