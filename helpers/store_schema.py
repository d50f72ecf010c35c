"""Stage 8 — persistence (notebook 08): the SQLite file under `helpers.store`.

Its schema (`MIGRATIONS`, one transaction per version, `PRAGMA user_version`), the store's
errors (`StoreError` and its kinds, raised before anything is written), and the checks a file
passes before it is used: a write-ahead log whose frames do not check out is refused
(`check_wal`), and the store's key must match the file's `key_check` (`open_key`).
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import struct
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from helpers.caseless import caseless
from helpers.store_key import KEY_BYTES, checked_key, create_key_file, key_check, read_key_file

# One full-text token per (tenant, user): hex never holds the separator 'x', so it is one-to-one,
# and the trailing 'x' keeps the porter stemmer off it. `owner_token` is the same in Python.
OWNER_TOKEN_SQL = "'o' || hex({t}) || 'x' || hex({u}) || 'x'"


def owner_sql(row: str) -> str:
    return OWNER_TOKEN_SQL.format(t=f"{row}.tenant_id", u=f"{row}.user_id")


def owner_token(tenant_id: str, user_id: str) -> str:
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
                {owner_sql("NEW")}, NEW.text, NEW.keywords);
        END""",
        # A contentless table forgets a row when told its old values ('delete'), so triggers do it.
        f"""CREATE TRIGGER notes_search_delete AFTER DELETE ON notes BEGIN
            INSERT INTO notes_search (notes_search, rowid, owner, text, keywords) VALUES ('delete',
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = OLD.tenant_id
                   AND user_id = OLD.user_id AND id = OLD.id),
                {owner_sql("OLD")}, OLD.text, OLD.keywords);
            DELETE FROM notes_search_key WHERE tenant_id = OLD.tenant_id AND user_id = OLD.user_id
                AND id = OLD.id;
        END""",
        f"""CREATE TRIGGER notes_search_update AFTER UPDATE OF text, keywords ON notes
            WHEN OLD.text IS NOT NEW.text OR OLD.keywords IS NOT NEW.keywords BEGIN
            INSERT INTO notes_search (notes_search, rowid, owner, text, keywords) VALUES ('delete',
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = OLD.tenant_id
                   AND user_id = OLD.user_id AND id = OLD.id),
                {owner_sql("OLD")}, OLD.text, OLD.keywords);
            INSERT INTO notes_search (rowid, owner, text, keywords) VALUES (
                (SELECT fts_rowid FROM notes_search_key WHERE tenant_id = NEW.tenant_id
                   AND user_id = NEW.user_id AND id = NEW.id),
                {owner_sql("NEW")}, NEW.text, NEW.keywords);
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
            SELECT k.fts_rowid, {owner_sql("n")}, n.text, n.keywords
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


def sql_fold(value: Any) -> str | None:
    return None if value is None else caseless(str(value))


@contextmanager
def sqlite_errors() -> Iterator[None]:
    """Turn SQLite's errors into the store's clear ones."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise store_error(exc) from exc


def store_error(exc: sqlite3.DatabaseError) -> StoreError:
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



_WAL_MAGIC = (0x377F0682, 0x377F0683)  # the low bit says the checksums' byte order
_WAL_CHECK_LIMIT = 16 << 20  # larger WALs are left to SQLite (checking costs ~0.05 s per MB)


def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's cumulative WAL checksum (see the WAL file format in SQLite's documentation)."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def check_wal(wal: Path) -> None:
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


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def open_key(conn: sqlite3.Connection, path: str, key: bytes | None) -> bytes:
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
        if has_table(conn, "store_key") and conn.execute("SELECT 1 FROM store_key").fetchone():
            raise StoreError(
                f"{key_file} is missing: it holds the key of {path}'s audit ids and ledger digests. "
                "Restore it (or pass key= to open), else forgotten notes can come back on import")
        legacy = (bytes(conn.execute("SELECT secret FROM store_secret").fetchone()[0])
                  if has_table(conn, "store_secret") else None)
        return create_key_file(key_file, legacy)
    except (OSError, ValueError) as exc:
        raise StoreError(f"the store key: {exc}") from exc


def check_key(conn: sqlite3.Connection, path: str, key: bytes) -> None:
    """The key is this store's (the database keeps HMAC(key, label), never the key); a new
    store records its check."""
    row = conn.execute("SELECT key_check FROM store_key").fetchone()
    if row is None:
        conn.execute("INSERT OR IGNORE INTO store_key VALUES (1, ?)", (key_check(key),))
        row = conn.execute("SELECT key_check FROM store_key").fetchone()
    if not hmac.compare_digest(bytes(row[0]), key_check(key)):
        raise StoreError(f"this key is not the key of {path}: open it with its own key file or key=")


def migrate(conn: sqlite3.Connection) -> None:
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


__all__ = [
    "CorruptStoreError",
    "MIGRATIONS",
    "OWNER_TOKEN_SQL",
    "SCHEMA_VERSION",
    "SchemaTooNewError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StoreReadOnlyError",
    "check_key",
    "check_wal",
    "has_table",
    "migrate",
    "open_key",
    "owner_sql",
    "owner_token",
    "sql_fold",
    "sqlite_errors",
    "store_error",
]
