"""Stage 8 — persistence (notebook 08): what every memory store backend shares, no SQL.

`helpers.store` (SQLite, the default) and `helpers.store_postgres` keep their own SQL; the
bookkeeping around it (the handle, the write boundary every write path calls, the checks before an
erasure, the audit texts, the write methods' bodies) lives here once, so the two backends cannot
drift apart. The export format is `helpers.store_export`, the store's key `helpers.store_key`.
Notebook 08 (persistence) teaches them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

from helpers.retrieval import (
    SEARCH_LIMIT,
    THRESHOLD,
    WEIGHTS,
    RankWeights,
    Ranking,
    ScoredNote,
    query_terms,
    rank,
)
from helpers.state import (
    SOURCE_CHARS,
    MemoryNote,
    MemoryState,
    check_note_fields,
    check_profile,
    checked_text,
    owner_id,
    parse_time,
)
from helpers.caseless import loose
from helpers.consolidation_claims import carries
from helpers.store_erasure import (
    CheckpointResult,
    Erasure,
    ErasureNotice,
    ForgetPlan,
    PROFILE_AUDIT,
    check_forget,
    forget_profile_reason,
    keyed_audit_id,
    leaves,
    masked_reason,
    plan_forget,
    said_by,
    without_keyed,
)

if TYPE_CHECKING:
    from helpers.store_export import Imported  # it imports this module
from helpers.write_policy import (
    DEFAULT_WRITE_POLICY,
    MAX_OTHER_NOTES,
    WritePolicy,
    raise_refused,
    refused_notes,
    refused_profile,
    refused_texts,
)

# The columns a note is read back from, in every backend.
NOTE_COLUMNS = (
    "id", "text", "keywords", "kind", "scope", "observed_at", "source_ref", "status", "supersedes",
    "superseded_by", "expires_at", "sensitivity", "confidence",
)
SELECT_NOTE = ", ".join(NOTE_COLUMNS)
# The columns of a `notes` row, in `note_row`'s order.
ROW_COLUMNS = ("tenant_id", "user_id", *NOTE_COLUMNS, "session_id", "superseded_at", "observed_utc", "expires_utc")


def upsert_note_sql(placeholder: str, extra: tuple[str, ...] = ()) -> str:
    """The upsert of one `notes` row (`note_row`'s columns, then `extra`: a backend's own), with
    the backend's parameter `placeholder` ("?" or "%s"): the same note id for the same user
    replaces the stored note; the session it came from is kept when the new row names none,
    and the time it was superseded while it stays superseded."""
    columns = (*ROW_COLUMNS, *extra)
    replaced = [f"{c} = excluded.{c}" for c in (*NOTE_COLUMNS[1:], "observed_utc", "expires_utc", *extra)]
    replaced += ["session_id = COALESCE(excluded.session_id, notes.session_id)",
                 "superseded_at = CASE WHEN excluded.status = 'superseded' "
                 "THEN COALESCE(excluded.superseded_at, notes.superseded_at) END"]
    return (f"INSERT INTO notes ({', '.join(columns)}) VALUES ({', '.join([placeholder] * len(columns))}) "
            f"ON CONFLICT (tenant_id, user_id, id) DO UPDATE SET {', '.join(replaced)}")


# Read with expiry switched off (`open(..., expiry=False)`): an instant before every expiry.
BEFORE_EVERY_EXPIRY = "0001-01-01T00:00:00.000000Z"


@dataclass(frozen=True)
class AuditEntry:
    """Something happened to a user's memory. Never holds note text."""

    at: str
    action: str
    note_id: str | None
    reason: str


def utc(value: str | datetime) -> str:
    """Canonical UTC text with fixed width, so SQL can compare instants as strings."""
    instant = parse_time(value) if isinstance(value, str) else value
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def expires_utc(note: MemoryNote) -> str | None:
    return utc(note.expires_at) if note.expires_at else None


def check_owner(tenant_id: str, user_id: str) -> tuple[str, str]:
    """A handle's ids as the store keeps them: non-empty text, NFC-normalised (`state.owner_id`),
    so two spellings of one id reach one user's memory (InvalidField otherwise)."""
    return owner_id("tenant_id", tenant_id), owner_id("user_id", user_id)


def long_term(notes: Iterable[MemoryNote]) -> list[MemoryNote]:
    """The notes as a list, refused if any is not a global (long-term) MemoryNote."""
    notes = list(notes)
    for note in notes:
        if not isinstance(note, MemoryNote):
            raise TypeError(f"expected MemoryNote, got {type(note).__name__}")
        if note.scope != "global":
            raise ValueError(f"note {note.id} is session-scoped: stage it with stage_session_notes")
    return notes


def note_from_columns(data: Mapping[str, Any] | Any) -> MemoryNote:
    """A note from a row (any mapping by column name, sqlite3.Row too) holding `NOTE_COLUMNS`,
    keywords stored as JSON; other columns are ignored."""
    return MemoryNote(**{**{k: data[k] for k in NOTE_COLUMNS}, "keywords": json.loads(data["keywords"])})


def note_row(tenant_id: str, user_id: str, note: MemoryNote, session_id: str | None,
             superseded_at: str | None) -> tuple:
    """One `notes` row in every backend's column order (NOTE_COLUMNS with the owner, the session,
    `superseded_at` and the canonical UTC instants); PostgreSQL appends its folded forms."""
    return (
        tenant_id, user_id, note.id, note.text, json.dumps(note.keywords, ensure_ascii=False),
        note.kind, note.scope, note.observed_at, note.source_ref, note.status, note.supersedes,
        note.superseded_by, note.expires_at, note.sensitivity, float(note.confidence), session_id,
        superseded_at, utc(note.observed_at), expires_utc(note),
    )


def as_it_was(note: MemoryNote, superseded_at: str | None) -> MemoryNote:
    """For `as_of`: a note superseded later was still current then, and a note stored as expired
    (it expired before it was consolidated) was live before its expiry: show it as it was."""
    if superseded_at:
        return replace(note, status="active", superseded_by=None)
    return replace(note, status="active") if note.status == "expired" else note



class StoreBase:
    """What a store object does the same on every backend (each has its own `open`)."""

    write_policy: WritePolicy = DEFAULT_WRITE_POLICY  # every write path checks it
    expiry = True  # False serves expired notes as live (evals switch the guard off)

    def _with_options(self, write_policy: WritePolicy | None, expiry: bool) -> Self:
        """`open`'s options: the write policy (default DEFAULT_WRITE_POLICY) and expiry."""
        self.expiry = expiry
        if write_policy is not None:
            self.write_policy = write_policy
        return self

    _key: bytes

    @property
    def secret(self) -> bytes:
        """This store's key: keys ledger digests and audit ids. Kept outside the database (a key
        file beside a SQLite file, or the `key` passed to `open`); the database holds a check only."""
        return self._key

    def audit_id(self, note_id: str) -> str:
        """The id an audit row keeps for an erased note: keyed, so a guessed text cannot be
        confirmed from it (note ids are a plain hash of scope, date and text)."""
        return keyed_audit_id(self.secret, note_id)

    def user_audit_id(self, tenant_id: str, user_id: str) -> str:
        """The user id the audit row of `erase_user` keeps: keyed, so a dump of the audit table
        does not name the erased user, while whoever knows the id can find the row
        (`store.for_user(tenant, user).audit_log()` reads it)."""
        return keyed_audit_id(self.secret, f"user\x00{tenant_id}\x00{user_id}").replace("erased_", "erased_user_")

    @property
    def erasure_listeners(self) -> list[Callable[[ErasureNotice], None]]:
        """Called, in order, after every erasure this store commits (`forget`, `erase_user`, on any
        handle), with an `ErasureNotice`: what holds copies of a user's words outside the store
        (the stored conversations, `helpers.lifecycle.watch_conversations`) erases them at once,
        not when a session next reads the store. A listener that fails raises to the caller of
        the erasure, whose rows are already gone."""
        return self.__dict__.setdefault("_erasure_listeners", [])

    def announce_erasure(self, notice: ErasureNotice) -> None:
        for listener in list(self.erasure_listeners):
            listener(notice)

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class UserMemoryBase:
    """A handle bound to one (tenant, user): what it does the same on every backend.

    Each backend's subclass runs its own SQL; `_store` is its store (clock, write policy, secret).
    """

    def __init__(self, store: Any, tenant_id: str, user_id: str) -> None:
        self._store = store
        self._tenant_id = tenant_id
        self._user_id = user_id
        # Ids this handle has read (load_state) or staged, so a write can tell a note erased since
        # (forget, erase_user, an import: nothing else deletes) from a new one and not revive it.
        self._seen_stored: set[str] = set()
        self._seen_staged: dict[str, set[str]] = {}

    @property
    def tenant_id(self) -> str:
        return self._tenant_id

    @property
    def user_id(self) -> str:
        return self._user_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tenant_id={self._tenant_id!r}, user_id={self._user_id!r})"

    def _erased_as(self) -> str:
        """The user id `erase_user`'s audit row keeps (see `StoreBase.user_audit_id`)."""
        return self._store.user_audit_id(self._tenant_id, self._user_id)

    def _owner(self, **params: Any) -> dict[str, Any]:
        return {"tenant": self._tenant_id, "user": self._user_id, **params}

    def _now(self) -> str:
        return utc(self._store.clock())

    def _live_now(self) -> str:
        """The instant live notes must not have expired by (none expire with expiry off)."""
        return self._now() if self._store.expiry else BEFORE_EVERY_EXPIRY

    def _state(
        self,
        profile: str | None,
        notes: list[MemoryNote],
        default_profile: dict[str, Any] | None,
        state_fields: dict[str, Any],
    ) -> MemoryState:
        """`load_state`'s result from the stored profile (JSON text or None) and live notes."""
        fields = {
            "write_policy": self._store.write_policy,
            "ledger_key": self._store.secret,
            **state_fields,
        }
        loaded = json.loads(profile) if profile is not None else dict(default_profile or {})
        self._loaded(notes)
        return MemoryState(profile=loaded, global_notes=notes, **fields)

    # -- erased while a session held them ---------------------------------------------------------

    def _present_ids(self, conn: Any, among: Iterable[str] | None = None) -> set[str]:
        """The backend's ids of this user's stored and staged notes (of those `among`, if given)."""
        raise NotImplementedError

    def _gone_among(self, conn: Any, ids: Iterable[str]) -> set[str]:
        """Of `ids`, those this handle saw and that are erased since: a lookup of those ids only
        (staging runs every turn; reading every id of a large memory took 19 ms at 10,000 notes)."""
        seen = set(ids) & self._seen()
        return seen - self._present_ids(conn, sorted(seen)) if seen else set()

    def _seen(self) -> set[str]:
        """Every id this handle has loaded or staged."""
        return self._seen_stored.union(*self._seen_staged.values())

    def _gone(self, present: set[str]) -> set[str]:
        return self._seen() - present

    def erased(self) -> set[str]:
        """Ids of notes this handle loaded or staged that have been erased since (by `forget`,
        `erase_user` or an import, through any handle): a session holding them must drop them,
        and this handle's later writes never store them again."""
        with self._read() as conn:
            return self._gone(self._present_ids(conn))

    def erasure_mark(self) -> Any:
        """A value that changes whenever this user's memory is erased or replaced (`forget` that
        erased something, `erase_user`, `import_json`), through any handle or process; compare
        two with `==`. Cheap to poll: one index lookup, whatever the user's memory holds. Every
        erasure writes an audit row, so the mark is the user's newest audit row (its sequence
        number and action: SQLite may give a new row the number of a row `erase_user` deleted,
        and then the action differs)."""
        with self._read() as conn:
            return self._erasure_mark(conn)

    def _erasure_mark(self, conn: Any) -> Any:
        raise NotImplementedError

    def _read(self) -> Any:
        """The backend's read transaction (a context manager yielding the connection)."""
        raise NotImplementedError

    def _without_erased(self, notes: list[MemoryNote], gone: set[str]) -> list[MemoryNote]:
        """`notes` minus the erased ones and the notes made from them, links to those cleared.

        A note this handle never saw that names an erased note as its predecessor, or that an
        erased note names as its successor, was made from it (a merged note): it carries erased
        words and is not written either. A note retired into a dropped one is active again."""
        if not gone:
            return notes
        seen = self._seen()
        retired_into = {n.superseded_by for n in notes if n.id in gone and n.superseded_by}
        dropped = gone | {n.id for n in notes if n.id not in seen and (n.supersedes in gone or n.id in retired_into)}
        kept = []
        for note in notes:
            if note.id in dropped:
                continue
            if note.supersedes in dropped:
                note = replace(note, supersedes=None)
            if note.superseded_by in dropped:
                note = replace(note, superseded_by=None,
                               status="active" if note.status == "superseded" else note.status)
            kept.append(note)
        return kept

    def _loaded(self, notes: Iterable[MemoryNote]) -> None:
        self._seen_stored.update(n.id for n in notes)

    def _staged(self, session_id: str, notes: Iterable[MemoryNote]) -> None:
        self._seen_staged.setdefault(session_id, set()).update(n.id for n in notes)

    def _committed(self, session_id: str, notes: Iterable[MemoryNote]) -> None:
        """The session's staged rows are gone (by design) and its notes stored."""
        self._seen_staged.pop(session_id, None)
        self._seen_stored.update(n.id for n in notes)

    def _admit(self, conn: Any, *, notes: Iterable[tuple[MemoryNote, str | None]] = (),
               staged: Iterable[tuple[str, MemoryNote]] = (), profile: dict[str, Any] | None = None,
               replacing: bool = False) -> None:
        """The store's write boundary: every write path calls it inside its transaction, before it
        writes anything, and it refuses the whole write (PolicyRefused, or InvalidField for a field
        out of its limits) if any part of it fails. Checked, every one by the store's write policy
        as the capture tool checks a note: each note's text with its keywords and kind, its
        source_ref, the session id it is written under, and every profile key (at any depth,
        whatever its value) and value; and each note's number with the user's other notes (the
        rest of this write, then the newest stored live notes, unless the write replaces memory:
        `replacing`, an import), so a card split across notes or writes is refused.
        Limits first (`helpers.state.check_note_fields`, `check_profile`): bounded fields keep
        every check bounded in time."""
        notes, staged = list(notes), list(staged)
        every = [n for n, _ in notes] + [n for _, n in staged]
        for note in every:
            if not isinstance(note, MemoryNote):
                raise TypeError(f"expected MemoryNote, got {type(note).__name__}")
            check_note_fields(note)
        sessions = sorted({s for _, s in notes if s is not None} | {s for s, _ in staged})
        for session_id in sessions:
            checked_text("session_id", session_id, SOURCE_CHARS)
        if profile is not None:
            check_profile(profile)
        policy = self._store.write_policy
        stored = [] if replacing or not every else self._active(conn, None, MAX_OTHER_NOTES)[::-1]
        refused = refused_notes(policy, every, stored)
        refused += refused_texts(policy, [(f"session {s!r}"[:60], s) for s in sessions])
        if profile is not None:
            refused += refused_profile(policy, profile)
        raise_refused("the write", refused)

    def _active(self, conn: Any, keywords: Iterable[str] | None, limit: int | None) -> list[MemoryNote]:
        """The backend's live notes of this user, oldest first (`limit`: the newest)."""
        raise NotImplementedError

    # -- writing: one body for every backend, the SQL in each backend's `_write_notes`, `_stage` --

    def add_notes(self, notes: Iterable[MemoryNote], *, session_id: str | None = None) -> int:
        """Write long-term notes (same id replaces); returns how many were written.

        Every note passes the write boundary first (`_admit`); if any is refused, none is written
        and PolicyRefused lists them."""
        notes = long_term(notes)
        with self._write() as conn:
            self._admit(conn, notes=[(n, session_id) for n in notes])
            self._write_notes(conn, notes, session_id, [])
        return len(notes)

    def stage_session_notes(self, session_id: str, notes: Iterable[MemoryNote]) -> int:
        """Persist notes captured during a session, so a crash before consolidation loses none.
        A note this handle staged or loaded before and that was erased since is not staged again."""
        notes = list(notes)
        with self._write() as conn:
            self._admit(conn, staged=[(session_id, n) for n in notes])
            gone = self._gone_among(conn, [n.id for n in notes])
            notes = [n for n in notes if n.id not in gone]
            self._stage(conn, [(session_id, n) for n in notes])
        self._staged(session_id, notes)
        return len(notes)

    def _write_notes(self, conn: Any, notes: list[MemoryNote], session_id: str | None,
                     superseded: list[str]) -> None:
        """Upsert `notes` and retire what they supersede (and the ids in `superseded`)."""
        raise NotImplementedError

    def _stage(self, conn: Any, staged: list[tuple[str, MemoryNote]]) -> None:
        """Upsert (session id, note) rows among the staged notes."""
        raise NotImplementedError

    # -- erasure -----------------------------------------------------------------------------------

    def forget(self, note_id: str | None = None, *, matching: str | None = None,
               reason: str = "user request") -> Erasure:
        """Erase a note by id, or every note whose text or a keyword contains `matching` (any
        case, any accents), with every stored copy of it; `matching` clears it from the profile too.

        Which notes go with the ones asked for (a merged note or duplicate made from them) and
        which come back (a note merged alongside, whose live copy that was) is `plan_forget`'s.
        The rows are deleted (long-term and staged, any status), links to them in supersede
        chains cleared, and one audit row per note records its keyed id (`store.audit_id`), the
        time and `reason`, never the text (what `reason` repeats of it becomes "[erased]",
        `masked_reason`); one more counts the profile values cleared. Returns
        the count as an `Erasure`: `.derived`, `.restored`, `.lost` and `.profile_fields` say
        what else happened, `.checkpoint` whether the text is off disk or what is pending.
        """
        check_forget(note_id, matching, reason)
        # plan_forget reads notes as consolidation does; its first import (the Agents SDK: a
        # second or two) happens here, not while holding the write lock.
        import helpers.consolidation  # noqa: F401
        with self._write() as conn:
            profile = self._profile_text(conn)
            stored, staged = self._all_notes(conn), self._all_staged(conn)
            plan = plan_forget(stored, staged, None if profile is None else json.loads(profile), note_id, matching)
            reason = masked_reason(reason, [matching] if matching else [], plan.said)
            self._erase(conn, plan, self._audit_rows(plan, reason))
        erasure = Erasure(len(plan.erase), self._after_erasure(len(plan.erase) + len(plan.profile_fields)),
                          derived=plan.derived, restored=plan.restore, lost=plan.lost,
                          profile_fields=plan.profile_fields)
        if plan.erase or plan.profile_fields or matching:
            self._store.announce_erasure(ErasureNotice(self._tenant_id, self._user_id,
                                                       (matching,) if matching else (),
                                                       tuple(dict.fromkeys(n.text for n in [*stored, *staged]
                                                                           if n.id in plan.erase))
                                                       + tuple(plan.profile_said), tuple(plan.erase)))
        return erasure

    def _erased_user(self, erasure: Erasure, said: list[str]) -> Erasure:
        """After `erase_user` committed: every listener hears that all of the user's words go."""
        self._store.announce_erasure(ErasureNotice(self._tenant_id, self._user_id, (), tuple(said),
                                                   everything=True))
        return erasure

    def _audit_rows(self, plan: ForgetPlan, reason: str) -> list[dict[str, Any]]:
        """The audit rows of a `forget`: a keyed id per note, a count for the profile."""
        rows = [self._owner(at=self._now(), id=self._store.audit_id(i), reason=reason) for i in plan.erase]
        if plan.profile_fields:  # its id: a keyed id of each key and value cleared, for import_json
            keyed = sorted({self._profile_audit_id(t) for t in plan.profile_said})
            rows.append(self._owner(at=self._now(), id=PROFILE_AUDIT + ",".join(keyed),
                                    reason=forget_profile_reason(reason, len(plan.profile_fields))))
        return rows

    def _profile_audit_id(self, leaf: str) -> str:
        """A profile key or value as the audit keeps it: keyed, and `loose` (any case, accents)."""
        return self._store.audit_id(f"profile\x00{loose(leaf)}")

    def _said(self, conn: Any) -> list[str]:
        """What this user's memory says (notes of any status, staged notes, the profile): the
        words `erase_user` keeps out of its audit row."""
        profile = self._profile_text(conn)
        return said_by([*self._all_notes(conn), *self._all_staged(conn)]) + (
            leaves(json.loads(profile)) if profile is not None else [])

    def _forgotten(self, conn: Any) -> set[str]:
        """The keyed ids (`store.audit_id`) of the notes this user forgot: their audit rows."""
        raise NotImplementedError

    def _not_forgotten(self, conn: Any, imported: Imported) -> tuple[Imported, int]:
        """An import without the notes the user had forgotten (an export taken before `forget`
        must not bring them back): a note whose keyed id has a `forget` audit row is left out,
        staged or stored (the copies `forget` took have rows of their own), links to it are
        cleared, and a note retired into it is live again if it was its copy (as `forget` does);
        a profile key or value `forget(matching=)` cleared (its keyed id is in the audit) is
        cleared again. Returns the import and how many notes were left out.

        Only this user's own exports are filtered (another user's notes are not this user's
        erased words, though the same text gives the same id), and a note the store holds now
        is no resurrection: the user said it again after the erasure."""
        if imported.owner is not None and imported.owner != (self._tenant_id, self._user_id):
            return imported, 0
        forgotten = self._forgotten(conn)
        every = [n for n, _, _ in imported.notes] + [n for _, n in imported.staged]
        drop = {n.id: n for n in every if self._store.audit_id(n.id) in forgotten}
        for again in self._present_ids(conn, sorted(drop)) if drop else ():
            drop.pop(again)
        cleared = {k for f in forgotten if f.startswith(PROFILE_AUDIT) for k in f[len(PROFILE_AUDIT):].split(",")}
        if cleared and imported.profile is not None:
            imported = replace(imported, profile=without_keyed(imported.profile, cleared, self._profile_audit_id))
        if not drop:
            return imported, 0
        notes = []
        for note, session_id, superseded_at in imported.notes:
            if note.id in drop:
                continue
            if note.supersedes in drop:
                note = replace(note, supersedes=None)
            if note.superseded_by in drop:
                copy = note.status == "superseded" and carries(drop[note.superseded_by].text, note.text)
                note = replace(note, superseded_by=None, status="active" if copy else note.status)
                superseded_at = None if copy else superseded_at
            notes.append((note, session_id, superseded_at))
        staged = [(s, n) for s, n in imported.staged if n.id not in drop]
        return replace(imported, notes=notes, staged=staged), len(drop)

    def stored_profile(self) -> dict[str, Any] | None:
        """The stored profile, or None if there is none."""
        with self._read() as conn:
            text = self._profile_text(conn)
        return None if text is None else json.loads(text)

    # What each backend runs in its own SQL.
    def _write(self) -> Any:
        """A write transaction (a context manager yielding the connection)."""
        raise NotImplementedError

    def _profile_text(self, conn: Any) -> str | None:
        raise NotImplementedError

    def _all_notes(self, conn: Any) -> list[MemoryNote]:
        """Every stored note of this user, any status."""
        raise NotImplementedError

    def _all_staged(self, conn: Any) -> list[MemoryNote]:
        raise NotImplementedError

    def _erase(self, conn: Any, plan: ForgetPlan, audit: list[dict[str, Any]]) -> None:
        """Delete `plan.erase` (stored and staged), clear the links to them, make `plan.restore`
        active, store `plan.profile` if set, and write the `audit` rows (at, id, reason)."""
        raise NotImplementedError

    def _after_erasure(self, erased: int) -> CheckpointResult:
        """Whether what was erased is off disk."""
        raise NotImplementedError

    def search(self, query: str, **options: Any) -> list[ScoredNote]:
        """This user's live notes that serve `query`, best first, each with its score parts.

        Full-text recall inside this user's live notes of `kinds` (all kinds if None), then
        `helpers.retrieval.rank`: dedupe, rerank, threshold, limit. The options (`kinds`,
        `limit`, `threshold`, `weights`) are `search_ranking`'s.
        """
        return self.search_ranking(query, **options).kept

    def search_ranking(
        self,
        query: str,
        *,
        kinds: Iterable[str] | None = None,
        limit: int = SEARCH_LIMIT,
        threshold: float = THRESHOLD,
        weights: RankWeights = WEIGHTS,
    ) -> Ranking:
        """`search`, plus the recalled notes it dropped and why (for the prompt inspector)."""
        terms = query_terms(query)
        if not terms:
            return Ranking([])
        notes, total = self._recall(terms, None if kinds is None else sorted(set(kinds)))
        return rank(
            notes,
            query,
            self._store.clock(),
            total_notes=total,
            limit=limit,
            threshold=threshold,
            weights=weights,
        )

    def _recall(self, terms: list[str], kinds: list[str] | None) -> tuple[list[MemoryNote], int]:
        """The backend's full-text recall: this user's live notes of `kinds` (all if None) that
        match any of `terms` (letters and digits only), at most RECALL_LIMIT of them, and how many
        live notes the user has (for BM25's document frequencies)."""
        raise NotImplementedError


__all__ = [
    "AuditEntry",
    "NOTE_COLUMNS",
    "SELECT_NOTE",
    "StoreBase",
    "UserMemoryBase",
    "upsert_note_sql",
    "as_it_was",
    "check_owner",
    "expires_utc",
    "long_term",
    "note_from_columns",
    "note_row",
    "utc",
]
