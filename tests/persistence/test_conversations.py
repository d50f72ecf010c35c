"""Conversations survive a restart: each turn runs in a process of its own, and the next process
that opens the same session id sees the turns before it, its staged notes and its trim state
(SQLite beside the store, and PostgreSQL). An erased note's turns leave the stored bytes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.conversations import Conversations
from helpers.lifecycle import open_memory
from helpers.state import fixed_clock
from helpers.store import MemoryStore
from tests.scripted_model import ScriptedModel

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-11-02T09:00:00Z"

# One turn in a fresh interpreter: open the store, reopen session "trip", run one message, print
# what the model was sent and what the session holds.
TURN = """
import asyncio, json, sys
from agents import set_tracing_disabled
from helpers.lifecycle import open_memory
from helpers.state import fixed_clock
from tests.scripted_model import ScriptedModel
set_tracing_disabled(True)
NOW = "2026-11-02T09:00:00Z"
backend, where, message, save = sys.argv[1:5]
if backend == "sqlite":
    from helpers.store import MemoryStore
    store = MemoryStore.open(where, clock=fixed_clock(NOW))
else:
    from helpers.store_postgres import PostgresMemoryStore
    store = PostgresMemoryStore.open(where, clock=fixed_clock(NOW), key=bytes(32))
steps = ([{"tool": "save_memory_note", "arguments": {"text": save, "keywords": ["partner"],
          "kind": "fact"}}] if save else []) + ["Noted."]
model = ScriptedModel(steps)
session = open_memory(store, "acme", "maya", model=model, session_id="trip", max_turns_kept=1,
                      consolidation_model=None)
turn = asyncio.run(session.run_turn(message))
print(json.dumps({"sent": str(model.calls[0].input), "turn": turn.turn,
                  "staged": [n.text for n in session.state.session_notes],
                  "events": len(session.session.events)}))
"""


def turn(backend, where, message, save=""):
    done = subprocess.run([sys.executable, "-c", TURN, backend, where, message, save], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def postgres():
    from helpers.store_postgres import create_schema
    from tests.postgres_server import TemporaryPostgres, find_postgres_bin

    if find_postgres_bin() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL is needed for the conversation tests")
        pytest.skip("PostgreSQL is not installed")
    server = TemporaryPostgres()
    try:
        create_schema(server.conninfo())  # with the conversation tables
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path):
    if request.param == "sqlite":
        return "sqlite", str(tmp_path / "memory.db")
    server = request.getfixturevalue("postgres")
    import psycopg

    with psycopg.connect(server.conninfo(), autocommit=True) as admin:
        admin.execute("TRUNCATE notes, session_notes, profiles, audit, agent_messages, agent_sessions CASCADE")
    return "postgres", server.conninfo("memory_app")


def test_a_restart_between_turns_resumes_the_conversation_its_notes_and_its_trim_state(backend):
    first = turn(*backend, "My partner Alex Xqzorb travels with me.", "Travels with partner Alex Xqzorb")
    second = turn(*backend, "Book us a double room in Lisbon.")
    assert "Alex Xqzorb travels with me" in second["sent"]  # the first turn, from another process
    assert second["turn"] == first["turn"] + 1 == 2
    assert second["staged"] == ["Travels with partner Alex Xqzorb"]  # its staged note came back
    third = turn(*backend, "Make it two nights.")  # 2 earlier turns > max_turns_kept=1: one cut
    assert third["events"] == 1 and "Alex Xqzorb travels" not in third["sent"]
    fourth = turn(*backend, "And a late checkout.")
    assert fourth["events"] == 2 and fourth["turn"] == 4  # the cut of turn 3 was kept


def stored_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes().lower() for p in folder.iterdir() if "conversations" in p.name)


async def test_forgetting_a_note_takes_its_turns_out_of_every_stored_conversation_and_its_bytes(tmp_path):
    path = str(tmp_path / "memory.db")
    turn("sqlite", path, "My partner Alex Xqzorb travels with me.", "Travels with partner Alex Xqzorb")
    turn("sqlite", path, "Book us a double room in Lisbon.")
    assert b"xqzorb" in stored_bytes(tmp_path)
    with MemoryStore.open(path, clock=fixed_clock(NOW)) as store:
        later = open_memory(store, "acme", "maya", model=ScriptedModel([]), session_id="later",
                            consolidation_model=None)
        note = next(n for n in store.for_user("acme", "maya").staged_notes("trip"))
        await later.forget(note.id)
        kept = await Conversations.beside(store).open("acme", "maya", "trip").get_items()
    assert b"xqzorb" not in stored_bytes(tmp_path)
    assert "Book us a double room" in str(kept) and "Xqzorb" not in str(kept)


async def test_the_stored_conversation_of_a_postgres_store_loses_the_erased_turns(postgres):
    from helpers.store_postgres import PostgresMemoryStore

    import psycopg

    with psycopg.connect(postgres.conninfo(), autocommit=True) as admin:
        admin.execute("TRUNCATE notes, session_notes, profiles, audit, agent_messages, agent_sessions CASCADE")
    turn("postgres", postgres.conninfo("memory_app"), "My partner Alex Xqzorb travels with me.")
    store = PostgresMemoryStore.open(postgres.conninfo("memory_app"), clock=fixed_clock(NOW), key=bytes(32))
    try:
        later = open_memory(store, "acme", "maya", model=ScriptedModel([]), session_id="later",
                            consolidation_model=None)
        await later.forget(matching="Xqzorb")
    finally:
        store.close()
    with psycopg.connect(postgres.conninfo()) as admin:
        rows = admin.execute("SELECT message_data FROM agent_messages").fetchall()
    assert not any("xqzorb" in r[0].lower() for r in rows)


async def test_a_memory_store_in_memory_keeps_the_conversation_in_memory():
    with MemoryStore.open(":memory:", clock=fixed_clock(NOW)) as store:
        assert Conversations.beside(store) is None
        session = open_memory(store, "acme", "maya", model=ScriptedModel(["Hi."]), consolidation_model=None)
        await session.run_turn("Hello")
        assert session.session.stored is None and len(await session.session.get_items()) == 2


async def test_an_encrypted_conversation_resumes_and_its_file_holds_no_plain_text(tmp_path):
    conversations = Conversations.sqlite(tmp_path / "c.db", encryption_key="a-course-test-key")
    with MemoryStore.open(tmp_path / "memory.db", clock=fixed_clock(NOW)) as store:
        first = open_memory(store, "acme", "maya", model=ScriptedModel(["Noted."]), session_id="trip",
                            consolidation_model=None, conversations=conversations)
        await first.run_turn("My partner Alex Xqzorb travels with me.")
        again = open_memory(store, "acme", "maya", model=ScriptedModel(["Sure."]), session_id="trip",
                            consolidation_model=None, conversations=conversations)
        await again.session.load()
        assert "Xqzorb" in str(await again.session.get_items())
    assert b"xqzorb" not in stored_bytes_named(tmp_path, "c.db")


def stored_bytes_named(folder: Path, prefix: str) -> bytes:
    return b"".join(p.read_bytes().lower() for p in folder.iterdir() if p.name.startswith(prefix))


def conversation_holds(backend, where, word: str) -> bool:
    """Does any stored conversation still hold `word`? SQLite: the bytes of its files (WAL too);
    PostgreSQL: the session tables' rows."""
    if backend == "sqlite":
        return word.lower().encode() in stored_bytes(Path(where).parent)
    import psycopg

    with psycopg.connect(where) as conn:
        rows = conn.execute("SELECT message_data FROM agent_messages").fetchall()
    return any(word.lower() in r[0].lower() for r in rows)


def open_store(backend, where):
    if backend == "sqlite":
        return MemoryStore.open(where, clock=fixed_clock(NOW))
    from helpers.store_postgres import PostgresMemoryStore

    return PostgresMemoryStore.open(where, clock=fixed_clock(NOW), key=bytes(32))


@pytest.mark.parametrize("how", ["forget", "erase_user"])
async def test_a_store_level_erasure_reaches_the_stored_conversation_at_once(backend, how):
    kind, where = backend
    store = open_store(kind, where)
    try:
        steps = [{"tool": "save_memory_note", "arguments": {"text": "Travels with partner Alex Xqzorb",
                                                            "keywords": ["partner"], "kind": "fact"}},
                 "Noted.", "Sure."]
        session = open_memory(store, "acme", "maya", model=ScriptedModel(steps), session_id="trip",
                              consolidation_model=None)
        await session.run_turn("My partner Alex Xqzorb travels with me.")
        await session.run_turn("Book us a double room in Lisbon.")
        assert conversation_holds(kind, where, "Xqzorb") and conversation_holds(kind, where, "Lisbon")
        handle = store.for_user("acme", "maya")  # not the session: a handle on the store
        if how == "forget":
            erased = handle.forget(handle.staged_notes("trip")[0].id)
            assert erased == 1
            assert not conversation_holds(kind, where, "Xqzorb")  # before any session reads the store
            assert conversation_holds(kind, where, "Lisbon")  # the other turn stays
        else:
            handle.erase_user()
            assert not conversation_holds(kind, where, "Xqzorb")
            assert not conversation_holds(kind, where, "Lisbon")  # every turn of the user goes
    finally:
        store.close()


async def test_an_admin_process_that_erases_reaches_the_conversations_once_it_watches_them(tmp_path):
    from helpers.lifecycle import watch_conversations

    path = str(tmp_path / "memory.db")
    turn("sqlite", path, "My partner Alex Xqzorb travels with me.", "Travels with partner Alex Xqzorb")
    with MemoryStore.open(path, clock=fixed_clock(NOW)) as store:
        eraser = watch_conversations(store, Conversations.beside(store))
        assert watch_conversations(store, Conversations.beside(store)) is eraser  # one per place
        assert store.erasure_listeners == [eraser]
        store.for_user("acme", "maya").forget(matching="xqzorb")
    assert b"xqzorb" not in stored_bytes(tmp_path)
