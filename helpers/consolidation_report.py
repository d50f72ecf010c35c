"""Stage 7 — consolidation (notebook 07): what a merge decided, and how one decision is recorded.

`ConsolidationReport` holds one `MergeDecision` per input note, the `Conflict`s that go to the
user, and why the model's plan was or was not used. `supersede` retires a note into a newer one
(kept, linked both ways: nothing is deleted); `resolve_conflict` lets recency, not the model,
say which of two clashing notes wins, and `ask_user` keeps both active when recency cannot.
The rules-only merge (`helpers.consolidation_rules`), the model's plan
(`helpers.consolidation_plan`) and the attribute rules (`helpers.attributes`) all record here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from helpers.state import MemoryNote, parse_time

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


def holds_until(note: MemoryNote) -> datetime:
    """When the note stops holding: its expiry, or never."""
    return parse_time(note.expires_at) if note.expires_at else datetime.max.replace(tzinfo=UTC)


def outlives(a: MemoryNote, b: MemoryNote) -> bool:
    return holds_until(a) > holds_until(b)


def supersede(older: MemoryNote, newer: MemoryNote) -> None:
    older.status, older.superseded_by = "superseded", newer.id
    if newer.supersedes is None:
        newer.supersedes = older.id



def resolve_conflict(note: MemoryNote, other: MemoryNote, action: str, reason: str,
                     report: ConsolidationReport, *, recency: bool = True) -> None:
    """The model only spots that two notes clash; recency, not the model, says which one wins.

    Whichever way round the model named them, the older note is superseded by the newer one.
    A same-day clash, or one the model calls a conflict, is not guessed: it goes to the user.
    """
    now = parse_time(report.at)
    future = [n for n in (note, other) if parse_time(n.observed_at) > now]
    # The same instant however it is written ("2026-11-29", "2026-11-29T10:00:00+10:00"), or a note
    # dated after now (a wrong clock, a typo), cannot be ordered: recency does not decide those.
    if action == "supersede" and _orderable(note, other) and not future:
        # recency=False trusts the model's direction (evals switch the guard off to show its worth).
        older, newer = sorted((note, other), key=lambda n: parse_time(n.observed_at)) if recency else (note, other)
        if older.status != "active":
            report.overruled.append(f"supersede {older.text!r}: already replaced by {older.superseded_by}")
            return
        if outlives(older, newer):
            # The newer note holds until it expires; the older one must still be there after.
            report.overruled.append(f"supersede {older.text!r} by {newer.text!r}: the newer note expires "
                                    f"({newer.expires_at}) and the older one outlives it, so both stay")
            return
        supersede(older, newer)
        report.decisions[older.id] = MergeDecision(older.id, "superseded", f"newer note wins; {reason}", newer.id)
        return
    why = ("the model flagged a contradiction" if action == "conflict"
           else f"dated after now ({future[0].observed_at}): recency cannot decide" if future
           else "same date: recency cannot decide")
    ask_user(note, other, f"{why}; {reason}", report)


def _orderable(a: MemoryNote, b: MemoryNote) -> bool:
    """Can recency tell which note is newer? Not at the same instant, nor when one gives only a day
    ("2026-11-29") and the other falls on that day (UTC): the day-only note may be the later one."""
    ta, tb = parse_time(a.observed_at), parse_time(b.observed_at)
    if ta == tb:
        return False
    day_only = [n for n in (a, b) if "T" not in n.observed_at.upper() and " " not in n.observed_at.strip()]
    return not (day_only and ta.astimezone(UTC).date() == tb.astimezone(UTC).date())


def ask_user(note: MemoryNote, other: MemoryNote, why: str, report: ConsolidationReport) -> None:
    """Both notes stay active and the user is asked which one holds."""
    if any(set(c.note_ids) == {note.id, other.id} for c in report.needs_user):
        return
    report.needs_user.append(Conflict((note.id, other.id), (note.text, other.text), why))
    short = why.split(";")[0]
    for n, o in ((note, other), (other, note)):
        if n.id in report.decisions and report.decisions[n.id].outcome in ("kept", "added"):
            report.decisions[n.id] = MergeDecision(n.id, "needs_user", short + "; both stay active", o.id)


__all__ = [
    "Conflict", "ConsolidationReport", "MergeDecision", "MergedAChange", "Outcome", "PlanRejected", "ask_user",
    "holds_until", "outlives", "resolve_conflict", "supersede",
]
