"""Stage 1 — the state object: a structured profile plus memory notes with provenance.

Everything the agent knows about a user lives in one `MemoryState`. It is the
`context` of an Agents SDK run, so tools and hooks reach it through
`RunContextWrapper.context`, and it never travels to the model as-is: only its
rendered strings do (see `helpers.render`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, UTC
from typing import Any, Literal, get_args
from collections.abc import Callable

Kind = Literal["fact", "preference", "event", "procedure"]
Scope = Literal["global", "session"]
Status = Literal["active", "superseded", "expired", "deleted"]
Sensitivity = Literal["public", "internal", "personal", "restricted"]

# Everything that reads "now" takes a clock, so a notebook can pin today's date.
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def fixed_clock(iso: str) -> Clock:
    """A clock that always answers the same instant, e.g. fixed_clock("2026-11-30T09:00:00Z")."""
    instant = parse_time(iso)
    return lambda: instant


def parse_time(value: str) -> datetime:
    """Parse an ISO 8601 date or datetime; naive values are taken as UTC."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected an ISO 8601 date or datetime, got {value!r}")
    text = value.replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not an ISO 8601 date or datetime: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _now(clock: Clock) -> datetime:
    now = clock()
    # A naive clock is read as UTC, as parse_time reads naive text.
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now


def recency(note: MemoryNote, clock: Clock | None = None) -> tuple[datetime, bool]:
    """How new a note is, for "the newest note wins": its observed instant, except that a note
    dated after now counts as observed now and, at that instant, below a note really observed
    then. A wrong clock or a forged date never makes a note the newest. Without a clock, the
    observed instant as written."""
    observed = parse_time(note.observed_at)
    if clock is None:
        return observed, True
    now = _now(clock)
    return (now, False) if observed > now else (observed, True)


def today(clock: Clock) -> str:
    return clock().date().isoformat()


def note_id(text: str, observed_at: str, scope: str) -> str:
    """A content-derived id: the same note observed the same day gets the same id (reproducible)."""
    digest = hashlib.sha256(f"{scope}|{observed_at}|{text}".encode()).hexdigest()
    return f"mem_{digest[:10]}"


def _check_choice(name: str, value: Any, allowed_type: Any) -> None:
    allowed = get_args(allowed_type)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


@dataclass
class MemoryNote:
    """One remembered statement and where it came from."""

    text: str
    observed_at: str  # ISO 8601 date or datetime: when the user said it
    keywords: list[str] = field(default_factory=list)
    kind: Kind = "preference"
    scope: Scope = "global"
    source_ref: str = ""  # which message, document or tool result it came from
    status: Status = "active"
    supersedes: str | None = None  # id of the note this one replaces
    superseded_by: str | None = None  # set on the old note when a newer one wins
    expires_at: str | None = None
    sensitivity: Sensitivity = "personal"
    confidence: float = 1.0
    id: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError("a memory note needs non-empty text")
        parse_time(self.observed_at)
        if self.expires_at is not None:
            parse_time(self.expires_at)
        _check_choice("kind", self.kind, Kind)
        _check_choice("scope", self.scope, Scope)
        _check_choice("status", self.status, Status)
        _check_choice("sensitivity", self.sensitivity, Sensitivity)
        if not 0.0 <= float(self.confidence) <= 1.0:
            raise ValueError(f"confidence must be within [0, 1], got {self.confidence!r}")
        self.keywords = list(self.keywords)
        if not self.id:
            self.id = note_id(self.text, self.observed_at, self.scope)

    def is_expired(self, clock: Clock) -> bool:
        if self.expires_at is None:
            return False
        return parse_time(self.expires_at) <= _now(clock)

    def is_dated_after_now(self, clock: Clock) -> bool:
        """Observed after the clock's now: a skewed clock, a typo in a year, a forged import."""
        return parse_time(self.observed_at) > _now(clock)

    def is_live(self, clock: Clock) -> bool:
        """Active and not past its expiry: the only notes that may reach a prompt."""
        return self.status == "active" and not self.is_expired(clock)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryNote:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown memory-note fields: {sorted(unknown)}")
        return cls(**data)


@dataclass
class LedgerEntry:
    """One write-policy decision. The text is never kept: at most a keyed digest of it.

    `text_hmac` is HMAC-SHA256 of the text under the state's `ledger_key` (a per-store secret),
    so repeated attempts can be matched without the key letting anyone test a guessed text;
    None when the state has no key. A refused note is never rewritten: `allowed` is False and
    `rule` names the rule (e.g. "first_person" for the agent's own answer).
    """

    at: str
    allowed: bool
    rule: str | None
    scope: str
    text_hmac: str | None = None
    note_id: str | None = None
    fallback: str | None = None  # a check that failed and fell back to the rules (the veto's error)


def _default_write_policy() -> Any:
    from helpers.write_policy import DEFAULT_WRITE_POLICY  # late: the policy imports this module

    return DEFAULT_WRITE_POLICY


# Behaviour and secrets, never serialized with the state.
_TRANSIENT = {"transient": True}


@dataclass
class MemoryState:
    """The run context: profile, notes, recent history, rendered strings, flags."""

    profile: dict[str, Any] = field(default_factory=dict)
    global_notes: list[MemoryNote] = field(default_factory=list)
    session_notes: list[MemoryNote] = field(default_factory=list)
    # Recent-history context, e.g. past trips: short lines the agent may use.
    recent_history: list[str] = field(default_factory=list)
    # Rendered strings, recomputed before every model call by the hooks.
    system_frontmatter: str = ""
    global_memories_md: str = ""
    session_memories_md: str = ""
    # Set by trimming when history was dropped: session notes must be re-injected.
    inject_session_memories_next_turn: bool = False
    ledger: list[LedgerEntry] = field(default_factory=list)
    # Provenance for notes written during this session: "<session_id>#turn<turn_index>".
    session_id: str = "session"
    turn_index: int = 0
    # A pinned "now" (ISO 8601) so notebooks are reproducible; None means the system clock.
    pinned_now: str | None = None
    # Not serialized: the rules every note must pass (helpers.write_policy), the key of the ledger's
    # digests (a per-store secret; None keeps no digest), and how many tool results the model has
    # been shown this turn (set by helpers.hooks.MemoryHooks; grounding is stricter after one).
    write_policy: Any = field(default_factory=lambda: _default_write_policy(), repr=False,
                              compare=False, metadata=_TRANSIENT)
    ledger_key: bytes | None = field(default=None, repr=False, compare=False, metadata=_TRANSIENT)
    tool_results_this_turn: int = field(default=0, repr=False, compare=False, metadata=_TRANSIENT)

    @property
    def clock(self) -> Clock:
        """The state's "now": a shared clock if one was set (the store's, see helpers.lifecycle),
        else `pinned_now`, else the system clock."""
        shared = self.__dict__.get("_shared_clock")
        if shared is not None:
            return shared
        return fixed_clock(self.pinned_now) if self.pinned_now else system_clock

    @clock.setter
    def clock(self, clock: Clock | None) -> None:
        # Not a dataclass field: a clock is behaviour, never serialized with the state.
        self.__dict__["_shared_clock"] = clock

    def source_ref(self) -> str:
        return f"{self.session_id}#turn{self.turn_index}"

    def live_notes(self, clock: Clock, scope: Scope | None = None) -> list[MemoryNote]:
        notes = {"global": self.global_notes, "session": self.session_notes}
        pool = notes[scope] if scope else self.global_notes + self.session_notes
        return [n for n in pool if n.is_live(clock)]

    def find_note(self, note_id_: str) -> MemoryNote | None:
        for note in self.global_notes + self.session_notes:
            if note.id == note_id_:
                return note
        return None

    def to_dict(self) -> dict[str, Any]:
        transient = [f.name for f in fields(self) if f.metadata.get("transient")]
        cleared: dict[str, Any] = {name: None for name in transient}
        data = asdict(replace(self, **cleared))
        for name in transient:
            del data[name]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryState:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown state fields: {sorted(unknown)}")
        data = dict(data)
        data["global_notes"] = [MemoryNote.from_dict(n) for n in data.get("global_notes", [])]
        data["session_notes"] = [MemoryNote.from_dict(n) for n in data.get("session_notes", [])]
        # An old ledger's unkeyed sha256 of blocked text is reversible: it is not read back.
        data["ledger"] = [LedgerEntry(**{k: v for k, v in e.items() if k != "text_sha256"})
                          for e in data.get("ledger", [])]
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> MemoryState:
        return cls.from_dict(json.loads(text))


def load_example_state(name: str = "travel_concierge") -> MemoryState:
    """The course's example user, from data/<name>.json (profile, dated global notes, trips)."""
    from helpers.paths import data_dir

    path = data_dir() / f"{name}.json"
    return MemoryState.from_json(path.read_text(encoding="utf-8"))


__all__ = [
    "Clock", "Kind", "LedgerEntry", "MemoryNote", "MemoryState", "Scope", "Sensitivity", "Status",
    "fixed_clock", "load_example_state", "note_id", "parse_time", "recency", "system_clock", "today",
]
