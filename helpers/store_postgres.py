"""The memory store over PostgreSQL, for deployments that outgrow one machine.

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
  (`helpers.store_base.plan_forget`). Unlike SQLite's secure_delete, the bytes are not zeroed: a
  byte scan of the data folder after `forget` and a CHECKPOINT finds the text in the table files,
  still after a plain VACUUM (it frees the space without clearing it), gone from them after
  `VACUUM FULL` (a rewrite, as the owner), and in the WAL until its segments are overwritten.
  The returned `Erasure.checkpoint` is therefore never completed and says so.
- Keyword filters fold case in Python (`helpers.store.fold`: NFKC + Unicode casefold), because
  PostgreSQL's lower() follows the database locale: the folded keywords are stored beside each
  note, so they agree with SQLite's.
- Every write passes the store's write policy (`open(..., write_policy=...)`), with the same
  helpers as SQLite (`helpers.write_policy.refused_notes`...): one refusal, nothing written.

    admin = "host=/tmp/pg dbname=memory user=postgres"     # the owner, once
    create_schema(admin, app_password=None)                 # tables, RLS, the memory_app role
    store = PostgresMemoryStore.open("host=/tmp/pg dbname=memory user=memory_app")

`TemporaryPostgres` starts a throwaway local server from Debian's packages (tests, benchmarks).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Iterator

from helpers.retrieval import RECALL_LIMIT
from helpers.state import Clock, MemoryNote, MemoryState, system_clock
from helpers.store import StoreError, _note_row
from helpers.store_base import (
    SELECT_NOTE,
    AuditEntry,
    CheckpointResult,
    Erasure,
    ForgetPlan,
    StoreBase,
    UserMemoryBase,
    as_it_was,
    check_owner,
    erase_user_reason,
    export_document,
    expires_utc,
    fold,
    import_reason,
    long_term,
    note_from_columns,
    parse_export,
    utc,
)
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
        -- fold(text) and fold(keyword) for each keyword, written by Python (see the docstring)
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
    # A random secret per store (create_schema fills it): keys the ledger and the audit ids.
    # Store-wide, so no row-level security; the application role may only read it.
    """CREATE TABLE store_secret (
        id INTEGER PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL)""",
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

_INSERT_NOTE = f"""
    INSERT INTO notes (tenant_id, user_id, id, text, keywords, kind, scope, observed_at, source_ref,
        status, supersedes, superseded_by, expires_at, sensitivity, confidence, session_id,
        superseded_at, observed_utc, expires_utc, text_folded, keywords_folded)
    VALUES ({", ".join(["%s"] * 21)})
    ON CONFLICT (tenant_id, user_id, id) DO UPDATE SET
        text = excluded.text, keywords = excluded.keywords, kind = excluded.kind,
        scope = excluded.scope, observed_at = excluded.observed_at,
        source_ref = excluded.source_ref,
        status = excluded.status, supersedes = excluded.supersedes,
        superseded_by = excluded.superseded_by, expires_at = excluded.expires_at,
        sensitivity = excluded.sensitivity, confidence = excluded.confidence,
        session_id = COALESCE(excluded.session_id, notes.session_id),
        superseded_at = CASE WHEN excluded.status = 'superseded'
                             THEN COALESCE(excluded.superseded_at, notes.superseded_at) END,
        observed_utc = excluded.observed_utc, expires_utc = excluded.expires_utc,
        text_folded = excluded.text_folded, keywords_folded = excluded.keywords_folded
"""

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
    return fold(text), [fold(k) for k in keywords]


def _pg_note_row(
    tenant_id: str,
    user_id: str,
    note: MemoryNote,
    session_id: str | None,
    superseded_at: str | None,
) -> tuple:
    """One `notes` row in the column order of `_INSERT_NOTE`: SQLite's, plus the folded forms."""
    row = _note_row(tenant_id, user_id, note, session_id, superseded_at)
    return (*row, *_folded(note.text, note.keywords))


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
            conn.execute(sql.SQL("GRANT SELECT ON store_secret TO {}").format(role))
            conn.execute("INSERT INTO store_secret VALUES (1, %s)", (secrets.token_bytes(32),))
    from helpers.conversations import create_conversation_tables  # the SDK's session tables

    create_conversation_tables(admin_conninfo, role=app_role)


class PostgresMemoryStore(StoreBase):
    """A PostgreSQL database holding every tenant's and user's memory; RLS keeps them apart."""

    def __init__(self, conn: Any, clock: Clock, secret: bytes) -> None:
        self._conn = conn
        self._lock = threading.RLock()  # one connection, shared by handles and threads
        self._secret = secret
        self.clock = clock

    @classmethod
    def open(
        cls,
        conninfo: str,
        *,
        clock: Clock = system_clock,
        write_policy: WritePolicy | None = None,
        expiry: bool = True,
    ) -> PostgresMemoryStore:
        """Connect as the application role; refuse one that RLS would not bind.

        `write_policy` (default DEFAULT_WRITE_POLICY) checks every note and profile value written
        through the store; states loaded from it carry it, as with `MemoryStore.open`.
        """
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
            if conn.execute("SELECT to_regclass('store_secret')").fetchone()[0] is None:
                raise StoreError(
                    "this database has an older memory schema (no store_secret table, no folded "
                    "columns): export each user with the older code and import into a database "
                    "made by create_schema(admin_conninfo)"
                )
            row = conn.execute("SELECT secret FROM store_secret").fetchone()
            if row is None:
                raise StoreError("the store has no secret: create_schema did not complete")
            conn.rollback()
        except BaseException:
            conn.close()
            raise
        return cls(conn, clock, bytes(row[0]))._with_options(write_policy, expiry)

    @property
    def secret(self) -> bytes:
        """This store's random secret (made by create_schema): keys ledger digests and audit ids."""
        return self._secret

    def for_user(self, tenant_id: str, user_id: str) -> PostgresUserMemory:
        check_owner(tenant_id, user_id)
        return PostgresUserMemory(self, tenant_id, user_id)

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
            params["wanted"] = sorted({fold(k) for k in keywords})
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
        text = self._allowed_profile(profile)
        with self._tx() as conn:
            conn.execute(
          """INSERT INTO profiles (tenant_id, user_id, profile) VALUES (%(tenant)s, %(user)s, %(p)s)
                       ON CONFLICT (tenant_id, user_id) DO UPDATE SET profile = excluded.profile""",
                self._owner(p=text),
            )

    def add_notes(self, notes: Iterable[MemoryNote], *, session_id: str | None = None) -> int:
        """Write long-term notes (same id replaces): all pass the write policy, or none is."""
        notes = self._allowed_notes(notes)
        with self._tx() as conn:
            self._write_notes(conn, notes, session_id, [])
        return len(notes)

    def stage_session_notes(self, session_id: str, notes: Iterable[MemoryNote]) -> int:
        """Persist notes captured during a session, so a crash before consolidation loses none.
        A note this handle staged or loaded before and that was erased since is not staged again."""
        notes = self._allowed_staged(notes)
        with self._tx() as conn:
            gone = self._gone_among(conn, [n.id for n in notes])
            notes = [n for n in notes if n.id not in gone]
            self._stage(conn, [(session_id, n) for n in notes])
        self._staged(session_id, notes)
        return len(notes)

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
            stored = {
                r[0]
                for r in conn.execute(
                    "SELECT id FROM notes WHERE tenant_id = %(tenant)s AND user_id = %(user)s",
                    self._owner(),
                )
            }
            self._allowed_new(notes, stored)
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
        return Erasure(notes + staged, _erasure_pending(notes + staged + profiles))

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
        imported = parse_export(text, self._store.write_policy)
        import helpers.consolidation  # noqa: F401  (its first import, a second or two, outside the lock)
        with self._tx() as conn, conn.cursor() as cur:
            imported, forgotten = self._not_forgotten(conn, imported)
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


# -- a throwaway local server -------------------------------------------------------------------

INSTALL_HINT = (
    "sudo apt-get install postgresql "
    "(Debian/Ubuntu; initdb and pg_ctl under /usr/lib/postgresql/*/bin)"
)


def find_postgres_bin() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent  # /usr/local/bin may hold only a symlink to initdb
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return versions[-1].parent if versions else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary folder, on a unix socket only; `stop()` removes it.

    `folder=` keeps the server's files there instead (a cache: benchmarks reuse a loaded database):
    an existing cluster is started as it is, and `stop()` shuts it down but keeps the folder.
    initdb refuses to run as root, so as root the server runs as the `postgres` system user.
    """

    def __init__(
        self, bin_dir: Path | None = None, database: str = "memory", folder: Path | None = None
    ) -> None:
        found = bin_dir or find_postgres_bin()
        if found is None:
            raise FileNotFoundError(f"PostgreSQL is not installed: {INSTALL_HINT}")
        self.bin_dir: Path = found
        self.database = database
        self.keep = folder is not None
        if folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="memory-pg-"))
        else:
            self.folder = Path(folder)
            self.folder.mkdir(parents=True, exist_ok=True)
        self.data, self.socket = self.folder / "data", self.folder / "socket"
        self.socket.mkdir(exist_ok=True)
        self._as = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.folder, "postgres")
            shutil.chown(self.socket, "postgres")
        self.superuser = "postgres" if self._as else os.environ.get("USER", "postgres")
        if not (self.data / "PG_VERSION").exists():
            try:
                self._run(
                    "initdb",
                    "-D",
                    str(self.data),
                    "-U",
                    self.superuser,
                    "-A",
                    "trust",
                    "--no-sync",
                    "-E",
                    "UTF8",
                    "--locale=C",
                )
            except BaseException:
                self._remove()
                raise
        # A unix socket only (no TCP port to collide with), and no fsync: the data is thrown away.
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        try:
            self.create_database(database)
        except BaseException:
            self.stop()
            raise

    def create_database(self, name: str) -> bool:
        """Create database `name` unless it exists; True if it was created."""
        psycopg = _psycopg()
        with psycopg.connect(self.conninfo(database="postgres"), autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                return False
        self._run("createdb", "-h", str(self.socket), "-U", self.superuser, name)
        return True

    def _remove(self) -> None:
        if not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as, str(self.bin_dir / tool), *args],
            capture_output=True,
            text=True,
            cwd=self.folder,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{tool} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )

    def conninfo(self, user: str | None = None, database: str | None = None) -> str:
        return (
            f"host={self.socket} dbname={database or self.database} user={user or self.superuser}"
        )

    def stop(self) -> None:
        """Shut the server down; remove its folder unless it was given (`folder=`)."""
        try:
            mode = "fast" if self.keep else "immediate"  # a kept cluster restarts without recovery
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        finally:
            self._remove()

    def __enter__(self) -> TemporaryPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = [
    "APP_ROLE",
    "INSTALL_HINT",
    "PostgresMemoryStore",
    "PostgresUserMemory",
    "SCHEMA",
    "TemporaryPostgres",
    "create_schema",
    "find_postgres_bin",
]
