"""Stage 1 — the state object (notebook 01): a structured profile plus memory notes with provenance.

Everything the agent knows about a user lives in one `MemoryState`. It is the
`context` of an Agents SDK run, so tools and hooks reach it through
`RunContextWrapper.context`, and it never travels to the model as-is: only its
rendered strings do (see `helpers.render`).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime, UTC
from typing import Any, get_args
from collections.abc import Callable

from helpers.note_fields import InvalidField, Kind, Scope, Sensitivity, Status, valid_unicode
from helpers.write_policy import DEFAULT_WRITE_POLICY


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


# What one note, profile or id may hold (the store's hard limits; the write policy refuses more:
# a note is one short sentence). Bounded fields keep every check bounded in time.
TEXT_CHARS = 1000  # a note's text, a profile value
KEYWORDS_PER_NOTE = 5  # the capture tool keeps three
KEYWORD_CHARS = 40  # a topic word or two
SOURCE_CHARS = 200  # a note's source_ref, a session id
ID_CHARS = 100  # a note id (and the ids a note links to)
OWNER_CHARS = 256  # a tenant or user id
PROFILE_KEY_CHARS = 100
PROFILE_DEPTH = 8
PROFILE_ITEMS = 1000  # keys and values, counted over the whole profile
# A note id is a name, not content: letters, digits and _ . : # - (content ids are "mem_<hex>").
_ID = re.compile(r"[A-Za-z0-9_.:#-]+")


def checked_text(name: str, value: Any, limit: int) -> str:
    """`value` if it is a str of at most `limit` characters that UTF-8 can encode, else InvalidField."""
    if not isinstance(value, str):
        raise InvalidField(f"{name} must be a str, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidField(f"{name} has {len(value):,} characters; the limit is {limit:,}")
    return valid_unicode(name, value)


def checked_id(name: str, value: Any) -> str:
    """A note id: a short name of letters, digits and _ . : # - (InvalidField otherwise)."""
    checked_text(name, value, ID_CHARS)
    if not _ID.fullmatch(value):
        raise InvalidField(f"{name} must be letters, digits and _ . : # - only, got {value!r}")
    return value


def owner_id(name: str, value: Any) -> str:
    """A tenant or user id as the store keeps it: non-empty text, NFC-normalised, so the
    composed and decomposed spellings of "Zoë" are one user."""
    checked_text(name, value, OWNER_CHARS)
    if not value:
        raise InvalidField(f"{name} must be a non-empty string, got {value!r}")
    return unicodedata.normalize("NFC", value)


def checked_keywords(keywords: Any) -> list[str]:
    """A note's keywords as a list: a list (or tuple) of at most KEYWORDS_PER_NOTE short strings."""
    if isinstance(keywords, str):
        raise InvalidField(f"keywords must be a list of words, not one string: [{keywords!r}], not {keywords!r}")
    if not isinstance(keywords, (list, tuple)):
        raise InvalidField(f"keywords must be a list of strings, got {type(keywords).__name__}")
    if len(keywords) > KEYWORDS_PER_NOTE:
        raise InvalidField(f"a note has {len(keywords)} keywords; the limit is {KEYWORDS_PER_NOTE}")
    return [checked_text(f"keyword {i}", k, KEYWORD_CHARS) for i, k in enumerate(keywords)]


def check_note_fields(note: MemoryNote) -> None:
    """Every field of a note valid: text and ids within their limits (InvalidField), dates ISO
    8601, kind, scope, status and sensitivity among their choices, confidence in [0, 1] (ValueError).
    Run when a note is made and again at the store's write boundary (a field can be reassigned)."""
    checked_text("text", note.text, TEXT_CHARS)
    if not note.text.strip():
        raise InvalidField("a memory note needs non-empty text")
    parse_time(note.observed_at)
    if note.expires_at is not None:
        parse_time(note.expires_at)
    _check_choice("kind", note.kind, Kind)
    _check_choice("scope", note.scope, Scope)
    _check_choice("status", note.status, Status)
    _check_choice("sensitivity", note.sensitivity, Sensitivity)
    if not 0.0 <= float(note.confidence) <= 1.0:
        raise ValueError(f"confidence must be within [0, 1], got {note.confidence!r}")
    note.keywords = checked_keywords(note.keywords)
    checked_text("source_ref", note.source_ref, SOURCE_CHARS)
    for name in ("id", "supersedes", "superseded_by"):
        value = getattr(note, name)
        if value is not None and (name != "id" or value):
            checked_id(name, value)


def check_profile(profile: Any) -> None:
    """A profile as JSON can hold it, within the limits: keys are short strings, values text
    (TEXT_CHARS), numbers, true/false, null, lists and objects, nested at most PROFILE_DEPTH
    deep and PROFILE_ITEMS keys and values in all (InvalidField otherwise)."""
    if not isinstance(profile, dict):
        raise InvalidField(f"the profile must be a dict, got {type(profile).__name__}")
    count = 0

    def walk(value: Any, where: str, depth: int) -> None:
        nonlocal count
        count += 1
        if count > PROFILE_ITEMS:
            raise InvalidField(f"the profile holds more than {PROFILE_ITEMS} keys and values")
        if depth > PROFILE_DEPTH:
            raise InvalidField(f"{where} is nested deeper than {PROFILE_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                checked_text(f"the key {where}.{str(key)[:40]!r}", key, PROFILE_KEY_CHARS)
                walk(item, f"{where}.{key}", depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]", depth + 1)
        elif isinstance(value, str):
            checked_text(where, value, TEXT_CHARS)
        elif value is not None and not isinstance(value, (bool, int, float)):
            raise InvalidField(f"{where} must be text, a number, true/false, null, a list or an "
                               f"object, got {type(value).__name__}")

    walk(profile, "profile", 0)


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
        check_note_fields(self)
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
        _no_unknown_fields(cls, data, "memory-note")
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


def _no_unknown_fields(cls: type, data: dict[str, Any], what: str) -> None:
    """ValueError naming the keys of `data` that are no field of the dataclass `cls`."""
    unknown = set(data) - {f.name for f in fields(cls)}
    if unknown:
        raise ValueError(f"unknown {what} fields: {sorted(unknown)}")


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
    write_policy: Any = field(default_factory=lambda: DEFAULT_WRITE_POLICY, repr=False,
                              compare=False, metadata=_TRANSIENT)
    ledger_key: bytes | None = field(default=None, repr=False, compare=False, metadata=_TRANSIENT)
    tool_results_this_turn: int = field(default=0, repr=False, compare=False, metadata=_TRANSIENT)
    # ...and what those tool results said (their text, set by the same hook): a note must not be it.
    documents_this_turn: str = field(default="", repr=False, compare=False, metadata=_TRANSIENT)

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
        _no_unknown_fields(cls, data, "state")
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
    "Clock", "ID_CHARS", "InvalidField", "KEYWORDS_PER_NOTE", "KEYWORD_CHARS", "Kind", "LedgerEntry",
    "MemoryNote", "MemoryState", "OWNER_CHARS", "PROFILE_DEPTH", "PROFILE_ITEMS", "PROFILE_KEY_CHARS",
    "SOURCE_CHARS", "Scope", "Sensitivity", "Status", "TEXT_CHARS", "check_note_fields",
    "check_profile", "checked_id", "checked_keywords", "checked_text", "fixed_clock",
    "load_example_state", "note_id", "owner_id", "parse_time", "recency", "system_clock", "today", "valid_unicode",
]
