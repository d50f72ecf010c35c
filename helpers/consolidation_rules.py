"""Stage 7 — consolidation (notebook 07), step 1: the merge with rules only.

`deterministic_merge` folds a session's notes into global memory without a model: notes already
merged are skipped (a rerun changes nothing), session-scoped notes and notes the write policy
now refuses are dropped with a reason, exact and near duplicates are folded (the copy that lives
longest, then the newest, stays active; the other is kept as superseded). `rules_only_merge`
adds the attribute rules (`helpers.attributes`); `notes_for_model` picks what the model is shown.
"""

from __future__ import annotations

import copy

from helpers.attributes import confirm_attribute_changes
from helpers.consolidation_claims import is_near_duplicate, normalize, related
from helpers.consolidation_report import (ConsolidationReport, MergeDecision, holds_until, outlives,
                                          supersede)
from helpers.state import Clock, MemoryNote, note_id, parse_time, recency
from helpers.text import content_words
from helpers.write_policy import DEFAULT_WRITE_POLICY, WritePolicy, keyword_grounded


def policy_or_default(write_policy: WritePolicy | None) -> WritePolicy:
    return DEFAULT_WRITE_POLICY if write_policy is None else write_policy


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
        gate = policy_or_default(write_policy).check(note.text, note.keywords, kind=note.kind)
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
        supersede(older, newer)
        if newer is note:
            report.decisions[note.id] = MergeDecision(note.id, "added", "newest copy of a duplicate")
        reason = "same text" if normalize(older.text) == normalize(newer.text) else "near duplicate"
        if outlives(older, newer) or outlives(newer, older):
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



def _survives(note: MemoryNote, twin: MemoryNote, clock: Clock) -> bool:
    """Of two copies of one note, does `note` stay active rather than `twin`? A copy dated after
    now never retires one that holds now (it is not shown until its date: the fact would vanish)."""
    def key(n: MemoryNote) -> tuple:
        return (not n.is_dated_after_now(clock), holds_until(n), recency(n, clock))
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


__all__ = ["deterministic_merge", "notes_for_model", "policy_or_default", "rules_only_merge", "split_keywords"]
