"""Stage 8 — persistence (notebook 08; production: notebook 11): the memory store over PostgreSQL.

Same contract as `helpers.store` (SQLite stays the default): `PostgresMemoryStore.open(conninfo)`
then `store.for_user(tenant_id, user_id)` gives a handle with the same methods, `search` included.
The differences are where the guarantees come from:

- Tenant isolation is enforced by the database, not only by the queries: every table has row-level
  security keyed by `app.tenant` and `app.user`, which each transaction sets for its handle
  (`set_config(..., true)`: local to the transaction). The store refuses to run as a superuser or
  a role that bypasses RLS, so a forgotten WHERE clause returns nothing instead of someone else's.
- Full-text search is a generated `tsvector` column (english) matched with `@@`; `ts_rank` picks the
  candidates and `helpers.retrieval.rank` scores them exactly as for SQLite.
- Erasure deletes the rows (and their tsvector) in one transaction with the audit row, which
  keeps a keyed id (`store.audit_id`, `store.user_audit_id`), never the note's or the erased
  user's. What `forget` erases is decided in Python, the same for both backends
  (`helpers.store_erasure.plan_forget`). Unlike SQLite's secure_delete, the bytes are not zeroed: a
  byte scan of the data folder after `forget` and a CHECKPOINT finds the text in the table files,
  still after a plain VACUUM (it frees the space without clearing it), gone from them after
  `VACUUM FULL` (a rewrite, as the owner), and in the WAL until its segments are overwritten.
  The returned `Erasure.checkpoint` is therefore never completed and says so.
- Keyword filters fold case in Python (`helpers.caseless.caseless`: NFKC + Unicode casefold), because
  PostgreSQL's lower() follows the database locale: the folded keywords are stored beside each
  note, so they agree with SQLite's.
- Every write passes the store's write policy (`open(..., write_policy=...)`), with the same
  helpers as SQLite (`helpers.write_policy.refused_notes`...): one refusal, nothing written.

    admin = "host=/tmp/pg dbname=memory user=postgres"     # the owner, once
    create_schema(admin, app_password=None)                 # tables, RLS, the memory_app role
    store = PostgresMemoryStore.open("host=/tmp/pg dbname=memory user=memory_app")

A throwaway local server for tests and benchmarks is test infrastructure: `tests/postgres_server.py`.
"""

from __future__ import annotations

import hmac
import json
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator

from helpers.caseless import caseless
from helpers.retrieval import RECALL_LIMIT
from helpers.state import Clock, MemoryNote, MemoryState, system_clock
from helpers.store import StoreError
from helpers.store_base import (
    SELECT_NOTE,
    AuditEntry,
    StoreBase,
    UserMemoryBase,
    as_it_was,
    check_owner,
    expires_utc,
    long_term,
    note_from_columns,
    note_row,
    upsert_note_sql,
    utc,
)
from helpers.store_erasure import CheckpointResult, Erasure, ForgetPlan, erase_user_reason
from helpers.store_export import export_document, import_reason, parse_export
from helpers.store_key import checked_key, create_key_file, key_check, read_key_file
from helpers.write_policy import WritePolicy

APP_ROLE = "memory_app"
_TABLES = ("notes", "session_notes", "profiles", "audit")

SCHEMA = [
    """CREATE TABLE notes (
        tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL,
        text TEXT NOT NULL, keywords TEXT NOT NULL, kind TEXT NOT NULL, scope TEXT NOT NULL,
        observed_at TEXT NOT NULL, source_ref TEXT NOT NULL, status TEXT NOT NULL,
        supersedes TEXT, superseded_by TEXT, expires_at TEXT,
        sensitivity TEXT NOT NULL, confidence DOUBLE PRECISION NOT NULL,
        session_id TEXT, superseded_at TEXT,
        observed_utc TEXT NOT NULL, expires_utc TEXT,  -- canonical UTC text, as in SQLite
        search TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text || ' ' || keywords))
            STORED,
        -- caseless(text) and caseless(keyword) for each keyword, written by Python (see the docstring)
        text_folded TEXT NOT NULL, keywords_folded TEXT[] NOT NULL,
        PRIMARY KEY (tenant_id, user_id, id))""",
    "CREATE INDEX notes_live ON notes (tenant_id, user_id, status, expires_utc, observed_utc)",
    # Keyword filters (`keywords_folded && wanted`) are index lookups.
    "CREATE INDEX notes_keywords ON notes USING GIN (keywords_folded)",
    """CREATE TABLE session_notes (
        tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, id TEXT NOT NULL,
        note TEXT NOT NULL, expires_utc TEXT,
        text_folded TEXT NOT NULL, keywords_folded TEXT[] NOT NULL,
        PRIMARY KEY (tenant_id, user_id, session_id, id))""",
    """CREATE TABLE profiles (
        tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, profile TEXT NOT NULL,
        PRIMARY KEY (tenant_id, user_id))""",
    """CREATE TABLE audit (
        seq BIGSERIAL PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
        at TEXT NOT NULL, action TEXT NOT NULL, note_id TEXT, reason TEXT NOT NULL)""",
    "CREATE INDEX audit_by_user ON audit (tenant_id, user_id, seq)",
    # The store's key stays outside the database (`PostgresMemoryStore.open(key=...)`): this row
    # holds only HMAC(key, label), so the first open records which key the audit is keyed by and
    # a wrong key is refused. Store-wide, so no row-level security.
    """CREATE TABLE store_key (
        id INTEGER PRIMARY KEY CHECK (id = 1), key_check BYTEA NOT NULL)""",
    *[
        statement
        for table in _TABLES
        for statement in (
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",  # the owner too
            # A transaction that did not say whose memory it is sees nothing (NULL matches nothing).
            f"""CREATE POLICY owner_only ON {table}
            USING (tenant_id = current_setting('app.tenant', true)
                   AND user_id = current_setting('app.user', true))
            WITH CHECK (tenant_id = current_setting('app.tenant', true)
                        AND user_id = current_setting('app.user', true))""",
        )
    ],
]

_INSERT_NOTE = upsert_note_sql("%s", ("text_folded", "keywords_folded"))

# What an erasure on PostgreSQL cannot promise (see the module docstring).
ERASURE_PENDING = (
    "PostgreSQL keeps the erased rows' bytes in the table files (a plain VACUUM frees the space "
    "without clearing it) and in WAL segments until they are overwritten: run VACUUM FULL on "
    "notes, session_notes, profiles and audit as the owner to rewrite the tables without them"
)


def _erasure_pending(erased: int) -> CheckpointResult:
    """Nothing erased: nothing pending. Otherwise what only the owner's VACUUM FULL can finish."""
    if not erased:
        return CheckpointResult(completed=True, attempts=0)
    return CheckpointResult(completed=False, attempts=0, pending=ERASURE_PENDING)


def _act_as(conn: Any, user_id: str) -> None:
    """For the rest of this transaction, row-level security binds `user_id` (same tenant)."""
    conn.execute("SELECT set_config('app.user', %s, true)", (user_id,))


def _folded(text: str, keywords: Iterable[str]) -> tuple[str, list[str]]:
    return caseless(text), [caseless(k) for k in keywords]


def _pg_note_row(
    tenant_id: str,
    user_id: str,
    note: MemoryNote,
    session_id: str | None,
    superseded_at: str | None,
) -> tuple:
    """One `notes` row in the column order of `_INSERT_NOTE`: SQLite's, plus the folded forms."""
    row = note_row(tenant_id, user_id, note, session_id, superseded_at)
    return (*row, *_folded(note.text, note.keywords))


def _key_from_file(path: Path) -> bytes:
    return read_key_file(path) if path.exists() else create_key_file(path)


def _psycopg():
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - psycopg is a declared dependency
        raise StoreError(
            "the PostgreSQL store needs psycopg: pip install 'psycopg[binary]'"
        ) from exc
    return psycopg


def create_schema(
    admin_conninfo: str, *, app_role: str = APP_ROLE, app_password: str | None = None
) -> None:
    """Create the tables, their row-level security and the application role (once, as owner)."""
    psycopg = _psycopg()
    from psycopg import sql

    with psycopg.connect(admin_conninfo, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (app_role,)).fetchone()
        if not exists:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS").format(
                    sql.Identifier(app_role)
                )
            )
        if app_password is not None:
            conn.execute(
                sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                    sql.Identifier(app_role), sql.Literal(app_password)
                )
            )
        with conn.transaction():
            for statement in SCHEMA:
                conn.execute(statement)
            role = sql.Identifier(app_role)
            conn.execute(
                sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                    sql.SQL(", ").join(map(sql.Identifier, _TABLES)), role
                )
            )
            conn.execute(sql.SQL("GRANT USAGE ON SEQUENCE audit_seq_seq TO {}").format(role))
            conn.execute(sql.SQL("GRANT SELECT, INSERT ON store_key TO {}").format(role))
    from helpers.conversations import create_conversation_tables  # the SDK's session tables

    create_conversation_tables(admin_conninfo, role=app_role)


class PostgresMemoryStore(StoreBase):
    """A PostgreSQL database holding every tenant's and user's memory; RLS keeps them apart."""

    def __init__(self, conn: Any, clock: Clock, key: bytes) -> None:
        self._conn = conn
        self._lock = threading.RLock()  # one connection, shared by handles and threads
        self._key = key
        self.clock = clock

    @classmethod
    def open(
        cls,
        conninfo: str,
        *,
        clock: Clock = system_clock,
        write_policy: WritePolicy | None = None,
        expiry: bool = True,
        key: bytes | None = None,
        key_file: str | Path | None = None,
    ) -> PostgresMemoryStore:
        """Connect as the application role; refuse one that RLS would not bind.

        `write_policy` (default DEFAULT_WRITE_POLICY) checks every note and profile value written
        through the store; states loaded from it carry it, as with `MemoryStore.open`.
        The store's key (ledger digests, audit ids) is never in the database: pass `key` (at least
        32 random bytes, e.g. from a secret manager) or `key_file` (an owner-only file, made with a
        random key if missing). The database keeps a check of it: a wrong key is a StoreError.
        """
        if (key is None) == (key_file is None):
            raise StoreError(
                "pass exactly one of key= (32 random bytes kept outside the database) or "
                "key_file= (an owner-only file; made if missing): the audit's ids and the ledger's "
                "digests are keyed by it, and a key inside the database would confirm guessed text")
        try:
            store_key = checked_key(key) if key is not None else _key_from_file(Path(key_file or ""))
        except (OSError, ValueError) as exc:
            raise StoreError(f"the store key: {exc}") from exc
        psycopg = _psycopg()
        try:
            conn = psycopg.connect(conninfo)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL: {exc}") from exc
        try:
            superuser, bypass = conn.execute(
                "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
            ).fetchone()
            if superuser or bypass:
                raise StoreError(
                    "connect as the application role (e.g. memory_app), not as a superuser or "
                    "a role with BYPASSRLS: row-level security would not apply"
                )
            if conn.execute("SELECT to_regclass('notes')").fetchone()[0] is None:
                raise StoreError(
                    "no memory tables in this database: run create_schema(admin_conninfo) first"
                )
            if conn.execute("SELECT to_regclass('store_key')").fetchone()[0] is None:
                raise StoreError(
                    "this database has an older memory schema (its key inside it, or no folded "
                    "columns): export each user with the older code and import into a database "
                    "made by create_schema(admin_conninfo)"
                )
            conn.execute(
                "INSERT INTO store_key VALUES (1, %s) ON CONFLICT (id) DO NOTHING",
                (key_check(store_key),),
            )
            stored_check = bytes(conn.execute("SELECT key_check FROM store_key").fetchone()[0])
            if not hmac.compare_digest(stored_check, key_check(store_key)):
                raise StoreError("this key is not the key of this store: open it with its own key")
            conn.commit()
        except BaseException:
            conn.close()
            raise
        return cls(conn, clock, store_key)._with_options(write_policy, expiry)

    def for_user(self, tenant_id: str, user_id: str) -> PostgresUserMemory:
        return PostgresUserMemory(self, *check_owner(tenant_id, user_id))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self, tenant_id: str, user_id: str) -> Iterator[Any]:
        """One transaction bound to one (tenant, user): RLS shows and accepts only their rows."""
        psycopg = _psycopg()
        with self._lock:
            try:
                with self._conn.transaction():
                    self._conn.execute(
                        "SELECT set_config('app.tenant', %s, true), "
                        "set_config('app.user', %s, true)",
                        (tenant_id, user_id),
                    )
                    yield self._conn
            except psycopg.Error as exc:
                raise StoreError(str(exc)) from exc


class PostgresUserMemory(UserMemoryBase):
    """One user's memory in PostgreSQL: the methods and meaning of `helpers.store.UserMemory`."""

    _store: PostgresMemoryStore

    def _tx(self):
        return self._store._transaction(self._tenant_id, self._user_id)

    @staticmethod
    def _rows(cursor: Any) -> list[dict[str, Any]]:
        names = [d.name for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    @classmethod
    def _notes(cls, cursor: Any) -> list[MemoryNote]:
        return [note_from_columns(row) for row in cls._rows(cursor)]

    # -- reading -----------------------------------------------------------------------------

    def load_state(
        self, default_profile: dict[str, Any] | None = None, **state_fields: Any
    ) -> MemoryState:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT profile FROM profiles WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
                self._owner(),
            ).fetchone()
            notes = self._active(conn, None, None)
        return self._state(row[0] if row else None, notes, default_profile, state_fields)

    def active_notes(
        self, keywords: Iterable[str] | None = None, limit: int | None = None
    ) -> list[MemoryNote]:
        with self._tx() as conn:
            return self._active(conn, keywords, limit)

    _LIVE = """tenant_id = %(tenant)s AND user_id = %(user)s AND status = 'active'
               AND (expires_utc IS NULL OR expires_utc > %(now)s)"""

    def _active(
        self, conn: Any, keywords: Iterable[str] | None, limit: int | None
    ) -> list[MemoryNote]:
        sql = f"SELECT {SELECT_NOTE} FROM notes WHERE {self._LIVE}"
        params = self._owner(now=self._live_now(), limit=limit)
        if keywords is not None:
            sql += " AND keywords_folded && %(wanted)s::text[]"  # the GIN index
            params["wanted"] = sorted({caseless(k) for k in keywords})
        sql += " ORDER BY observed_utc DESC, id DESC LIMIT %(limit)s"
        return self._notes(conn.execute(sql, params))[::-1]

    def as_of(self, instant: str | datetime) -> list[MemoryNote]:
        with self._tx() as conn:
            rows = self._rows(
                conn.execute(
                    f"""
                SELECT {SELECT_NOTE}, superseded_at FROM notes
                WHERE tenant_id = %(tenant)s AND user_id = %(user)s AND status != 'deleted'
                  AND observed_utc <= %(at)s AND (superseded_at IS NULL OR superseded_at > %(at)s)
                  AND (expires_utc > %(at)s OR (expires_utc IS NULL AND status != 'expired'))
                ORDER BY observed_utc, id""",
                    self._owner(at=utc(instant)),
                )
            )
        return [as_it_was(note_from_columns(r), r["superseded_at"]) for r in rows]

    def staged_notes(self, session_id: str | None = None) -> list[MemoryNote]:
        sql = """SELECT note FROM session_notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s
                 AND (expires_utc IS NULL OR expires_utc > %(now)s)"""
        if session_id is not None:
            sql += " AND session_id = %(session)s"
        with self._tx() as conn:
            rows = conn.execute(
                sql + " ORDER BY session_id, id", self._owner(now=self._now(), session=session_id)
            ).fetchall()
        return [MemoryNote.from_dict(json.loads(r[0])) for r in rows]

    def pending_sessions(self) -> list[str]:
        with self._tx() as conn:
            rows = conn.execute(
                """SELECT DISTINCT session_id FROM session_notes
                         WHERE tenant_id = %(tenant)s AND user_id = %(user)s ORDER BY session_id""",
                self._owner(),
            ).fetchall()
        return [r[0] for r in rows]

    def audit_log(self) -> list[AuditEntry]:
        """What happened to this user's memory, oldest first, erasures of the user included."""
        rows = []
        with self._tx() as conn:
            for user in (self._user_id, self._erased_as()):
                _act_as(conn, user)  # row-level security shows one user id at a time
                rows += conn.execute(
                    """SELECT seq, at, action, note_id, reason FROM audit
                       WHERE tenant_id = %(tenant)s AND user_id = %(as)s""",
                    self._owner(**{"as": user}),
                ).fetchall()
        return [AuditEntry(*r[1:]) for r in sorted(rows)]

    def _recall(self, terms: list[str], kinds: list[str] | None) -> tuple[list[MemoryNote], int]:
        """The user's live notes of `kinds` whose tsvector matches any term (the best `ts_rank`
        first, at most RECALL_LIMIT), and how many live notes the user has."""
        params = self._owner(
            now=self._now(), tsquery=" | ".join(terms), recall=RECALL_LIMIT, kinds=kinds
        )
        with self._tx() as conn:
            cur = conn.execute(
                f"""
                SELECT {SELECT_NOTE} FROM notes, to_tsquery('english', %(tsquery)s) AS q
                WHERE {self._LIVE} AND search @@ q
                  AND (%(kinds)s::text[] IS NULL OR kind = ANY(%(kinds)s::text[]))
                ORDER BY ts_rank(search, q) DESC, observed_utc DESC LIMIT %(recall)s""",
                params,
            )
            notes = self._notes(cur)
            total = conn.execute(
                f"SELECT count(*) FROM notes WHERE {self._LIVE}", params
            ).fetchone()[0]
        return notes, total

    def live_note_count(self) -> int:
        with self._tx() as conn:
            return conn.execute(
                f"SELECT count(*) FROM notes WHERE {self._LIVE}", self._owner(now=self._now())
            ).fetchone()[0]

    # -- writing -----------------------------------------------------------------------------

    def save_profile(self, profile: dict[str, Any]) -> None:
        """Store the profile. Every key and value passes the write policy first (PolicyRefused)."""
        with self._tx() as conn:
            self._admit(conn, profile=profile)
            text = json.dumps(profile, ensure_ascii=False)
            conn.execute(
          """INSERT INTO profiles (tenant_id, user_id, profile) VALUES (%(tenant)s, %(user)s, %(p)s)
                       ON CONFLICT (tenant_id, user_id) DO UPDATE SET profile = excluded.profile""",
                self._owner(p=text),
            )

    def _read(self) -> Any:
        return self._tx()

    def _forgotten(self, conn: Any) -> set[str]:
        rows = conn.execute(
            """SELECT note_id FROM audit WHERE tenant_id = %(tenant)s AND user_id = %(user)s
               AND action = 'forget' AND note_id IS NOT NULL""", self._owner()).fetchall()
        return {r[0] for r in rows}

    def _erasure_mark(self, conn: Any) -> Any:
        newest = []
        for user in (self._user_id, self._erased_as()):
            _act_as(conn, user)  # row-level security shows one user id at a time
            newest += conn.execute(
                """SELECT seq, action FROM audit WHERE tenant_id = %(tenant)s AND user_id = %(as)s
                   ORDER BY seq DESC LIMIT 1""", self._owner(**{"as": user})).fetchall()
        return tuple(max(newest)) if newest else None

    def _present_ids(self, conn: Any, among: Iterable[str] | None = None) -> set[str]:
        only = "" if among is None else " AND id = ANY(%(among)s)"
        return {
            r[0]
            for r in conn.execute(
                f"""SELECT id FROM notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s{only}
                    UNION SELECT id FROM session_notes
                    WHERE tenant_id = %(tenant)s AND user_id = %(user)s{only}""",
                self._owner(among=None if among is None else list(among)),
            )
        }

    def _stage(self, conn: Any, staged: list[tuple[str, MemoryNote]]) -> None:
        rows = []
        for session_id, n in staged:
            text_folded, keywords_folded = _folded(n.text, n.keywords)
            rows.append(
                self._owner(
                    session=session_id,
                    id=n.id,
                    note=json.dumps(n.to_dict(), ensure_ascii=False),
                    expires=expires_utc(n),
                    text_folded=text_folded,
                    keywords_folded=keywords_folded,
                )
            )
        with conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO session_notes (tenant_id, user_id, session_id, id, note, expires_utc,
                       text_folded, keywords_folded)
                   VALUES (%(tenant)s, %(user)s, %(session)s, %(id)s, %(note)s, %(expires)s,
                       %(text_folded)s, %(keywords_folded)s)
                   ON CONFLICT (tenant_id, user_id, session_id, id)
                   DO UPDATE SET note = excluded.note, expires_utc = excluded.expires_utc,
                       text_folded = excluded.text_folded,
                       keywords_folded = excluded.keywords_folded""",
                rows,
            )

    def commit_consolidation(
        self, session_id: str, merged_notes: Iterable[MemoryNote], superseded: Iterable[str] = ()
    ) -> None:
        """Write a consolidation's result and drop the session's staged notes, atomically.

        Notes not stored yet pass the write policy first (PolicyRefused: nothing is written).
        A note this handle loaded or staged and that was erased since (forget, erase_user, an
        import) is not written back, nor is a note made from it; links to them are cleared.
        """
        notes = long_term(merged_notes)
        with self._tx() as conn:
            gone = self._gone(self._present_ids(conn))
            notes = self._without_erased(notes, gone)
            superseded = [i for i in superseded if i not in gone]
            self._admit(conn, notes=[(n, session_id) for n in notes])
            self._write_notes(conn, notes, session_id, list(superseded))
            conn.execute(
                """DELETE FROM session_notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s
                            AND session_id = %(session)s""",
                self._owner(session=session_id),
            )
        self._committed(session_id, notes)

    def _write_notes(
        self, conn: Any, notes: list[MemoryNote], session_id: str | None, superseded: list[str]
    ) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                _INSERT_NOTE,
                [_pg_note_row(self._tenant_id, self._user_id, n, session_id, None) for n in notes],
            )
            links = [self._owner(old=n.supersedes, new=n.id) for n in notes if n.supersedes]
            links += [self._owner(old=old, new=None) for old in superseded]
            cur.executemany(
                """UPDATE notes SET status = 'superseded',
                                   superseded_by = COALESCE(%(new)s, superseded_by)
                               WHERE tenant_id = %(tenant)s AND user_id = %(user)s AND id = %(old)s
                                 AND status = 'active'""",
                links,
            )
        conn.execute(
            """UPDATE notes SET superseded_at = COALESCE(
                          (SELECT s.observed_utc FROM notes AS s WHERE s.tenant_id = notes.tenant_id
                             AND s.user_id = notes.user_id AND s.id = notes.superseded_by), %(now)s)
                       WHERE tenant_id = %(tenant)s AND user_id = %(user)s AND status = 'superseded'
                          AND superseded_at IS NULL""",
            self._owner(now=self._now()),
        )

    # -- erasure (`UserMemoryBase.forget` decides what; this is the SQL) ----------------------------

    def _write(self) -> Any:
        return self._tx()

    def _profile_text(self, conn: Any) -> str | None:
        row = conn.execute(
            "SELECT profile FROM profiles WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
            self._owner(),
        ).fetchone()
        return row[0] if row else None

    def _all_notes(self, conn: Any) -> list[MemoryNote]:
        return self._notes(conn.execute(
            f"SELECT {SELECT_NOTE} FROM notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
            self._owner(),
        ))

    def _all_staged(self, conn: Any) -> list[MemoryNote]:
        rows = conn.execute(
            "SELECT note FROM session_notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
            self._owner(),
        ).fetchall()
        return [MemoryNote.from_dict(json.loads(r[0])) for r in rows]

    def _erase(self, conn: Any, plan: ForgetPlan, audit: list[dict[str, Any]]) -> None:
        owner = "tenant_id = %(tenant)s AND user_id = %(user)s"
        erased = self._owner(ids=plan.erase, restore=plan.restore)
        for table in ("notes", "session_notes"):
            conn.execute(f"DELETE FROM {table} WHERE {owner} AND id = ANY(%(ids)s)", erased)
        # No dangling links: a predecessor stays superseded, by nothing that still exists...
        for column in ("superseded_by", "supersedes"):
            conn.execute(
                f"UPDATE notes SET {column} = NULL WHERE {owner} AND {column} = ANY(%(ids)s)",
                erased,
            )
            conn.execute(
                f"""UPDATE session_notes
                    SET note = jsonb_set(note::jsonb, '{{{column}}}', 'null')::text
                    WHERE {owner} AND note::jsonb->>'{column}' = ANY(%(ids)s)""",
                erased,
            )
        # ...unless the erased note was its live copy: then it is live again.
        conn.execute(
            f"""UPDATE notes SET status = 'active', superseded_at = NULL
                WHERE {owner} AND id = ANY(%(restore)s)""",
            erased,
        )
        if plan.profile is not None:
            conn.execute(
                f"UPDATE profiles SET profile = %(p)s WHERE {owner}",
                self._owner(p=json.dumps(plan.profile, ensure_ascii=False)),
            )
        with conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
                   VALUES (%(tenant)s, %(user)s, %(at)s, 'forget', %(id)s, %(reason)s)""",
                audit,
            )

    def _after_erasure(self, erased: int) -> CheckpointResult:
        return _erasure_pending(erased)

    def erase_user(self, *, reason: str = "user request") -> Erasure:
        """Erase everything stored for this user (profile, notes, staged notes, audit history),
        leaving one audit row that holds counts, never content, under the user's keyed id (as
        `UserMemory.erase_user`). Returns the notes erased (long-term + staged) as an `Erasure`."""
        owner = "tenant_id = %(tenant)s AND user_id = %(user)s"
        with self._tx() as conn:
            notes, staged, profiles = (conn.execute(f"SELECT count(*) FROM {table} WHERE {owner}",
                                                    self._owner()).fetchone()[0]
                                       for table in ("notes", "session_notes", "profiles"))
            said = self._said(conn)
            for table in ("notes", "session_notes", "profiles", "audit"):
                conn.execute(f"DELETE FROM {table} WHERE {owner}", self._owner())
            _act_as(conn, self._erased_as())  # row-level security checks the row's user id
            conn.execute(
                """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
                   VALUES (%(tenant)s, %(erased)s, %(at)s, 'erase_user', NULL, %(reason)s)""",
                self._owner(
                    erased=self._erased_as(),
                    at=self._now(),
                    reason=erase_user_reason(reason, self._user_id, notes, staged, profiles, said),
                ),
            )
        return self._erased_user(Erasure(notes + staged, _erasure_pending(notes + staged + profiles)), said)

    # -- export and import ---------------------------------------------------------------------

    def export_json(self) -> str:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT profile FROM profiles WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
                self._owner(),
            ).fetchone()
            notes = self._rows(
                conn.execute(
                    f"""SELECT {SELECT_NOTE}, session_id, superseded_at FROM notes
                        WHERE tenant_id = %(tenant)s AND user_id = %(user)s
                        ORDER BY observed_utc, id""",
                    self._owner(),
                )
            )
            staged = conn.execute(
                """SELECT session_id, note FROM session_notes
                   WHERE tenant_id = %(tenant)s AND user_id = %(user)s ORDER BY session_id, id""",
                self._owner(),
            ).fetchall()
        return export_document(
            self._tenant_id,
            self._user_id,
            row[0] if row else None,
            [(note_from_columns(r), r["session_id"], r["superseded_at"]) for r in notes],
            staged,
        )

    def import_json(self, text: str) -> int:
        """Replace this user's memory with an export (whoever it was exported from).

        The whole document is validated first, every note, staged note and profile value against
        the store's write policy included: one refused item refuses the whole import. A note or
        profile value this user had forgotten stays forgotten (`_not_forgotten`).
        """
        imported = parse_export(text)
        import helpers.consolidation  # noqa: F401  (its first import, a second or two, outside the lock)
        with self._tx() as conn, conn.cursor() as cur:
            imported, forgotten = self._not_forgotten(conn, imported)
            self._admit(conn, notes=[(n, s) for n, s, _ in imported.notes], staged=imported.staged,
                        profile=imported.profile, replacing=True)
            rows = [
                _pg_note_row(self._tenant_id, self._user_id, n, session_id, superseded_at)
                for n, session_id, superseded_at in imported.notes
            ]
            for table in ("notes", "session_notes", "profiles"):
                cur.execute(
                    f"DELETE FROM {table} WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
                    self._owner(),
                )
            cur.executemany(_INSERT_NOTE, rows)
            if imported.profile is not None:
                cur.execute(
                    "INSERT INTO profiles VALUES (%(tenant)s, %(user)s, %(p)s)",
                    self._owner(p=json.dumps(imported.profile, ensure_ascii=False)),
                )
            self._stage(conn, imported.staged)
            cur.execute(
                """INSERT INTO audit (tenant_id, user_id, at, action, note_id, reason)
                           VALUES (%(tenant)s, %(user)s, %(at)s, 'import', NULL, %(reason)s)""",
                self._owner(at=self._now(), reason=import_reason(len(rows), forgotten)),
            )
        return len(rows)


__all__ = [
    "APP_ROLE",
    "PostgresMemoryStore",
    "PostgresUserMemory",
    "SCHEMA",
    "create_schema",
]
