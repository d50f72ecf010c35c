"""A writer killed with SIGKILL mid-consolidation leaves the store whole: all of the commit, or none.

Each test runs a real subprocess that commits a large consolidation and is killed while doing
so. After reopening, SQLite's integrity check passes, and either the merged notes are all there
and the session's staged notes are gone, or no merged note is there and every staged note is.
"""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from helpers.state import MemoryNote, fixed_clock
from helpers.store import MemoryStore
from tests.conftest import RULES_ALONE

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

CLOCK = fixed_clock("2026-06-01T09:00:00Z")
STAGED = 50

# The writer: commit a consolidation of N merged notes. In "pause" mode it stops just before
# the consolidation's COMMIT runs (seen through the connection's trace callback) and waits to be killed.
WRITER = textwrap.dedent("""
    import sys, time
    from helpers.state import MemoryNote, fixed_clock
    from helpers.store import MemoryStore
    from helpers.write_policy import DEFAULT_WRITE_POLICY, rules_only

    path, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = MemoryStore.open(path, clock=fixed_clock("2026-06-01T09:00:00Z"),
                            write_policy=rules_only(DEFAULT_WRITE_POLICY))  # as tests/conftest.py RULES_ALONE
    merged = [MemoryNote(text=f"merged note {i} " + "m" * 120, observed_at="2026-06-01") for i in range(n)]

    seen = []

    def stop_before_commit(sql):
        # Stop at the COMMIT that follows removing the staged notes: the end of the consolidation.
        seen.append(sql.strip())
        if seen[-1] == "COMMIT" and any(s.startswith("DELETE FROM session_notes") for s in seen):
            print("committing", flush=True)
            time.sleep(60)

    if mode == "pause":
        store._conn.set_trace_callback(stop_before_commit)
    print("ready", flush=True)
    store.for_user("acme", "maya").commit_consolidation("s1", merged, superseded=["mem_old"])
    print("committed", flush=True)
    time.sleep(60)  # stay alive until killed, like a server would
""")


def prepare(path):
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        u = store.for_user("acme", "maya")
        u.add_notes([MemoryNote(text="Lives in Brisbane", observed_at="2025-11-02", id="mem_old")])
        u.stage_session_notes("s1", [MemoryNote(text=f"session note {i}", observed_at="2026-06-01")
                                     for i in range(STAGED)])


def start_writer(path, mode, n):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(path), mode, str(n)],
                            stdout=subprocess.PIPE, text=True, env=env)


def wait_for(proc, line):
    for got in proc.stdout:
        if got.strip() == line:
            return
    raise AssertionError(f"writer exited before printing {line!r} (rc={proc.wait()})")


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def outcome(path, n):
    """'all' or 'none', after checking that nothing is half-written."""
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    raw.close()
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        u = store.for_user("acme", "maya")
        merged = [t for t in (n.text for n in u.active_notes()) if t.startswith("merged note")]
        staged = u.staged_notes("s1")
        old_is_active = "Lives in Brisbane" in [n.text for n in u.active_notes()]
    if merged:
        assert (len(merged), len(staged), old_is_active) == (n, 0, False)
        return "all"
    assert (len(staged), old_is_active) == (STAGED, True)
    return "none"


def test_killed_just_before_commit_keeps_the_staged_notes(tmp_path):
    path, n = tmp_path / "m.db", 20_000
    prepare(path)
    proc = start_writer(path, "pause", n)
    try:
        wait_for(proc, "committing")
        # The transaction is fully written but not committed: its pages already sit in the WAL.
        assert (tmp_path / "m.db-wal").stat().st_size > 0
    finally:
        kill(proc)
    assert outcome(path, n) == "none"


def test_killed_at_random_moments_is_always_all_or_nothing(tmp_path):
    rng = random.Random(7)
    n, seen = 5_000, []
    started = time.monotonic()
    for attempt in range(6):
        path = tmp_path / f"m{attempt}.db"
        prepare(path)
        proc = start_writer(path, "run", n)
        try:
            wait_for(proc, "ready")
            time.sleep(rng.uniform(0.0, 0.25))
        finally:
            kill(proc)
        seen.append(outcome(path, n))  # asserts all-or-nothing and integrity
    print("outcomes:", seen)
    assert time.monotonic() - started < 30


def test_a_commit_that_finished_survives_the_kill(tmp_path):
    path, n = tmp_path / "m.db", 1_000
    prepare(path)
    proc = start_writer(path, "run", n)
    try:
        wait_for(proc, "committed")
    finally:
        kill(proc)
    assert outcome(path, n) == "all"
