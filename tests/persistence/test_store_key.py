"""The store's key lives outside the database: the database alone confirms no guessed text.

The attacker here holds the database and nothing else. They guess an erased note ("Allergic to
quuxberries", on any of 30 days) and an erased profile value, and try every value the database
holds as the key of the audit's ids. With the key inside the database (before), both guesses were
confirmed; now neither is, on SQLite (the .db file without its .key file) and on PostgreSQL (every
row of every table, read as the owner).
"""

import os
import sqlite3
import stat
from datetime import date, timedelta

import pytest

from helpers.state import fixed_clock, note_id
from helpers.store import MemoryStore, StoreError
from helpers.caseless import loose
from helpers.store_erasure import PROFILE_AUDIT, keyed_audit_id
from tests.persistence import test_store_contract as contract

backend, postgres, note = contract.backend, contract.postgres, contract.note  # the contract's fixtures
NOW = "2026-06-01T09:00:00Z"
ERASED_ON = "2026-05-17"
DAYS = [(date(2026, 5, 1) + timedelta(days=i)).isoformat() for i in range(30)]


def _erase_what_the_attacker_guesses(u):
    u.add_notes([note("Allergic to quuxberries", ERASED_ON), note("Prefers aisle seats")])
    u.save_profile({"name": "Maya", "allergies": ["quuxberries"]})
    u.forget(matching="quuxberries")
    assert "quuxberries" not in u.export_json()


def _confirmed(values, audit_ids):
    """Which guesses some value of the database, used as the key, confirms."""
    found = set()
    for key in values:
        for day in DAYS:
            if keyed_audit_id(key, note_id("Allergic to quuxberries", day, "global")) in audit_ids:
                found.add("note")
        profile_id = keyed_audit_id(key, f"profile\x00{loose('quuxberries')}")
        if any(i.startswith(PROFILE_AUDIT) and profile_id in i for i in audit_ids):
            found.add("profile value")
    return found


def _sqlite_values(path):
    """Every blob and text value in every table of the .db file, and the audit's ids."""
    conn = sqlite3.connect(path)
    values, audit = [], set()
    for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        try:
            rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
        except sqlite3.OperationalError:
            continue  # the full-text index's shadow tables of a contentless table
        for row in rows:
            values += [bytes(v) if isinstance(v, bytes) else str(v).encode() for v in row if v is not None]
    audit = {r[0] for r in conn.execute("SELECT note_id FROM audit WHERE note_id IS NOT NULL")}
    conn.close()
    return values, audit


def test_the_sqlite_file_alone_confirms_no_guessed_erased_text(tmp_path):
    path = tmp_path / "memory.db"
    with MemoryStore.open(path, clock=fixed_clock(NOW)) as store:
        _erase_what_the_attacker_guesses(store.for_user("acme", "maya"))
        key = store.secret
    # Whoever holds the key file can still match them (the audit works):
    values, audit = _sqlite_values(path)
    assert _confirmed([key], audit) == {"note", "profile value"}
    # The .db alone: no value in it is the key, and no guess is confirmed.
    assert key not in values and key.hex().encode() not in path.read_bytes()
    assert _confirmed(values, audit) == set()
    # The key file is the owner's only, and the .db without it does not open.
    assert stat.S_IMODE(os.stat(f"{path}.key").st_mode) == 0o600
    alone = tmp_path / "copy" / "memory.db"
    alone.parent.mkdir()
    alone.write_bytes(path.read_bytes())
    with pytest.raises(StoreError, match="missing"):
        MemoryStore.open(alone)


def test_a_wrong_key_or_a_key_file_others_can_read_is_refused(tmp_path):
    path = tmp_path / "memory.db"
    MemoryStore.open(path).close()
    with pytest.raises(StoreError, match="not the key"):
        MemoryStore.open(path, key=os.urandom(32))
    os.chmod(f"{path}.key", 0o644)
    with pytest.raises(StoreError, match="chmod 600"):
        MemoryStore.open(path)
    os.chmod(f"{path}.key", 0o600)
    with pytest.raises(ValueError, match="32 random bytes"):
        MemoryStore.open(tmp_path / "other.db", key=b"short")
    MemoryStore.open(path).close()


def test_a_store_from_before_moves_its_secret_to_the_key_file_and_keeps_its_audit(tmp_path):
    """A schema-5 store kept its secret in the database: opening it moves the secret out, so the
    audit ids made with it still match, and the table is gone."""
    from helpers import store_schema as store_module

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function("casefold", 1, store_module.sql_fold, deterministic=True)
    for version, statements in enumerate(store_module.MIGRATIONS[:5], start=1):
        for statement in statements:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")
    secret = bytes(conn.execute("SELECT secret FROM store_secret").fetchone()[0])
    conn.close()
    with MemoryStore.open(path) as store:
        assert store.secret == secret and store.schema_version == store_module.SCHEMA_VERSION
    assert bytes.fromhex(open(f"{path}.key").read().strip()) == secret
    values, _ = _sqlite_values(path)
    assert secret not in values


def test_the_postgres_database_alone_confirms_no_guessed_erased_text(postgres):
    import psycopg

    with contract.Backends("postgres", postgres).open() as store:
        _erase_what_the_attacker_guesses(store.for_user("acme", "maya"))
        key = store.secret
    values, audit = [], set()
    with psycopg.connect(postgres.conninfo(), autocommit=True) as owner:  # the whole database
        for (table,) in owner.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"):
            for row in owner.execute(f'SELECT * FROM "{table}"'):  # a superuser: no row-level security
                values += [bytes(v) if isinstance(v, (bytes, memoryview)) else str(v).encode()
                           for v in row if v is not None]
        audit = {r[0] for r in owner.execute("SELECT note_id FROM audit WHERE note_id IS NOT NULL")}
    assert _confirmed([key], audit) == {"note", "profile value"}
    assert key not in values and _confirmed(values, audit) == set()
    with pytest.raises(StoreError, match="not the key"):
        contract.PostgresMemoryStore.open(postgres.conninfo("memory_app"), key=os.urandom(32))
    with pytest.raises(StoreError, match="key="):
        contract.PostgresMemoryStore.open(postgres.conninfo("memory_app"))
