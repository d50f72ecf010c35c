"""Stage 8 — persistence: one SQLite store, a handle per (tenant, user).

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
  (`helpers.store_base.plan_forget`), and an export taken before it, imported after, does not
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

import hmac
import json
import secrets
import sqlite3
import struct
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator

from helpers.caseless import fold
from helpers.retrieval import RECALL_LIMIT
from helpers.state import Clock, MemoryNote, MemoryState, system_clock
from helpers.store_base import (
    NOTE_COLUMNS as _NOTE_COLUMNS, SELECT_NOTE as _SELECT_NOTE, AuditEntry, CheckpointResult, Erasure,
    ForgetPlan, StoreBase, UserMemoryBase, as_it_was, check_owner, erase_user_reason, expires_utc,
    long_term as _long_term, note_from_columns, note_row, utc as _utc,
)
from helpers.store_export import export_document, import_reason, parse_export
from helpers.store_key import KEY_BYTES, checked_key, create_key_file, key_check, read_key_file
from helpers.write_policy import WritePolicy

# One full-text token per (tenant, user): hex never holds the separator 'x', so it is one-to-one,
# and the trailing 'x' keeps the porter stemmer off it. `_owner_token` is the same in Python.
_OWNER_TOKEN_SQL = "'o' || hex({t}) || 'x' || hex({u}) || 'x'"


def _owner_sql(row: str) -> str:
    return _OWNER_TOKEN_SQL.format(t=f"{row}.tenant_id", u=f"{row}.user_id")


def _owner_token(tenant_id: str, user_id: str) -> str:
    return f"o{tenant_id.encode().hex().upper()}x{user_id.encode().hex().upper()}x"


# Each migration moves the schema up one version (PRAGMA user_version): a list of statements,
# run in one transaction. Append new migrations; never edit an old one.
MIGRATIONS: list[list[str]] = [
    [  # 1: long-term notes, staged session notes, profiles, the audit log.
        """CREATE TABLE notes (
            tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL,
            text TEXT NOT NULL, keywords TEXT NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL,
            observed_at TEXT NOT NULL, source_ref TEXT NOT NULL, status TEXT NOT NULL,
            supersedes TEXT, superseded_by TEXT, expires_at TEXT,
            sensitivity TEXT NOT NULL, confidence REAL NOT NULL,
            session_id TEXT,       -- the session whose consolidation wrote it
            superseded_at TEXT,    -- when it stopped being current, for as-of reads
            observed_utc TEXT NOT NULL, expires_utc TEXT,  -- canonical UTC, comparable as text
            PRIMARY KEY (tenant_id, user_id, id)
        ) WITHOUT ROWID  -- clustered by user: one user's notes sit together on disk""",
        """CREATE TABLE session_notes (
            tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, id TEXT NOT NULL,
            note TEXT NOT NULL,    -- the MemoryNote as JSON, read back only for consolidation
            expires_utc TEXT,
            PRIMARY KEY (tenant_id, user_id, session_id, id)
        ) WITHOUT ROWID""",
        """CREATE TABLE profiles (
            tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, profile TEXT NOT NULL,
            PRIMARY KEY (tenant_id, user_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE audit (
            seq INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
            at TEXT NOT NULL, action TEXT NOT NULL, note_id TEXT, reason TEXT NOT NULL
        )""",
        "CREATE INDEX audit_by_user ON audit (tenant_id, user_id, seq)",
    ],
    [  # 2: users accumulate superseded and expired notes: read the live ones without scanning those.
        "CREATE INDEX notes_live ON notes (tenant_id, user_id, status, expires_utc, observed_utc)",
    ],
    [  # 3: keywords casefolded (Unicode), one row each: keyword filters are index lookups.
        """CREATE TABLE note_keywords (
            tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, keyword TEXT NOT NULL, note_id TEXT NOT NULL,
            PRIMARY KEY (tenant_id, user_id, keyword, note_id)
        ) WITHOUT ROWID""",
        """INSERT OR IGNORE INTO note_keywords
           SELECT n.tenant_id, n.user_id, casefold(k.value), n.id FROM notes AS n, json_each(n.keywords) AS k""",
    ],
    [  # 4: full-text search (FTS5, BM25) for `search`, kept in step with notes by triggers.
        # notes has no rowid, and a contentless FTS5 table needs one: this table hands them out.
        """CREATE TABLE notes_search_key (
            fts_rowid INTEGER PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
            id TEXT NOT NULL, UNIQUE (tenant_id, user_id, id))""",
        # Contentless: the text is not stored twice. `owner` holds one token per (tenant, user), so
        # a search reads only that user's postings; the SQL filter on the notes row still decides.
        """CREATE VIRTUAL TABLE notes_search USING fts5(
            owner, text, keywords, content='', tokenize='porter unicode61 remove_diacritics 2')""",
        f"""CREATE TRIGGER notes_search_insert AFTER INSERT ON notes BEGIN
            INSERT INTO notes_search_key (tenant_id, user_id, id)
                VALUES (NEW.tenant_id, NEW.user_id, NEW.id);
            INSERT INTO notes_search (rowid, owner, text, keywords) VALUES (
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = NEW.tenant_id
                   AND user_id = NEW.user_id AND id = NEW.id),
                {_owner_sql("NEW")}, NEW.text, NEW.keywords);
        END""",
        # A contentless table forgets a row when told its old values ('delete'), so triggers do it.
        f"""CREATE TRIGGER notes_search_delete AFTER DELETE ON notes BEGIN
            INSERT INTO notes_search (notes_search, rowid, owner, text, keywords) VALUES ('delete',
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = OLD.tenant_id
                   AND user_id = OLD.user_id AND id = OLD.id),
                {_owner_sql("OLD")}, OLD.text, OLD.keywords);
            DELETE FROM notes_search_key WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id
                AND id = OLD.id;
        END""",
        f"""CREATE TRIGGER notes_search_update AFTER UPDATE OF text, keywords ON notes
            WHEN OLD.text IS NOT NEW.text OR OLD.keywords IS NOT NEW.keywords BEGIN
            INSERT INTO notes_search (notes_search, rowid, owner, text, keywords) VALUES ('delete',
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = OLD.tenant_id
                   AND user_id = OLD.user_id AND id = OLD.id),
                {_owner_sql("OLD")}, OLD.text, OLD.keywords);
            INSERT INTO notes_search (rowid, owner, text, keywords) VALUES (
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = NEW.tenant_id
                   AND user_id = NEW.user_id AND id = NEW.id),
                {_owner_sql("NEW")}, NEW.text, NEW.keywords);
        END""",
        # Erasure: a delete only marks postings dead; 'optimize' rewrites the index without them,
        # so erased words leave the file (SQLite < 3.42 has no FTS5 'secure-delete'). Every erasure
        # writes an audit row, so this fires once per erasure, whoever wrote the erasing code;
        # after the first row of a batch the index is one segment and the rest are no-ops.
        """CREATE TRIGGER notes_search_purge AFTER INSERT ON audit BEGIN
            INSERT INTO notes_search (notes_search) VALUES ('optimize');
        END""",
        # Notes written before this migration.
        """INSERT INTO notes_search_key (tenant_id, user_id, id)
           SELECT tenant_id, user_id, id FROM notes""",
        f"""INSERT INTO notes_search (rowid, owner, text, keywords)
            SELECT k.fts_rowid, {_owner_sql("n")}, n.text, n.keywords
            FROM notes AS n JOIN notes_search_key AS k USING (tenant_id, user_id, id)""",
    ],
    [  # 5: a random secret per store: it keys the ledger's digests and the ids audit rows keep.
        "CREATE TABLE store_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL)",
        "INSERT INTO store_secret VALUES (1, randomblob(32))",
    ],
    [  # 6: the key leaves the database (`open` first writes it to the key file); a check stays.
        "CREATE TABLE store_key (id INTEGER PRIMARY KEY CHECK (id = 1), key_check BLOB NOT NULL)",
        "DROP TABLE store_secret",  # secure_delete zeroes its pages
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """The store cannot be used as asked; nothing was written."""


class CorruptStoreError(StoreError):
    """The file is not a SQLite database, or its pages are damaged."""


class SchemaTooNewError(StoreError):
    """The file was written by a newer version of this code."""


class StoreLockedError(StoreError):
    """Another connection holds the lock for longer than the timeout."""


class StoreFullError(StoreError):
    """The disk (or the store's size limit) is full; the write was rolled back."""


class StoreReadOnlyError(StoreError):
    """The file, its folder or its file system cannot be written; nothing was written."""


def _sql_fold(value: Any) -> str | None:
    return None if value is None else fold(str(value))


@contextmanager
def _sqlite_errors() -> Iterator[None]:
    """Turn SQLite's errors into the store's clear ones."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise _store_error(exc) from exc


def _store_error(exc: sqlite3.DatabaseError) -> StoreError:
    name, message = getattr(exc, "sqlite_errorname", ""), str(exc)
    if name.startswith("SQLITE_FULL") or "disk is full" in message:
        return StoreFullError(
            "the disk (or the store's size limit) is full: this write was rolled back and the "
            f"stored memory is as it was; free some space and retry ({exc})")
    if name.startswith("SQLITE_READONLY") or "readonly" in message:
        return StoreReadOnlyError(
            "the store cannot be written (read-only file, folder or file system): nothing was "
            f"written; open a writable copy to change it ({exc})")
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in message or "busy" in message:
            return StoreLockedError(f"the store is locked by another connection: {exc}")
        return StoreError(message)
    if "not a database" in message or "malformed" in message or "corrupt" in message:
        return CorruptStoreError(f"the store file is damaged or not a database: {exc}")
    return StoreError(message)


def _note_from_row(row: sqlite3.Row) -> MemoryNote:
    return note_from_columns(row)


# An upsert: the same note id for the same user replaces the stored one.
_INSERT_NOTE = """
    INSERT INTO notes (tenant_id, user_id, id, text, keywords, kind, scope, observed_at, source_ref,
        status, supersedes, superseded_by, expires_at, sensitivity, confidence, session_id,
        superseded_at, observed_utc, expires_utc)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, user_id, id) DO UPDATE SET
        text = excluded.text, keywords = excluded.keywords, kind = excluded.kind,
        scope = excluded.scope, observed_at = excluded.observed_at, source_ref = excluded.source_ref,
        status = excluded.status, supersedes = excluded.supersedes,
        superseded_by = excluded.superseded_by, expires_at = excluded.expires_at,
        sensitivity = excluded.sensitivity, confidence = excluded.confidence,
        session_id = COALESCE(excluded.session_id, notes.session_id),
        superseded_at = CASE WHEN excluded.status = 'superseded'
                             THEN COALESCE(excluded.superseded_at, notes.superseded_at) END,
        observed_utc = excluded.observed_utc, expires_utc = excluded.expires_utc
"""


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
            _check_wal(Path(path + "-wal"))  # before SQLite replays it (and drops what is damaged)
        try:
            conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from exc
        conn.row_factory = sqlite3.Row
        conn.create_function("casefold", 1, _sql_fold, deterministic=True)
        try:
            with _sqlite_errors():
                cls._check(conn, path)
                if path != ":memory:":
                    # WAL: readers never block the writer, and a crash mid-write leaves the file intact.
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA secure_delete = ON")  # deleted text is zeroed, not just unlinked
                store_key = _open_key(conn, path, key)
                _migrate(conn)
                _check_key(conn, path, store_key)
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
        with self._lock, _sqlite_errors():
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
            with self._lock, _sqlite_errors():
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


_WAL_MAGIC = (0x377F0682, 0x377F0683)  # the low bit says the checksums' byte order
_WAL_CHECK_LIMIT = 16 << 20  # larger WALs are left to SQLite (checking costs ~0.05 s per MB)


def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's cumulative WAL checksum (see the WAL file format in SQLite's documentation)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def _check_wal(wal: Path) -> None:
    """Refuse a write-ahead log that is damaged before a committed transaction.

    SQLite replays a WAL up to the first frame whose checksum fails and silently drops every
    transaction after it. A torn last frame (a crash mid-write) is normal and loses nothing
    committed; a bad frame followed by a commit would lose committed memory without a word.
    """
    if not wal.is_file() or not 32 < wal.stat().st_size <= _WAL_CHECK_LIMIT:
        return
    data = wal.read_bytes()
    magic, _version, page_size, _seq, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    fix = (f"Nothing was changed. Keep both files and restore from an export or a backup, or, "
           f"accepting that loss, move {wal.name} aside to open the store as of its last checkpoint.")
    big_endian = magic == _WAL_MAGIC[1]
    if magic not in _WAL_MAGIC or _wal_checksum(data[:24], big_endian, 0, 0) != (c1, c2):
        raise CorruptStoreError(f"{wal} has a damaged header: SQLite would ignore the "
                                f"{(len(data) - 32) // (24 + max(page_size, 1))} frames in it. {fix}")
    checksum, frame_size = (c1, c2), 24 + page_size
    frames = [(i, data[off:off + frame_size]) for i, off in
              enumerate(range(32, len(data) - frame_size + 1, frame_size), start=1)]
    for i, frame in frames:
        _page, _commit, fsalt1, fsalt2, f1, f2 = struct.unpack(">6I", frame[:24])
        if (fsalt1, fsalt2) != (salt1, salt2):
            return  # the end of this log: what follows is left over from an older one
        checksum = _wal_checksum(frame[24:], big_endian, *_wal_checksum(frame[:8], big_endian, *checksum))
        if checksum == (f1, f2):
            continue
        later_commits = 0
        for _, later in frames[i:]:
            _page, commit, later_salt1, later_salt2 = struct.unpack(">4I", later[:16])
            later_commits += bool(commit) and (later_salt1, later_salt2) == (salt1, salt2)
        if later_commits:
            raise CorruptStoreError(
                f"{wal} is damaged at frame {i} of {len(frames)}: SQLite would silently drop the "
                f"{later_commits} committed transaction(s) after it. {fix}")
        return


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def _open_key(conn: sqlite3.Connection, path: str, key: bytes | None) -> bytes:
    """The store's key: `key`, else the key file beside the database (made with the store; a
    store from before schema 6 moves its secret there), else, for `:memory:`, a random one."""
    if key is not None:
        return checked_key(key)
    if path == ":memory:":
        return secrets.token_bytes(KEY_BYTES)
    key_file = Path(path + ".key")
    try:
        if key_file.exists():
            return read_key_file(key_file)
        if _has_table(conn, "store_key") and conn.execute("SELECT 1 FROM store_key").fetchone():
            raise StoreError(
                f"{key_file} is missing: it holds the key of {path}'s audit ids and ledger digests. "
                "Restore it (or pass key= to open), else forgotten notes can come back on import")
        legacy = (bytes(conn.execute("SELECT secret FROM store_secret").fetchone()[0])
                  if _has_table(conn, "store_secret") else None)
        return create_key_file(key_file, legacy)
    except (OSError, ValueError) as exc:
        raise StoreError(f"the store key: {exc}") from exc


def _check_key(conn: sqlite3.Connection, path: str, key: bytes) -> None:
    """The key is this store's (the database keeps HMAC(key, label), never the key); a new
    store records its check."""
    row = conn.execute("SELECT key_check FROM store_key").fetchone()
    if row is None:
        conn.execute("INSERT OR IGNORE INTO store_key VALUES (1, ?)", (key_check(key),))
        row = conn.execute("SELECT key_check FROM store_key").fetchone()
    if not hmac.compare_digest(bytes(row[0]), key_check(key)):
        raise StoreError(f"this key is not the key of {path}: open it with its own key file or key=")


def _migrate(conn: sqlite3.Connection) -> None:
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return  # up to date: no write lock needed
    for version, statements in enumerate(MIGRATIONS, start=1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the lock: another process may have migrated meanwhile.
            if conn.execute("PRAGMA user_version").fetchone()[0] < version:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")


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
            params["wanted"] = json.dumps(sorted({fold(k) for k in keywords}), ensure_ascii=False)
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
        match = (f'{{owner}} : "{_owner_token(self._tenant_id, self._user_id)}" AND '
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
            [self._owner(keyword=fold(k), id=n.id) for n in notes for k in n.keywords])

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
        return Erasure(notes + staged, self._store.checkpoint())

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
    "UserMemory", "fold",
]
