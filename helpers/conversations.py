"""Stage 8 — persistence (notebook 08; production: notebook 11): where a conversation is kept, so that a
restart resumes it: an Agents SDK `Session` beside the memory store.

The course's trimming and compaction (`helpers.trimming`) decide *what* history the model reads;
this module decides *where* that history lives between processes. It uses what the SDK ships:

    SQLite store       agents.SQLiteSession in a file beside the store ("<store>-conversations.db")
    PostgreSQL store   agents.extensions.memory.SQLAlchemySession on the same database
                       (tables made once by `create_conversation_tables(admin_url)`)
    either, optionally agents.extensions.memory.EncryptedSession around it (Fernet, per-session key)

Each conversation is two SDK sessions: its items, and one item that holds its trim state (what
trimming or compaction did so far, the summary, the turn number), so reopening a session id after
a restart resumes the conversation exactly where the trimming left it. Session keys name the
tenant and the user, so an erasure reaches every stored conversation of one user: the turns that
mention what was erased are rewritten away, and on SQLite the file is vacuumed and its WAL
truncated so the erased text is gone from the bytes (see benchmarks/scan_erasure.py). It happens
when the store commits the erasure, through any handle (`helpers.lifecycle.watch_conversations`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents import SQLiteSession
from agents.memory import Session

STATE_ITEM = "course_trim_state"
TABLES = ("agent_sessions", "agent_messages")


def session_key(tenant_id: str, user_id: str, session_id: str, part: str = "items") -> str:
    """The SDK session id of one part ("items" or "state") of one user's conversation: a JSON
    list, so a prefix names one user exactly whatever characters the ids hold."""
    return json.dumps([tenant_id, user_id, session_id, part], ensure_ascii=False)


def _user_prefix(tenant_id: str, user_id: str) -> str:
    return json.dumps([tenant_id, user_id], ensure_ascii=False)[:-1] + ", "


class StoredConversation:
    """One conversation's items and trim state, each in an SDK Session."""

    def __init__(self, items: Session, state: Session, scrub: Callable[[], None] = lambda: None):
        self.items, self.state, self._scrub = items, state, scrub

    async def get_items(self) -> list[dict]:
        return [dict(i) for i in await self.items.get_items()]

    async def append(self, items: list[dict]) -> None:
        if items:
            await self.items.add_items(items)  # type: ignore[arg-type]

    async def replace(self, items: list[dict], *, erased: bool = False) -> None:
        """Store `items` in place of the conversation; after an erasure, scrub the bytes too."""
        await self.items.clear_session()
        await self.append(items)
        if erased:
            self._scrub()

    async def read_state(self) -> dict[str, Any] | None:
        for item in await self.state.get_items():
            found: dict[str, Any] = dict(item)
            if found.get("type") == STATE_ITEM:
                return dict(found.get("state") or {})
        return None

    async def write_state(self, state: dict[str, Any]) -> None:
        await self.state.clear_session()
        await self.state.add_items([{"type": STATE_ITEM, "state": state}])  # type: ignore[list-item]


class Conversations:
    """Opens the stored conversations of one store's users. `Conversations.beside(store)` picks
    the SDK session for the store's backend; `encryption_key` wraps each in EncryptedSession."""

    def __init__(self, open_session: Callable[[str], Session], list_keys: Callable[[str], list[str]],
                 scrub: Callable[[], None] = lambda: None, *, encryption_key: str | None = None,
                 ttl: int = 3600 * 24 * 30, where: str | None = None):
        self._open, self._list, self._scrub = open_session, list_keys, scrub
        self.encryption_key, self.ttl = encryption_key, ttl
        self.where = where  # the file or database URL; None: only this object knows

    def same_place(self, other: Conversations) -> bool:
        """Are both kept in the same file or database (so one eraser serves both)?"""
        return other is self or (self.where is not None and self.where == other.where)

    @classmethod
    def beside(cls, store: Any, *, encryption_key: str | None = None) -> Conversations | None:
        """SQLite beside a file store, SQLAlchemy on a PostgreSQL store; None for ":memory:"
        (nothing outlives the process there: the conversation stays in memory)."""
        path = getattr(store, "path", None)
        if path == ":memory:":
            return None
        if path is not None:
            return cls.sqlite(f"{path}-conversations.db", encryption_key=encryption_key)
        conn = getattr(store, "_conn", None)
        if conn is not None and hasattr(conn, "info"):
            return cls.postgres(postgres_url(conn.info), encryption_key=encryption_key)
        raise TypeError(f"no conversation storage for {type(store).__name__}: pass conversations=")

    @classmethod
    def sqlite(cls, path: str | Path, *, encryption_key: str | None = None) -> Conversations:
        path = str(path)

        def list_keys(prefix: str) -> list[str]:
            with sqlite3.connect(path) as conn:
                rows = conn.execute("SELECT session_id FROM agent_sessions WHERE substr(session_id, 1, ?) = ?",
                                    (len(prefix), prefix)).fetchall()
            return [r[0] for r in rows]

        def scrub() -> None:
            """Deleted rows leave their text in free pages and the WAL: rebuild the file, then
            copy the WAL back and truncate it."""
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                conn.execute("VACUUM")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()

        SQLiteSession("", path).close()  # creates the tables, so list_keys can read them
        return cls(lambda key: SQLiteSession(key, path), list_keys, scrub, encryption_key=encryption_key,
                   where=str(Path(path).resolve()))

    @classmethod
    def postgres(cls, url: str, *, encryption_key: str | None = None) -> Conversations:
        """SQLAlchemySession on `url` (postgresql+psycopg://...), one engine for all
        sessions; the tables must exist (`create_conversation_tables`)."""
        from agents.extensions.memory import SQLAlchemySession
        from sqlalchemy import create_engine, text
        from sqlalchemy.ext.asyncio import create_async_engine
        from sqlalchemy.pool import NullPool

        engine = create_async_engine(url, poolclass=NullPool)  # no connection outlives its event loop

        def list_keys(prefix: str) -> list[str]:
            sync = create_engine(url, poolclass=NullPool)
            try:
                with sync.connect() as conn:
                    rows = conn.execute(text("SELECT session_id FROM agent_sessions "
                                             "WHERE left(session_id, :n) = :p"), {"n": len(prefix), "p": prefix})
                    return [r[0] for r in rows]
            finally:
                sync.dispose()

        return cls(lambda key: SQLAlchemySession(key, engine=engine), list_keys, encryption_key=encryption_key,
                   where=url)

    def _session(self, key: str) -> Session:
        session = self._open(key)
        if self.encryption_key is None:
            return session
        from agents.extensions.memory import EncryptedSession

        return EncryptedSession(key, session, self.encryption_key, ttl=self.ttl)  # type: ignore[arg-type]

    def open(self, tenant_id: str, user_id: str, session_id: str) -> StoredConversation:
        return StoredConversation(self._session(session_key(tenant_id, user_id, session_id)),
                                  self._session(session_key(tenant_id, user_id, session_id, "state")),
                                  self._scrub)

    def session_ids(self, tenant_id: str, user_id: str) -> list[str]:
        """The ids of this user's stored conversations."""
        keys = [json.loads(k) for k in self._list(_user_prefix(tenant_id, user_id))]
        return sorted({k[2] for k in keys if k[3] == "items"})


def postgres_url(info: Any) -> str:
    """The SQLAlchemy URL of the database a psycopg connection's `info` names."""
    return _url(dict(info.get_parameters()), info.password or None)


def _url(params: dict[str, str], password: str | None) -> str:
    from sqlalchemy.engine import URL

    host = params.pop("host", None)
    query = {"host": host} if host and host.startswith("/") else {}  # a unix socket's folder
    return URL.create("postgresql+psycopg", username=params.get("user"), password=password,
                      host=None if query else host, port=int(params["port"]) if "port" in params else None,
                      database=params.get("dbname"), query=query).render_as_string(hide_password=False)


def create_conversation_tables(admin: str, role: str = "memory_app") -> None:
    """Create the SDK's session tables in a PostgreSQL database (connect as its owner: `admin`, a
    psycopg conninfo or a SQLAlchemy URL) and let the application role read and write them.
    `helpers.store_postgres.create_schema` calls it. Runs in a thread of its own, so a notebook's
    running event loop is no obstacle."""
    from agents.extensions.memory import SQLAlchemySession
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.pool import NullPool

    url = admin if "://" in admin else postgres_url_from_conninfo(admin)

    async def create() -> None:
        engine = create_async_engine(url, poolclass=NullPool)
        try:
            await SQLAlchemySession("", engine=engine, create_tables=True).get_items()  # creates them
            async with engine.begin() as conn:
                await conn.execute(text(f'GRANT SELECT, INSERT, UPDATE, DELETE ON {", ".join(TABLES)} TO "{role}"'))
                await conn.execute(text(f'GRANT USAGE ON SEQUENCE agent_messages_id_seq TO "{role}"'))
        finally:
            await engine.dispose()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, create()).result()


def postgres_url_from_conninfo(conninfo: str) -> str:
    """The SQLAlchemy URL of a psycopg conninfo string ("host=... dbname=... user=...")."""
    from psycopg.conninfo import conninfo_to_dict

    params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items()}
    return _url(params, params.pop("password", None))


__all__ = ["Conversations", "StoredConversation", "create_conversation_tables", "postgres_url",
           "postgres_url_from_conninfo", "session_key"]
