"""Stage 7 — consolidation: merge a session's notes into global memory, inventing nothing and losing nothing.

After a session ends, its notes join global memory in three steps:

1. `deterministic_merge`: rules only. Notes already merged are skipped (so a rerun changes
   nothing); session-scoped notes ("this time") and notes the write gate now refuses are
   dropped, with a reason; exact and near duplicates are folded: the newest copy stays active
   and the older one is kept as superseded. The model never sees a dropped note, so it
   cannot drop one either.
2. `propose_plan`: a consolidator agent (structured output, `ConsolidationPlan`) reads the new
   notes and the global notes they touch, and decides per note id: keep, merge (paraphrases
   become one note written in their words), supersede (a newer note replaces it) or conflict.
3. `apply_plan`: the plan is checked before anything changes. Every note written by the model
   names existing source ids, uses only its sources' words and numbers, and passes the write
   gate again; every input id gets exactly one decision. Recency, not the model, decides
   which side of a conflict wins; a same-day or model-flagged conflict goes to the user, and
   a "conflict" between notes on different subjects is overruled (both stay).

`merge_notes` runs all three, then the attribute rules (`helpers.attributes`: a changed home
city, diet, seat... retires the older value by recency). Without a model, or if the model fails
in any way (invalid JSON, a schema violation, an invented or dropped note, a timeout, an
exception), it returns `rules_only_merge`: step 1 and the attribute rules, nothing else, and
says why in `report.fallback_reason`. Nothing is deleted: a note that loses stays in global
memory with status "superseded" and a `superseded_by` pointer, so the chain can be replayed.
"""

from __future__ import annotations

import asyncio
import copy
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

from agents import Agent, ModelSettings, Runner
from agents.models.interface import Model
from pydantic import BaseModel

from helpers.attributes import (
    STATING_WORDS,
    attributes_of,
    confirm_attribute_changes,
    others_in,
    qualifiers,
    unshared_facts,
)
from helpers.state import Clock, MemoryNote, MemoryState, note_id, parse_time, recency
from helpers.store_base import fold
from helpers.text import STOPWORDS, content_words, stem, topic_words, unsupported
from helpers.write_policy import DEFAULT_WRITE_POLICY, WritePolicy, keyword_grounded

# Two notes whose content words overlap this much (Jaccard) are the same note reworded.
# High on purpose: "prefers an aisle seat" and "prefers aisle seats" fold, "window" vs
# "aisle" does not. Looser paraphrases are the model's job.
NEAR_DUPLICATE_THRESHOLD = 0.8
# Seconds to wait for the model's plan. The embedded 1.5B model took 130-500 s for four notes
# on a busy 2-core machine; past the timeout the deterministic result is used.
DEFAULT_TIMEOUT = 300.0

Outcome = Literal[
    "kept",  # unchanged (already in global memory)
    "added",  # a session note that joined global memory as active
    "already_merged",  # a session note whose id is already in global memory (rerun)
    "duplicate",  # folded into `target`, kept as superseded
    "merged",  # rewritten with other notes into `target`, kept as superseded
    "superseded",  # replaced by the newer note `target`, kept as superseded
    "dropped_session",  # session-scoped ("this time"): not for long-term memory
    "blocked",  # the write gate refuses it now
    "needs_user",  # contradicts `target` and the rules cannot decide: both stay active
    "expired",  # a session note already past its expiry: kept with status "expired", never live
]


@dataclass(frozen=True)
class MergeDecision:
    """What happened to one input note, and why."""

    note_id: str
    outcome: Outcome
    reason: str
    target: str | None = None  # the note it was folded into, superseded by, or conflicts with


@dataclass(frozen=True)
class Conflict:
    """Two notes that contradict each other; a person must say which one holds."""

    note_ids: tuple[str, str]
    texts: tuple[str, str]
    reason: str


@dataclass
class ConsolidationReport:
    at: str
    decisions: dict[str, MergeDecision] = field(default_factory=dict)  # one per input note id
    created: list[str] = field(default_factory=list)  # ids of notes the model wrote
    needs_user: list[Conflict] = field(default_factory=list)
    model_used: bool = False  # True when the model's plan was applied
    overruled: list[str] = field(default_factory=list)  # model decisions the rules refused (notes kept)
    fallback_reason: str | None = None  # why the model's plan was not used
    model_skipped: str | None = None  # why the model was not asked at all (nothing it could change)

    def outcomes(self, outcome: Outcome) -> list[MergeDecision]:
        return [d for d in self.decisions.values() if d.outcome == outcome]

    @property
    def dropped(self) -> list[MergeDecision]:
        return self.outcomes("dropped_session") + self.outcomes("blocked") + self.outcomes("expired")

    def summary(self) -> str:
        lines = [f"{d.note_id}: {d.outcome}" + (f" -> {d.target}" if d.target else "") + f" ({d.reason})"
                 for d in self.decisions.values() if d.outcome != "kept"]
        lines += [f"created {i}" for i in self.created]
        lines += [f"ask the user: {c.texts[0]!r} vs {c.texts[1]!r} ({c.reason})" for c in self.needs_user]
        lines += [f"overruled: {o}" for o in self.overruled]
        lines.append(f"fallback: {self.fallback_reason}" if self.fallback_reason
                     else f"model skipped: {self.model_skipped}" if self.model_skipped
                     else f"model plan applied: {self.model_used}")
        return "\n".join(lines)


class PlanRejected(ValueError):
    """The model's plan breaks a rule; nothing from it is applied."""


class MergedAChange(PlanRejected):
    """The plan merged notes that give one attribute two values: a change (a move, a new diet...),
    not a paraphrase. Nothing from the plan is applied; the attribute rules decide the change."""


# ---- words: what a note claims ---------------------------------------------------------------

def normalize(text: str) -> str:
    """Lower case, punctuation removed, whitespace collapsed: exact duplicates compare equal."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _words(text: str) -> tuple[set[str], set[str]]:
    """(content stems, whole numbers) of a text, in any script: a-z words stemmed (stopwords out),
    words in other scripts whole ("Москве", "Zürich"), numbers with their separators."""
    folded = fold(text)
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
    text, source_texts = fold(text), [fold(s) for s in source_texts]
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
            names.append(fold(token))
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
    folded = fold(text)
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


def _policy(write_policy: WritePolicy | None) -> WritePolicy:
    return DEFAULT_WRITE_POLICY if write_policy is None else write_policy


# ---- step 1: rules only ----------------------------------------------------------------------

def deterministic_merge(global_notes: list[MemoryNote], session_notes: list[MemoryNote], *,
                        clock: Clock, write_policy: WritePolicy | None = None
                        ) -> tuple[list[MemoryNote], ConsolidationReport]:
    """Fold the session into global memory with rules only. The inputs are not modified.
    Every session note passes `write_policy` (default: DEFAULT_WRITE_POLICY) again.
    This is what the model is shown; `rules_only_merge` adds the attribute rules to it."""
    notes = copy.deepcopy(global_notes)
    report = ConsolidationReport(at=clock().isoformat())
    for note in notes:
        report.decisions[note.id] = MergeDecision(note.id, "kept", "already in global memory")
    by_id = {n.id: n for n in notes}
    for original in session_notes:
        note = copy.deepcopy(original)
        if note.id in by_id and normalize(by_id[note.id].text) != normalize(note.text):
            # Another note holds this id (a note edited after it was merged, an id given twice):
            # skipping it as "already merged" would lose it. It gets an id from its own content.
            note.id = _free_id(note, by_id)
        if note.id in by_id:  # consolidated before (a rerun), or listed twice in this session
            if report.decisions[note.id].outcome == "kept":
                report.decisions[note.id] = MergeDecision(note.id, "already_merged",
                                                          "this note is already in global memory")
            continue
        gate = _policy(write_policy).check(note.text, note.keywords, kind=note.kind)
        if note.scope == "session" or gate.scope == "session":
            report.decisions[note.id] = MergeDecision(note.id, "dropped_session",
                                                      "session-scoped: it holds for this session only")
            continue
        if not gate.allowed:
            report.decisions[note.id] = MergeDecision(note.id, "blocked",
                                                      f"write policy rule {gate.rule}")
            continue
        note.keywords, unsaid = split_keywords(note)
        if note.is_expired(clock):  # past its expiry already: history, never live, never a twin
            note.status = "expired"
            notes.append(note)
            by_id[note.id] = note
            report.decisions[note.id] = MergeDecision(note.id, "expired", f"expired at {note.expires_at} "
                                                      "before it was consolidated: kept as expired")
            continue
        twin = next((n for n in notes if n.is_live(clock) and is_near_duplicate(n.text, note.text)), None)
        notes.append(note)
        by_id[note.id] = note
        if twin is None:
            why = "new durable note" + (f"; keyword(s) {', '.join(unsaid)} dropped: its text does not "
                                        "state them" if unsaid else "")
            if note.is_dated_after_now(clock):
                why += f"; dated after now ({note.observed_at}): not shown, nor merged, until then"
            report.decisions[note.id] = MergeDecision(note.id, "added", why)
            continue
        # The copy that lives longest stays active (a copy that expires must not retire one that
        # does not: the fact would vanish with it); then the newest; on a tie, the note already there.
        newer, older = (note, twin) if _survives(note, twin, clock) else (twin, note)
        _supersede(older, newer)
        if newer is note:
            report.decisions[note.id] = MergeDecision(note.id, "added", "newest copy of a duplicate")
        reason = "same text" if normalize(older.text) == normalize(newer.text) else "near duplicate"
        if _outlives(older, newer) or _outlives(newer, older):
            reason += "; the copy that expires later stays"
        report.decisions[older.id] = MergeDecision(older.id, "duplicate", reason, newer.id)
    return notes, report


def rules_only_merge(global_notes: list[MemoryNote], session_notes: list[MemoryNote], *,
                     clock: Clock, write_policy: WritePolicy | None = None, recency: bool = True
                     ) -> tuple[list[MemoryNote], ConsolidationReport]:
    """The merge without a model: `deterministic_merge`, then the attribute rules
    (`helpers.attributes`): a new note that gives a one-value attribute (home city, diet, seat...)
    another value than an older live note retires it by recency (superseded, kept); a change
    they cannot confirm goes to the user. `merge_notes` returns exactly this when there is no
    model, when the model is not needed, and whenever the model fails or its plan is refused,
    so a fallback never leaves two home cities live."""
    notes, report = deterministic_merge(global_notes, session_notes, clock=clock, write_policy=write_policy)
    return confirm_attribute_changes(notes, report, clock=clock, recency=recency)


def _free_id(note: MemoryNote, by_id: dict[str, MemoryNote]) -> str:
    """The content id of `note`, or a numbered variant of it that no other note holds."""
    base = note_id(note.text, note.observed_at, "global")
    candidate, n = base, 1
    while candidate in by_id and normalize(by_id[candidate].text) != normalize(note.text):
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def _end(note: MemoryNote) -> datetime:
    """When the note stops holding: its expiry, or never."""
    return parse_time(note.expires_at) if note.expires_at else datetime.max.replace(tzinfo=UTC)


def _outlives(a: MemoryNote, b: MemoryNote) -> bool:
    return _end(a) > _end(b)


def _survives(note: MemoryNote, twin: MemoryNote, clock: Clock) -> bool:
    """Of two copies of one note, does `note` stay active rather than `twin`? A copy dated after
    now never retires one that holds now (it is not shown until its date: the fact would vanish)."""
    def key(n: MemoryNote) -> tuple:
        return (not n.is_dated_after_now(clock), _end(n), recency(n, clock))
    return key(note) > key(twin)


def split_keywords(note: MemoryNote) -> tuple[list[str], list[str]]:
    """(kept, dropped): only keywords the note's own text grounds join long-term memory.

    A keyword is a topic: it is kept if each of its words is in the note's text (by stem) or is
    a topic tag ("seat", "diet", "hotel": `TOPIC_TAGS`, the tags the capture tool offers), and
    each of its numbers is in the text. Anything else (the place, date, name or number of a
    one-off that the user's turn said but the note does not) is dropped, as is a keyword with no
    content word ("this"). The write gate grounded the keyword in the user's turn; here the
    turn is gone, and keywords reach every later prompt, so "Vegetarian (vegetarian, hobart)"
    would carry a one-off trip as a lasting default. No list of places is needed, so the rule
    holds for a place no catalogue names."""
    def grounded(keyword: str) -> bool:
        words, numbers = content_words(keyword)
        return bool(words or numbers) and keyword_grounded(keyword, note.text)

    kept = [k for k in note.keywords if grounded(k)]
    return kept, [k for k in note.keywords if k not in kept]


def _supersede(older: MemoryNote, newer: MemoryNote) -> None:
    older.status, older.superseded_by = "superseded", newer.id
    if newer.supersedes is None:
        newer.supersedes = older.id


def notes_for_model(notes: list[MemoryNote], report: ConsolidationReport, *, clock: Clock) -> list[MemoryNote]:
    """The notes the model must see: the session's new notes and the live global notes they touch.

    Global notes on another subject (see `related`) cannot merge or conflict with a new note,
    so they stay out of the prompt: shorter, faster, and nothing to get wrong.
    """
    def shown_now(n: MemoryNote) -> bool:  # a note dated after now cannot be ordered: not for a merge
        return n.is_live(clock) and not n.is_dated_after_now(clock)

    new = [n for n in notes if report.decisions[n.id].outcome == "added" and shown_now(n)]
    if not new:
        return []
    new_ids = {n.id for n in new}
    shown = [n for n in notes if n.id in new_ids or (shown_now(n) and any(related(n, m) for m in new))]
    # Oldest first, so "a newer note replaces this one" reads top to bottom.
    return sorted(shown, key=lambda n: (parse_time(n.observed_at), n.id))


# ---- step 2: the model's plan ----------------------------------------------------------------

class PlanDecision(BaseModel):
    id: str
    action: Literal["keep", "merge", "supersede", "conflict"]
    other_id: str  # the newer note (supersede) or the contradicting note (conflict); "" otherwise
    reason: str


class PlanNote(BaseModel):
    text: str
    keywords: list[str]
    kind: Literal["fact", "preference", "event", "procedure"]
    source_ids: list[str]


class ConsolidationPlan(BaseModel):
    """The consolidator's structured output. Decisions first: the model decides, then writes."""

    decisions: list[PlanDecision]
    notes: list[PlanNote]


CONSOLIDATOR_INSTRUCTIONS = """\
You tidy one user's memory notes. Each input line is: id | date | text.
Return one decision for every id, in input order:
- "keep": the note stays as it is. This is the usual answer.
- "merge": two or more notes say the same thing in other words. Mark each of them "merge" and
  write ONE note for them in "notes", reusing only their words, with all their ids in "source_ids".
- "supersede": a newer note replaces this one (for example a new home city).
  "other_id" is the newer note's id.
- "conflict": the note contradicts another note and the dates do not tell which is true.
  "other_id" is that note's id.
Never add a fact, word or number that is not in the notes. "other_id" is "" for keep and merge.
"reason" is at most five words. "notes" is [] unless something merges.

Example input:
n1 | 2026-01-05 | Lives in Perth
n2 | 2026-03-10 | Prefers window seats
n3 | 2026-06-01 | Moved to Darwin
n4 | 2026-06-01 | Likes a seat by the window
Example output:
{"decisions": [{"id": "n1", "action": "supersede", "other_id": "n3", "reason": "moved city"},
{"id": "n2", "action": "merge", "other_id": "", "reason": "same preference"},
{"id": "n3", "action": "keep", "other_id": "", "reason": "current home"},
{"id": "n4", "action": "merge", "other_id": "", "reason": "same preference"}],
"notes": [{"text": "Prefers window seats", "keywords": ["seat"], "kind": "preference", "source_ids": ["n2", "n4"]}]}"""


def consolidator_agent(model: Model | str, *, max_tokens: int | None = None) -> Agent:
    return Agent(name="consolidator", instructions=CONSOLIDATOR_INSTRUCTIONS, output_type=ConsolidationPlan,
                 model=model, model_settings=ModelSettings(temperature=0.0, max_tokens=max_tokens))


def render_for_model(inputs: list[MemoryNote]) -> str:
    # The count helps a small model give a decision for every note.
    lines = [f"{n.id} | {n.observed_at} | {n.text}" for n in inputs]
    return "\n".join([f"{len(inputs)} notes, so {len(inputs)} decisions:", *lines])


async def propose_plan(inputs: list[MemoryNote], model: Model | str) -> ConsolidationPlan:
    """Ask the consolidator agent for a plan; the SDK validates the JSON against the schema."""
    # Room for one decision per note plus a merged note or two; a cut-off plan is invalid JSON.
    agent = consolidator_agent(model, max_tokens=128 + 96 * len(inputs))
    result = await Runner.run(agent, render_for_model(inputs), max_turns=1)
    return result.final_output_as(ConsolidationPlan, raise_if_incorrect_type=True)


# ---- step 3: check the plan, then apply it ---------------------------------------------------

def apply_plan(notes: list[MemoryNote], report: ConsolidationReport, plan: ConsolidationPlan,
               inputs: list[MemoryNote], *, write_policy: WritePolicy | None = None,
               recency: bool = True) -> tuple[list[MemoryNote], ConsolidationReport]:
    """Apply the model's plan to the deterministic result (`inputs`: the notes the model saw).

    A broken plan raises PlanRejected and nothing of it is applied: an unknown id, a missing or
    doubled decision, a written note that invents (see `unsupported_claims`), fails the write
    policy (`write_policy`, default DEFAULT_WRITE_POLICY), or merges a note it also
    supersedes. A written note's source_ids are what it merged, even where the model said "keep";
    a written note that only restates its one source changes nothing. Decisions the rules
    overrule leave their notes as they are (see report.overruled): a "merge" in no written note,
    a source the written note says nothing about (it would vanish into it), a supersede or
    conflict between notes on different subjects.
    """
    shown = {n.id: n for n in inputs}
    decided = {}
    for d in plan.decisions:
        if d.id not in shown:
            raise PlanRejected(f"decision for unknown note {d.id!r}")
        if d.id in decided:
            raise PlanRejected(f"two decisions for note {d.id}")
        if d.action in ("supersede", "conflict") and (d.other_id not in shown or d.other_id == d.id):
            raise PlanRejected(f"{d.action} of {d.id} names no other shown note ({d.other_id!r})")
        decided[d.id] = d
    missing = sorted(set(shown) - set(decided))
    if missing:
        raise PlanRejected(f"dropped note(s) with no decision: {', '.join(missing)}")

    notes = copy.deepcopy(notes)
    by_id = {n.id: n for n in notes}
    report = replace(report, decisions=dict(report.decisions), created=[], needs_user=list(report.needs_user),
                     overruled=[],
                     model_used=True, fallback_reason=None)
    merged_into: dict[str, str] = {}
    restated: set[str] = set()
    left_out: set[str] = set()
    new_notes = []
    for written in plan.notes:
        # A source the written note says nothing about would vanish into it: it stays as it is.
        unrelated = [i for i in written.source_ids if i in shown and not _mentions(written.text, shown[i])]
        source_ids = [i for i in written.source_ids if i not in unrelated]
        if source_ids:  # checked against every source it names first: a recombination is refused
            _checked_note(written, [by_id[i] for i in source_ids if i in shown], source_ids,
                          _policy(write_policy))
        # A source with a fact the written note drops ("Melbourne" merged into "Prefers aisle
        # seats") would lose it: that source stays as it is, and so does the note if none is left.
        losing = {i: _dropped_words(written.text, shown[i].text) for i in source_ids if i in shown}
        losing = {i: words for i, words in losing.items() if words}
        for i, words in losing.items():
            report.overruled.append(f"merge {shown[i].text!r} into {written.text!r}: the written note "
                                    f"drops {', '.join(sorted(words))}, so kept as it is")
        left_out.update(losing)
        source_ids = [i for i in source_ids if i not in losing]
        if not source_ids and losing:
            left_out.update(unrelated)
            continue
        if not source_ids:  # it matches none of its sources: an invention, or nothing at all
            problems = unsupported_claims(written.text, [shown[i].text for i in unrelated])
            raise PlanRejected(f"invented: {written.text!r}: "
                               f"{'; '.join(problems) or 'it says nothing of its sources'}")
        for i in unrelated:
            report.overruled.append(f"merge {shown[i].text!r} into {written.text!r}: "
                                    "the written note says nothing of it, so kept as it is")
        left_out.update(unrelated)
        only = shown.get(source_ids[0]) if len(source_ids) == 1 else None
        if only is not None and is_near_duplicate(written.text, only.text):
            restated.add(only.id)  # the model copied a note out: nothing merged, nothing to check
            continue
        new = _checked_note(written, [by_id[i] for i in source_ids if i in shown], source_ids,
                            _policy(write_policy))
        for source_id in source_ids:
            if source_id in merged_into:
                raise PlanRejected(f"note {source_id} is a source of two written notes")
            if decided[source_id].action not in ("keep", "merge"):
                raise PlanRejected(f"note {source_id} is both merged and {decided[source_id].action}")
            merged_into[source_id] = new.id
        new_notes.append(new)
    for i, d in decided.items():
        if d.action == "merge" and i not in merged_into.keys() | restated | left_out:
            report.overruled.append(f"merge {shown[i].text!r}: in no written note, so kept as it is")

    for new in new_notes:  # a written note identical to a source keeps that source's id
        if new.id in by_id:
            existing = by_id[new.id]
            if existing.status != "active" and new.id not in merged_into:
                # Its sources would be retired into a note that is itself retired: all of them lost.
                raise PlanRejected(f"written note {new.text!r} is note {new.id}, which is {existing.status}: "
                                   "it would revive it, or retire its sources into it")
            continue
        notes.append(new)
        by_id[new.id] = new
        report.created.append(new.id)
    for source_id, new_id in merged_into.items():
        if source_id != new_id:
            _supersede(by_id[source_id], by_id[new_id])
            report.decisions[source_id] = MergeDecision(source_id, "merged", decided[source_id].reason, new_id)
    for d in decided.values():
        if d.action not in ("supersede", "conflict"):
            continue
        note, other = by_id[d.id], by_id[merged_into.get(d.other_id, d.other_id)]
        if related(note, other) and d.action == "supersede" and (extra := _not_replaced(note, other)):
            # "Likes peanut butter cookies" shares a subject with "Is allergic to peanuts" but
            # replaces nothing of it: retiring it would lose the allergy. The user decides.
            _ask_user(note, other, f"the model said one replaces the other, but they differ in {extra}; "
                      f"{d.reason}", report)
        elif related(note, other):
            _resolve_conflict(note, other, d, report, recency=recency)
        else:
            report.overruled.append(f"{d.action} {note.text!r} / {other.text!r}: different subjects, both kept")
    return notes, report


def _dropped_words(text: str, source: str) -> set[str]:
    """What the source says that `text` does not: its topic words beyond how a fact is stated,
    its numbers (a budget, a date), its words in other scripts and its frequency and hedge words
    ("usually": `hedges`)."""
    text, said = fold(text), fold(source)
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
    values = topic_words(" ".join(attributes_of(source).values())) - topic_words(fold(text))
    return not (_dropped_words(text, source) or values)


def _mentions(text: str, source: MemoryNote) -> bool:
    """Does `text` share a content word with the source (not just "prefers")?"""
    text, said = fold(text), fold(source.text)
    return bool(topic_words(text) & topic_words(said) or _other_words(text) & _other_words(said))


def _not_replaced(a: MemoryNote, b: MemoryNote) -> str:
    """Why the newer of two notes does not simply replace the older one (empty if it does): the
    older says something the newer does not (beyond how an attribute is stated and its value),
    they hold in different circumstances, or only one is about someone else."""
    older, newer = sorted((a, b), key=lambda n: parse_time(n.observed_at))
    lost = unshared_facts(older, newer)
    if lost:
        return ", ".join(sorted(lost))
    # The older note's attribute (diet, home city...) must be one the newer note gives a value
    # for: "Mi hermano come carne" says nothing the rules can read about the user's diet.
    unsaid = set(attributes_of(older.text)) - set(attributes_of(newer.text))
    if unsaid and not topic_words(fold(older.text)) <= topic_words(fold(newer.text)):
        return "what the newer note says of " + ", ".join(sorted(a.replace("_", " ") for a in unsaid))
    qa, qb = qualifiers(older.text), qualifiers(newer.text)
    if qa != qb:
        return "circumstances (" + ", ".join(sorted(qa ^ qb)) + ")"
    whom = [others_in(n.text) for n in (older, newer)]
    if bool(whom[0]) != bool(whom[1]):
        return "whom it is about (" + ", ".join(sorted(whom[0] | whom[1])) + ")"
    return ""


def _checked_note(written: PlanNote, sources: list[MemoryNote], source_ids: list[str],
                  write_policy: WritePolicy) -> MemoryNote:
    if not source_ids or len(sources) != len(source_ids) or len(set(source_ids)) != len(source_ids):
        raise PlanRejected(f"written note {written.text!r} names missing or unknown sources {source_ids}")
    if not written.text.strip():
        raise PlanRejected("written note with empty text")
    gate = write_policy.check(written.text, written.keywords, kind=written.kind)
    if not gate.allowed or gate.scope != "global":
        raise PlanRejected(f"written note {written.text!r} fails the write policy "
                           f"({gate.rule or 'session-scoped'})")
    problems = unsupported_claims(written.text, [s.text for s in sources])
    if problems:
        raise PlanRejected(f"invented: {written.text!r}: {'; '.join(problems)}")
    # A merge joins paraphrases: sources that give one attribute (seat, home city, diet...) two
    # values are a change or a conflict, and a note written from them could pair any value with
    # any circumstance ("aisle on flights, window on trains" from the opposite two notes).
    stated: dict[str, set[str]] = {}
    for source in sources:
        for attribute, value in attributes_of(source.text).items():
            stated.setdefault(attribute, set()).add(value)
    for attribute, values in stated.items():
        if len(values) > 1:
            raise MergedAChange(f"written note {written.text!r} merges notes that give "
                               f"{attribute.replace('_', ' ')} different values ({', '.join(sorted(values))}): "
                               "a change or a conflict, not a paraphrase")
    for attribute, value in attributes_of(written.text).items():
        if attribute in stated and value not in stated[attribute]:
            raise PlanRejected(f"invented: {written.text!r}: {attribute.replace('_', ' ')} {value!r} "
                               f"is not its sources' ({', '.join(sorted(stated[attribute]))})")
    # Keywords are tags, not claims: keep the grounded ones, else the sources' own.
    grounded = content_words(" ".join(s.text for s in sources))[0] | {k.lower() for s in sources for k in s.keywords}
    keywords = [k.lower() for k in written.keywords if stem(k.lower()) in grounded or k.lower() in grounded]
    keywords = list(dict.fromkeys(keywords or [k for s in sources for k in s.keywords]))[:3]
    newest = max(sources, key=lambda s: parse_time(s.observed_at))
    expiries = [s.expires_at for s in sources]
    return MemoryNote(
        text=written.text.strip(), observed_at=newest.observed_at, keywords=keywords, kind=written.kind,
        scope="global", source_ref=" + ".join(dict.fromkeys(s.source_ref for s in sources if s.source_ref)),
        expires_at=None if None in expiries else max((e for e in expiries if e is not None), key=parse_time),
        sensitivity=max((s.sensitivity for s in sources), key=_SENSITIVITY_ORDER.index),
        confidence=min(s.confidence for s in sources),
        id=note_id(written.text.strip(), newest.observed_at, "global"),
    )


_SENSITIVITY_ORDER = ["public", "internal", "personal", "restricted"]


def _resolve_conflict(note: MemoryNote, other: MemoryNote, d: PlanDecision, report: ConsolidationReport, *,
                      recency: bool = True) -> None:
    """The model only spots that two notes clash; recency, not the model, says which one wins.

    Whichever way round the model named them, the older note is superseded by the newer one.
    A same-day clash, or one the model calls a conflict, is not guessed: it goes to the user.
    """
    now = parse_time(report.at)
    future = [n for n in (note, other) if parse_time(n.observed_at) > now]
    # The same instant however it is written ("2026-11-29", "2026-11-29T10:00:00+10:00"), or a note
    # dated after now (a wrong clock, a typo), cannot be ordered: recency does not decide those.
    if d.action == "supersede" and _orderable(note, other) and not future:
        # recency=False trusts the model's direction (evals switch the guard off to show its worth).
        older, newer = sorted((note, other), key=lambda n: parse_time(n.observed_at)) if recency else (note, other)
        if older.status != "active":
            report.overruled.append(f"supersede {older.text!r}: already replaced by {older.superseded_by}")
            return
        if _outlives(older, newer):
            # The newer note holds until it expires; the older one must still be there after.
            report.overruled.append(f"supersede {older.text!r} by {newer.text!r}: the newer note expires "
                                    f"({newer.expires_at}) and the older one outlives it, so both stay")
            return
        _supersede(older, newer)
        report.decisions[older.id] = MergeDecision(older.id, "superseded", f"newer note wins; {d.reason}", newer.id)
        return
    why = ("the model flagged a contradiction" if d.action == "conflict"
           else f"dated after now ({future[0].observed_at}): recency cannot decide" if future
           else "same date: recency cannot decide")
    _ask_user(note, other, f"{why}; {d.reason}", report)


def _orderable(a: MemoryNote, b: MemoryNote) -> bool:
    """Can recency tell which note is newer? Not at the same instant, nor when one gives only a day
    ("2026-11-29") and the other falls on that day (UTC): the day-only note may be the later one."""
    ta, tb = parse_time(a.observed_at), parse_time(b.observed_at)
    if ta == tb:
        return False
    day_only = [n for n in (a, b) if "T" not in n.observed_at.upper() and " " not in n.observed_at.strip()]
    return not (day_only and ta.astimezone(UTC).date() == tb.astimezone(UTC).date())


def _ask_user(note: MemoryNote, other: MemoryNote, why: str, report: ConsolidationReport) -> None:
    """Both notes stay active and the user is asked which one holds."""
    if any(set(c.note_ids) == {note.id, other.id} for c in report.needs_user):
        return
    report.needs_user.append(Conflict((note.id, other.id), (note.text, other.text), why))
    short = why.split(";")[0]
    for n, o in ((note, other), (other, note)):
        if n.id in report.decisions and report.decisions[n.id].outcome in ("kept", "added"):
            report.decisions[n.id] = MergeDecision(n.id, "needs_user", short + "; both stay active", o.id)


# ---- the whole pass --------------------------------------------------------------------------

async def merge_notes(global_notes: list[MemoryNote], session_notes: list[MemoryNote],
                      model: Model | str | None = None, *, clock: Clock,
                      timeout: float = DEFAULT_TIMEOUT, write_policy: WritePolicy | None = None,
                      recency: bool = True) -> tuple[list[MemoryNote], ConsolidationReport]:
    """Pure form: (new global notes, report). The inputs are not modified, so a store can commit
    the result atomically. Without a model only the deterministic pass runs, and the model is not
    asked when no two of the notes it would see share a subject (nothing to merge or resolve)."""
    notes, report = deterministic_merge(global_notes, session_notes, clock=clock, write_policy=write_policy)
    # The model sees the fold; without it (none given, nothing for it to do, or any failure) the
    # result is exactly the rules-only merge, attribute rules included.
    rules_only = confirm_attribute_changes(copy.deepcopy(notes), replace(
        report, decisions=dict(report.decisions), needs_user=list(report.needs_user)), clock=clock, recency=recency)
    inputs = notes_for_model(notes, report, clock=clock)
    if model is None or not inputs:
        return rules_only
    if not any(related(a, b) for i, a in enumerate(inputs) for b in inputs[i + 1:]):
        why = "one new note, nothing related" if len(inputs) == 1 else "no two notes share a subject"
        return rules_only[0], replace(rules_only[1], model_skipped=why)  # nothing to merge or resolve
    try:
        plan = await _bounded(propose_plan(inputs, model), timeout)
    except TimeoutError:
        reason = f"timeout: no plan within {timeout:g} s"
    except Exception as error:  # noqa: BLE001 - whatever the model does, fall back and lose nothing
        reason = f"model error: {type(error).__name__}: {_short(str(error))}"
    else:
        try:
            # The plan, then the attribute rules for a changed home city, diet, seat... it left alone.
            merged = apply_plan(notes, report, plan, inputs, write_policy=write_policy, recency=recency)
            return confirm_attribute_changes(*merged, clock=clock, recency=recency)
        except PlanRejected as error:  # MergedAChange too: the rules retire the older value
            reason = f"plan rejected: {error}"
    return rules_only[0], replace(rules_only[1], fallback_reason=reason)  # exactly the rules-only merge


async def _bounded(coro, timeout: float):
    """Await `coro` for at most `timeout` seconds, then cancel it and return at once.

    Unlike `asyncio.wait_for`, this does not wait for the cancelled call to finish: a model
    that ignores the cancellation is abandoned (its result and errors are discarded) instead
    of holding up the consolidation and every turn queued behind it.
    """
    task = asyncio.ensure_future(coro)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task in done:
        return task.result()
    task.cancel()
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no warning
    raise TimeoutError


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


async def consolidate(state: MemoryState, model: Model | str | None = None, *, clock: Clock | None = None,
                      timeout: float = DEFAULT_TIMEOUT, write_policy: WritePolicy | None = None,
                      recency: bool = True) -> ConsolidationReport:
    """Merge `state.session_notes` into `state.global_notes`; clear the merged session notes after.

    Every note that joins global memory passes `write_policy` (default: `state.write_policy`).

    The state changes only once the merge has succeeded (a model failure is a success: it falls
    back). Session notes written after the call (it may run in the background) stay for next time.
    """
    return await _consolidate(state, list(state.session_notes), model, clock, timeout,
                              write_policy=write_policy, recency=recency)


def consolidate_in_background(state: MemoryState, model: Model | str | None = None, *,
                              clock: Clock | None = None, timeout: float = DEFAULT_TIMEOUT) -> asyncio.Task:
    """Start `consolidate` on the running event loop and return at once; await the task for the report.

    The session notes are taken now, so notes the conversation writes meanwhile are not cleared.
    """
    session = list(state.session_notes)
    return asyncio.get_running_loop().create_task(_consolidate(state, session, model, clock, timeout),
                                                  name="consolidation")


async def _consolidate(state: MemoryState, session: list[MemoryNote], model: Model | str | None,
                       clock: Clock | None, timeout: float, *,
                       write_policy: WritePolicy | None = None, recency: bool = True) -> ConsolidationReport:
    clock = clock or state.clock
    write_policy = write_policy or state.write_policy
    snapshot = copy.deepcopy(state.global_notes)  # what the run sees; the live state may move on
    session = copy.deepcopy(session)
    notes, report = await merge_notes(snapshot, session, model, clock=clock, timeout=timeout,
                                      write_policy=write_policy, recency=recency)
    # Back on the live state, with no await below: nothing can change it while we merge.
    moved = _moved_on(state, snapshot, session, notes)
    if moved:
        # What changed meanwhile wins: re-run the rules on the memory as it is now.
        still_there = {n.id: n for n in state.session_notes}
        session = [still_there[n.id] for n in session if n.id in still_there]
        notes, report = rules_only_merge(state.global_notes, session, clock=clock,
                                         write_policy=write_policy, recency=recency)
        report = replace(report, fallback_reason=f"memory changed during consolidation ({moved}); "
                                                 "the rules re-ran on the current memory")
        state.global_notes = notes
    else:
        state.global_notes = _apply_changes(state.global_notes, snapshot, notes)
    consumed = {n.id for n in session}
    state.session_notes = [n for n in state.session_notes if n.id not in consumed]
    return report


def _moved_on(state: MemoryState, snapshot: list[MemoryNote], session: list[MemoryNote],
              result: list[MemoryNote]) -> str:
    """Did the live state change a note this run changed, or drop a session note it used?"""
    before = {n.id: n for n in snapshot}
    live = {n.id: n for n in state.global_notes}
    problems = [f"{i} {'deleted' if i not in live else 'edited'}" for i, n in
                ((n.id, n) for n in result if n.id in before and n != before[n.id])
                if live.get(i) != before[i]]
    live_session = {n.id: n for n in state.session_notes}
    problems += [f"session note {n.id} {'deleted' if n.id not in live_session else 'edited'}"
                 for n in session if live_session.get(n.id) != n]
    return ", ".join(problems)


def _apply_changes(live: list[MemoryNote], snapshot: list[MemoryNote],
                   result: list[MemoryNote]) -> list[MemoryNote]:
    """The live notes with this run's changes applied: notes written, edited or deleted
    meanwhile stay as they are now; notes the run changed (unchanged meanwhile) take its
    version; notes it created are added."""
    before = {n.id: n for n in snapshot}
    changed = {n.id: n for n in result if n.id not in before or n != before[n.id]}
    merged = [changed.pop(n.id) if n.id in changed and n.id in before else n for n in live]
    present = {n.id for n in merged}
    return merged + [n for n in changed.values() if n.id not in present and n.id not in before]


__all__ = [
    "CONSOLIDATOR_INSTRUCTIONS", "DEFAULT_TIMEOUT", "NEAR_DUPLICATE_THRESHOLD", "Conflict",
    "ConsolidationPlan", "ConsolidationReport", "MergeDecision", "Outcome", "PlanDecision", "PlanNote",
    "PlanRejected", "apply_plan", "carries", "consolidate", "consolidate_in_background", "consolidator_agent",
    "deterministic_merge", "is_near_duplicate", "merge_notes", "normalize", "notes_for_model",
    "propose_plan", "related", "render_for_model", "rules_only_merge", "similarity", "split_keywords",
    "unsupported_claims",
]
