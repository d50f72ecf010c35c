"""Stage 8 — persistence (notebook 08): one SQLite store, a handle per (tenant, user).

`MemoryStore.open(path)` opens (or creates) the store; `store.for_user(tenant_id, user_id)`
returns a `UserMemory` handle bound to one user. Nothing on the handle takes a user id, and
every query it runs filters tenant, user, status and expiry in SQL, so one user's notes
cannot reach another user's prompt by mistake.

Guarantees, each backed by SQLite rather than by care:
- Session notes are staged in the store as they are captured, and a consolidation writes the
  merged notes and removes the staged ones in ONE transaction: a crash loses nothing.
- `forget` and `erase_user` are real erasure: the rows are deleted with `secure_delete` on
  and the WAL is checkpointed and truncated, so the text is gone from disk; an audit row keeps
  a keyed id of the note (of the user, for `erase_user`), the time and the reason, in which what
  was erased becomes "[erased]". `forget` takes every stored copy with it
  (`helpers.store_erasure.plan_forget`), and an export taken before it, imported after, does not
  bring it back (the audit's keyed ids say what was forgotten). While another connection
  holds an older snapshot the WAL cannot be emptied: the call says so (`Erasure.checkpoint`),
  and the store retries after every later write and on close until it is done.
- Matching is Unicode-aware (NFKC + casefold): "ZÜRICH" finds "Zürich", "Élodie" finds
  "élodie". Keywords are indexed casefolded, so keyword filters stay index lookups.
- A corrupt file or write-ahead log, a schema newer than this code, or a locked file raises a
  `StoreError` before anything is written; a full disk or a read-only file fails the write
  with a clear error and leaves the stored memory as it was.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator

from helpers.caseless import caseless
from helpers.retrieval import RECALL_LIMIT
from helpers.state import Clock, MemoryNote, MemoryState, system_clock
from helpers.store_base import (
    NOTE_COLUMNS as _NOTE_COLUMNS, SELECT_NOTE as _SELECT_NOTE, AuditEntry, StoreBase, UserMemoryBase, as_it_was,
    check_owner, expires_utc, long_term as _long_term, note_from_columns, note_row, upsert_note_sql,
    utc as _utc,
)
from helpers.store_erasure import CheckpointResult, Erasure, ForgetPlan, erase_user_reason
from helpers.store_schema import (
    SCHEMA_VERSION, CorruptStoreError, SchemaTooNewError, StoreError, StoreFullError, StoreLockedError,
    StoreReadOnlyError, check_key, check_wal, migrate, open_key, owner_token, sql_fold, sqlite_errors,
)
from helpers.store_export import export_document, import_reason, parse_export
from helpers.store_key import KEY_BYTES, checked_key
from helpers.write_policy import WritePolicy


def _note_from_row(row: sqlite3.Row) -> MemoryNote:
    return note_from_columns(row)


_INSERT_NOTE = upsert_note_sql("?")  # the same note id for the same user replaces the stored one


class MemoryStore(StoreBase):
    """A SQLite file (or `:memory:`) holding every tenant's and user's memory."""

    # How long an erasure waits for other connections' read snapshots to end before it reports
    # the checkpoint as pending (the store then retries after each write and on close).
    ERASE_WAIT = 2.0

    def __init__(self, conn: sqlite3.Connection, path: str, clock: Clock, timeout: float = 5.0,
                 key: bytes | None = None) -> None:
        self._conn = conn
        self._key = checked_key(key) if key is not None else secrets.token_bytes(KEY_BYTES)
        self._lock = threading.RLock()  # one connection, shared by handles and threads
        self._busy_ms = int(timeout * 1000)
        self._checkpoint_pending = False  # an erasure whose text may still be in the WAL
        self.path = path
        self.clock = clock
        self.erase_wait = self.ERASE_WAIT

    @classmethod
    def open(cls, path: str | Path = ":memory:", *, clock: Clock = system_clock,
             timeout: float = 5.0, write_policy: WritePolicy | None = None,
             expiry: bool = True, key: bytes | None = None) -> MemoryStore:
        """Open or create a store. Checks the file before writing anything to it.

        `write_policy` (default DEFAULT_WRITE_POLICY) checks every note and profile value written
        through the store; states loaded from it carry it to the capture tool and consolidation.
        `key` keys the ledger's digests and the audit's ids; without it, the key file beside the
        database (`<path>.key`, owner-only, made with the store) holds it, and a `:memory:` store
        gets a random one. The database keeps only a check of the key: a wrong or missing key is
        a StoreError, never a silently different audit.
        """
        path = str(path)
        if path != ":memory:":
            check_wal(Path(path + "-wal"))  # before SQLite replays it (and drops what is damaged)
        try:
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        conn.create_function("casefold", 1, sql_fold, deterministic=True)
        try:
            with sqlite_errors():
                cls._check(conn, path)
                if path != ":memory:":
                    # WAL: readers never block the writer, and a crash mid-write leaves the file intact.
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA secure_delete = ON")  # deleted text is zeroed, not just unlinked
                store_key = open_key(conn, path, key)
                migrate(conn)
                check_key(conn, path, store_key)
        except BaseException:
            conn.close()
            raise
        store = cls(conn, path, clock, timeout, store_key)._with_options(write_policy, expiry)
        # A crash between an erasure's commit and its checkpoint left erased text in the WAL.
        store.checkpoint(wait=0)
        return store

    @staticmethod
    def _check(conn: sqlite3.Connection, path: str) -> None:
        """Reads only: the header, the schema version and the pages."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaTooNewError(
                f"{path} has schema version {version}, but this code knows only up to "
                f"{SCHEMA_VERSION}; upgrade the helpers package to open it")
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise StoreError(f"{path} is a SQLite database of some other program, not a memory store")
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise CorruptStoreError(f"{path} failed its integrity check: {problems[:3]}")

    @property
    def schema_version(self) -> int:
        return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def for_user(self, tenant_id: str, user_id: str) -> UserMemory:
        """The only way to reach notes: a handle bound to one (tenant, user)."""
        return UserMemory(self, *check_owner(tenant_id, user_id))

    def close(self) -> None:
        with self._lock:
            if self._checkpoint_pending:
                try:
                    self.checkpoint(wait=0)
                except StoreError:
                    pass  # closing must not fail; SQLite checkpoints on the last close anyway
            self._conn.close()

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it commits or none of it does."""
        with self._lock, sqlite_errors():
            # IMMEDIATE takes the write lock up front, so a busy store fails before any work.
            self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:  # SQLite may have rolled back already (disk full)
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
            if write and self._checkpoint_pending:
                self.checkpoint(wait=0)

    def checkpoint(self, wait: float | None = None) -> CheckpointResult:
        """Copy the WAL back into the database file and empty it, retrying up to `wait` seconds.

        Erased text sits in old WAL frames until the WAL is emptied, which SQLite can do only
        when no other connection reads an older snapshot. Until it completes, the store retries
        after every write and on close.
        """
        if self.path == ":memory:":
            return CheckpointResult(completed=True, attempts=0)
        wait = self.erase_wait if wait is None else wait
        deadline = time.monotonic() + wait
        attempts, busy, frames, copied = 0, 1, 0, 0
        while True:
            attempts += 1
            with self._lock, sqlite_errors():
                # Each attempt waits a little for readers, then lets this store's other threads in.
                remaining = max(0.0, deadline - time.monotonic())
                self._conn.execute(f"PRAGMA busy_timeout = {int(min(remaining, 0.1) * 1000)}")
                try:
                    busy, frames, copied = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                finally:
                    self._conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            if not busy or time.monotonic() >= deadline:
                break
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        self._checkpoint_pending = bool(busy)
        if not busy:
            return CheckpointResult(completed=True, attempts=attempts)
        where = f"{self.path}-wal" if copied == frames else f"{self.path} and {self.path}-wal"
        held = (f"the WAL holds {max(frames, 0)} frames ({max(copied, 0)} copied back into the database "
                "file) and cannot be emptied: another connection has kept an older read snapshot (or "
                "the write lock)")
        pending = (f"{held} for {wait:g} s, so erased text may remain in {where} until it ends; the "
                   "store retries after every write and on close (or call store.checkpoint())")
        return CheckpointResult(False, attempts, frames, copied, pending)



class UserMemory(UserMemoryBase):
    """One user's memory. Every query below is bound to this handle's (tenant, user)."""

    _store: MemoryStore

    # -- reading -------------------------------------------------------------------------------

    def load_state(self, default_profile: dict[str, Any] | None = None, **state_fields: Any) -> MemoryState:
        """A fresh MemoryState: the stored profile (or the default) and the live global notes."""
        with self._store._transaction(write=False) as conn:
            row = conn.execute(
                "SELECT profile FROM profiles WHERE tenant_id = :tenant AND user_id = :user",
                self._owner()).fetchone()
            notes = self._active(conn, None, None)
        return self._state(row["profile"] if row else None, notes, default_profile, state_fields)

    def active_notes(self, keywords: Iterable[str] | None = None, limit: int | None = None) -> list[MemoryNote]:
        """Live notes, oldest first; `keywords` keeps notes sharing any of them; `limit` keeps the newest."""
        with self._store._transaction(write=False) as conn:
            return self._active(conn, keywords, limit)

    def _active(self, conn: sqlite3.Connection, keywords: Iterable[str] | None,
                limit: int | None) -> list[MemoryNote]:
        sql = f"""SELECT {_SELECT_NOTE} FROM notes
                  WHERE tenant_id = :tenant AND user_id = :user AND status = 'active'
                    AND (expires_utc IS NULL OR expires_utc > :now)"""
        params = self._owner(now=self._live_now(), limit=-1 if limit is None else int(limit))
        if keywords is not None:
            # The casefolded keyword index (migration 3): a lookup, not a scan of JSON.
            sql += """ AND id IN (SELECT note_id FROM note_keywords
                                  WHERE tenant_id = :tenant AND user_id = :user
                                    AND keyword IN (SELECT value FROM json_each(:wanted)))"""
            params["wanted"] = json.dumps(sorted({caseless(k) for k in keywords}), ensure_ascii=False)
        sql += " ORDER BY observed_utc DESC, id DESC LIMIT :limit"
        return [_note_from_row(r) for r in conn.execute(sql, params)][::-1]

    def as_of(self, instant: str | datetime) -> list[MemoryNote]:
        """Memory as it stood at `instant`: observed by then, not yet superseded, not yet expired."""
        at = _utc(instant)
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(f"""
                SELECT {_SELECT_NOTE}, superseded_at FROM notes
                WHERE tenant_id = :tenant AND user_id = :user AND status != 'deleted'
                  AND observed_utc <= :at
                  AND (superseded_at IS NULL OR superseded_at > :at)
                  AND (expires_utc > :at OR (expires_utc IS NULL AND status != 'expired'))
                ORDER BY observed_utc, id""", self._owner(at=at)).fetchall()
        return [as_it_was(_note_from_row(r), r["superseded_at"]) for r in rows]

    def staged_notes(self, session_id: str | None = None) -> list[MemoryNote]:
        """Session notes not yet consolidated (all sessions, or one), unexpired."""
        sql = """SELECT note FROM session_notes WHERE tenant_id = :tenant AND user_id = :user
                 AND (expires_utc IS NULL OR expires_utc > :now)"""
        if session_id is not None:
            sql += " AND session_id = :session"
        sql += " ORDER BY session_id, id"
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(sql, self._owner(now=self._now(), session=session_id)).fetchall()
        return [MemoryNote.from_dict(json.loads(r["note"])) for r in rows]

    def pending_sessions(self) -> list[str]:
        """Sessions whose notes are staged but not consolidated, e.g. after a crash."""
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(
                """SELECT DISTINCT session_id FROM session_notes
                   WHERE tenant_id = :tenant AND user_id = :user ORDER BY session_id""",
                self._owner()).fetchall()
        return [r["session_id"] for r in rows]

    def audit_log(self) -> list[AuditEntry]:
        """What happened to this user's memory, oldest first, erasures of the user included."""
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(
                """SELECT at, action, note_id, reason FROM audit WHERE tenant_id = :tenant
                   AND user_id IN (:user, :erased) ORDER BY seq""",
                self._owner(erased=self._erased_as())).fetchall()
        return [AuditEntry(**dict(r)) for r in rows]

    def _recall(self, terms: list[str], kinds: list[str] | None) -> tuple[list[MemoryNote], int]:
        """FTS5 over this user's postings only (the owner token), then the live notes of `kinds`,
        the newest RECALL_LIMIT; and the user's live note count."""
        # Terms are letters and digits only (query_terms), so quoting them is enough.
        match = (f'{{owner}} : "{owner_token(self._tenant_id, self._user_id)}" AND '
                 f'{{text keywords}} : ({" OR ".join(f"{chr(34)}{t}{chr(34)}" for t in terms)})')
        # No ORDER BY bm25(): FTS5 counts each term over every tenant's notes (see retrieval.bm25).
        sql = f"""SELECT {", ".join(f"n.{c}" for c in _NOTE_COLUMNS)}
                  FROM notes_search
                  JOIN notes_search_key AS k ON k.fts_rowid = notes_search.rowid
                  JOIN notes AS n
                    ON n.tenant_id = k.tenant_id AND n.user_id = k.user_id AND n.id = k.id
                  WHERE notes_search MATCH :match
                    AND k.tenant_id = :tenant AND k.user_id = :user
                    AND n.tenant_id = :tenant AND n.user_id = :user AND n.status = 'active'
                    AND (n.expires_utc IS NULL OR n.expires_utc > :now)
                    AND (:kinds IS NULL OR n.kind IN (SELECT value FROM json_each(:kinds)))
                  ORDER BY n.observed_utc DESC LIMIT :recall"""
        params = self._owner(match=match, now=self._now(), recall=RECALL_LIMIT,
                             kinds=None if kinds is None else json.dumps(kinds))
        with self._store._transaction(write=False) as conn:
            notes = [_note_from_row(r) for r in conn.execute(sql, params)]
            return notes, self._live_count(conn)

    def live_note_count(self) -> int:
        """How many notes `active_notes()` would return, without reading them."""
        with self._store._transaction(write=False) as conn:
            return self._live_count(conn)

    def _live_count(self, conn: sqlite3.Connection) -> int:
        return conn.execute(
            """SELECT count(*) FROM notes WHERE tenant_id = :tenant AND user_id = :user
               AND status = 'active' AND (expires_utc IS NULL OR expires_utc > :now)""",
            self._owner(now=self._now())).fetchone()[0]

    # -- writing -------------------------------------------------------------------------------

    def save_profile(self, profile: dict[str, Any]) -> None:
        """Store the profile. Every key and value passes the write policy first (PolicyRefused)."""
        with self._store._transaction(write=True) as conn:
            self._admit(conn, profile=profile)
            text = json.dumps(profile, ensure_ascii=False)
            conn.execute(
                """INSERT INTO profiles (tenant_id, user_id, profile) VALUES (:tenant, :user, :profile)
                   ON CONFLICT (tenant_id, user_id) DO UPDATE SET profile = excluded.profile""",
                self._owner(profile=text))

    def _read(self) -> Any:
        return self._store._transaction(write=False)

    def _forgotten(self, conn: sqlite3.Connection) -> set[str]:
        return {r[0] for r in conn.execute(
            """SELECT note_id FROM audit WHERE tenant_id = :tenant AND user_id = :user
               AND action = 'forget' AND note_id IS NOT NULL""", self._owner())}

    def _erasure_mark(self, conn: sqlite3.Connection) -> Any:
        row = conn.execute(
            """SELECT seq, action FROM audit WHERE tenant_id = :tenant AND user_id IN (:user, :erased)
               ORDER BY seq DESC LIMIT 1""", self._owner(erased=self._erased_as())).fetchone()
        return None if row is None else tuple(row)

    def _present_ids(self, conn: sqlite3.Connection, among: Iterable[str] | None = None) -> set[str]:
        only = "" if among is None else " AND id IN (SELECT value FROM json_each(:among))"
        return {r[0] for r in conn.execute(
            f"""SELECT id FROM notes WHERE tenant_id = :tenant AND user_id = :user{only}
                UNION SELECT id FROM session_notes WHERE tenant_id = :tenant AND user_id = :user{only}""",
            self._owner(among=None if among is None else json.dumps(list(among))))}

    def _stage(self, conn: sqlite3.Connection, staged: list[tuple[str, MemoryNote]]) -> None:
        conn.executemany(
            """INSERT OR REPLACE INTO session_notes (tenant_id, user_id, session_id, id, note, expires_utc)
               VALUES (:tenant, :user, :session, :id, :note, :expires)""",
            [self._owner(session=s, id=n.id, note=json.dumps(n.to_dict(), ensure_ascii=False),
                         expires=expires_utc(n)) for s, n in staged])

    def commit_consolidation(self, session_id: str, merged_notes: Iterable[MemoryNote],
                             superseded: Iterable[str] = ()) -> None:
        """Write a consolidation's result and drop the session's staged notes, atomically.

        `merged_notes` are upserted; a note whose `supersedes` names a stored note, and every id
        in `superseded`, marks that note superseded. Either all of this happens or none of it.
        Notes not stored yet pass the write policy first (PolicyRefused: nothing is written).
        A note this handle loaded or staged and that was erased since (forget, erase_user, an
        import) is not written back, nor is a note made from it; links to them are cleared.
        """
        notes = _long_term(merged_notes)
        with self._store._transaction(write=True) as conn:
            gone = self._gone(self._present_ids(conn))
            notes = self._without_erased(notes, gone)
            self._admit(conn, notes=[(n, session_id) for n in notes])
            self._write_notes(conn, notes, session_id, superseded=[i for i in superseded if i not in gone])
            conn.execute(
                "DELETE FROM session_notes WHERE tenant_id = :tenant AND user_id = :user AND session_id = :session",
                self._owner(session=session_id))
        self._committed(session_id, notes)

    def _write_notes(self, conn: sqlite3.Connection, notes: list[MemoryNote], session_id: str | None,
                     superseded: list[str]) -> None:
        conn.executemany(_INSERT_NOTE, [
            note_row(self._tenant_id, self._user_id, n, session_id, None) for n in notes])
        self._index_keywords(conn, notes)
        # The supersede chain: a newer note retires the one it names.
        links = [self._owner(old=n.supersedes, new=n.id) for n in notes if n.supersedes]
        links += [self._owner(old=old, new=None) for old in superseded]
        conn.executemany(
            """UPDATE notes SET status = 'superseded', superseded_by = COALESCE(:new, superseded_by)
               WHERE tenant_id = :tenant AND user_id = :user AND id = :old AND status = 'active'""", links)
        # A note stops being current when its successor was observed, else now.
        conn.execute(
            """UPDATE notes SET superseded_at = COALESCE(
                   (SELECT s.observed_utc FROM notes AS s WHERE s.tenant_id = notes.tenant_id
                      AND s.user_id = notes.user_id AND s.id = notes.superseded_by), :now)
               WHERE tenant_id = :tenant AND user_id = :user AND status = 'superseded'
                 AND superseded_at IS NULL""", self._owner(now=self._now()))

    def _index_keywords(self, conn: sqlite3.Connection, notes: list[MemoryNote]) -> None:
        """Keep `note_keywords` (casefolded) in step with the notes just written."""
        conn.executemany(
            "DELETE FROM note_keywords WHERE tenant_id = :tenant AND user_id = :user AND note_id = :id",
            [self._owner(id=n.id) for n in notes])
        conn.executemany(
            "INSERT OR IGNORE INTO note_keywords VALUES (:tenant, :user, :keyword, :id)",
            [self._owner(keyword=caseless(k), id=n.id) for n in notes for k in n.keywords])

    # -- erasure (`UserMemoryBase.forget` decides what; this is the SQL) ------------------------------

    def _write(self) -> Any:
        return self._store._transaction(write=True)

    def _profile_text(self, conn: sqlite3.Connection) -> str | None:
        row = conn.execute("SELECT profile FROM profiles WHERE tenant_id = :tenant AND user_id = :user",
                           self._owner()).fetchone()
        return row["profile"] if row else None

    def _all_notes(self, conn: sqlite3.Connection) -> list[MemoryNote]:
        return [_note_from_row(r) for r in conn.execute(
            f"SELECT {_SELECT_NOTE} FROM notes WHERE tenant_id = :tenant AND user_id = :user", self._owner())]

    def _all_staged(self, conn: sqlite3.Connection) -> list[MemoryNote]:
        return [MemoryNote.from_dict(json.loads(r["note"])) for r in conn.execute(
            "SELECT note FROM session_notes WHERE tenant_id = :tenant AND user_id = :user", self._owner())]

    def _erase(self, conn: sqlite3.Connection, plan: ForgetPlan, audit: list[dict[str, Any]]) -> None:
        owner = "tenant_id = :tenant AND user_id = :user"
        erased = self._owner(ids=json.dumps(plan.erase), restore=json.dumps(plan.restore))
        in_erased = "IN (SELECT value FROM json_each(:ids))"
        for table, column in (("notes", "id"), ("session_notes", "id"), ("note_keywords", "note_id")):
            conn.execute(f"DELETE FROM {table} WHERE {owner} AND {column} {in_erased}", erased)
        # No dangling links: a predecessor stays superseded, by nothing that still exists...
        for column in ("superseded_by", "supersedes"):
            conn.execute(f"UPDATE notes SET {column} = NULL WHERE {owner} AND {column} {in_erased}", erased)
            conn.execute(
                f"""UPDATE session_notes SET note = json_set(note, '$.{column}', NULL)
                    WHERE {owner} AND json_extract(note, '$.{column}') {in_erased}""", erased)
        # ...unless the erased note was its live copy: then it is live again.
        conn.execute(f"""UPDATE notes SET status = 'active', superseded_at = NULL
                         WHERE {owner} AND id IN (SELECT value FROM json_each(:restore))""", erased)
        if plan.profile is not None:
            conn.execute(f"UPDATE profiles SET profile = :profile WHERE {owner}",
                         self._owner(profile=json.dumps(plan.profile, ensure_ascii=False)))
        conn.executemany(
            """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
               VALUES (:tenant, :user, :at, 'forget', :id, :reason)""", audit)

    def _after_erasure(self, erased: int) -> CheckpointResult:
        return self._store.checkpoint()

    def erase_user(self, *, reason: str = "user request") -> Erasure:
        """Erase everything stored for this user: profile, notes of any status, staged notes,
        keyword index and audit history, leaving one audit row that holds counts, never content.
        Returns how many notes (long-term + staged) were erased, as an `Erasure`.

        The row names the user by `store.user_audit_id(tenant, user)`, a keyed id: a dump of the
        audit table does not name whom it erased, and `audit_log()` on a handle for the same
        (tenant, user) still shows it. The user id does not stay in `reason` either."""
        owner = "tenant_id = :tenant AND user_id = :user"
        with self._store._transaction(write=True) as conn:
            notes, staged, profiles = (conn.execute(f"SELECT count(*) FROM {table} WHERE {owner}",
                                                    self._owner()).fetchone()[0]
                                       for table in ("notes", "session_notes", "profiles"))
            said = self._said(conn)
            for table in ("notes", "session_notes", "note_keywords", "profiles", "audit"):
                conn.execute(f"DELETE FROM {table} WHERE {owner}", self._owner())
            conn.execute(
                """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
                   VALUES (:tenant, :erased, :at, 'erase_user', NULL, :reason)""",
                self._owner(erased=self._erased_as(), at=self._now(),
                            reason=erase_user_reason(reason, self._user_id, notes, staged, profiles, said)))
        return self._erased_user(Erasure(notes + staged, self._store.checkpoint()), said)

    # -- export and import -----------------------------------------------------------------------

    def export_json(self) -> str:
        """This user's whole memory as JSON: profile, all notes with their history, staged notes."""
        with self._store._transaction(write=False) as conn:
            row = conn.execute(
                "SELECT profile FROM profiles WHERE tenant_id = :tenant AND user_id = :user",
                self._owner()).fetchone()
            notes = conn.execute(
                f"""SELECT {_SELECT_NOTE}, session_id, superseded_at FROM notes
                    WHERE tenant_id = :tenant AND user_id = :user ORDER BY observed_utc, id""",
                self._owner()).fetchall()
            staged = conn.execute(
                """SELECT session_id, note FROM session_notes WHERE tenant_id = :tenant AND user_id = :user
                   ORDER BY session_id, id""", self._owner()).fetchall()
        return export_document(
            self._tenant_id, self._user_id, row["profile"] if row else None,
            [(_note_from_row(r), r["session_id"], r["superseded_at"]) for r in notes],
            [(r["session_id"], r["note"]) for r in staged])

    def import_json(self, text: str) -> int:
        """Replace this user's memory with an export (whoever it was exported from).

        The whole document is validated before anything is written, including every note, staged
        note and profile value against the store's write policy: one refused item refuses the
        whole import (PolicyRefused lists each one: id and rule), and memory stays as it was.
        A note or profile value this user had forgotten stays forgotten (`_not_forgotten`).
        Returns the count of notes written.
        """
        imported = parse_export(text)
        import helpers.consolidation  # noqa: F401  (its first import, a second or two, outside the lock)
        owner = "tenant_id = :tenant AND user_id = :user"
        with self._store._transaction(write=True) as conn:
            imported, forgotten = self._not_forgotten(conn, imported)
            self._admit(conn, notes=[(n, s) for n, s, _ in imported.notes], staged=imported.staged,
                        profile=imported.profile, replacing=True)
            rows = [note_row(self._tenant_id, self._user_id, n, session_id, superseded_at)
                    for n, session_id, superseded_at in imported.notes]
            for table in ("notes", "session_notes", "profiles", "note_keywords"):
                conn.execute(f"DELETE FROM {table} WHERE {owner}", self._owner())
            conn.executemany(_INSERT_NOTE, rows)
            self._index_keywords(conn, [n for n, _, _ in imported.notes])
            if imported.profile is not None:
                conn.execute("INSERT INTO profiles VALUES (:tenant, :user, :profile)",
                             self._owner(profile=json.dumps(imported.profile, ensure_ascii=False)))
            self._stage(conn, imported.staged)
            conn.execute(
                """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
                   VALUES (:tenant, :user, :at, 'import', NULL, :reason)""",
                self._owner(at=self._now(), reason=import_reason(len(rows), forgotten)))
        # The notes it replaced are erased too: off the WAL now, or after a reader's snapshot ends
        # (the store retries after every later write and on close).
        self._store.checkpoint(wait=0)
        return len(rows)


__all__ = [
    "AuditEntry", "CheckpointResult", "CorruptStoreError", "Erasure", "MemoryStore", "SCHEMA_VERSION",
    "SchemaTooNewError", "StoreError", "StoreFullError", "StoreLockedError", "StoreReadOnlyError",
    "UserMemory",
]
