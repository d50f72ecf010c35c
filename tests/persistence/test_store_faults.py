"""The fault suite: the store under SIGKILL, a full disk, a read-only store and a damaged WAL.

Each test injects one fault into a real store file and checks that it ends with nothing lost
and, where the fault is reported, a clear error. Each adds a row (fault, outcome, data lost) to
FAULTS; run with `-s` to see the table:

    python -m pytest -p no:cacheprovider -s tests/persistence/test_store_faults.py
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from helpers.state import fixed_clock
from helpers.store import (
    CorruptStoreError, MemoryStore, StoreFullError, StoreReadOnlyError,
)
from tests.conftest import RULES_ALONE, note

NOW = "2026-06-01T09:00:00Z"
CLOCK = fixed_clock(NOW)
SECRET = "Wants a quiet room at the Xqzorb Lodge, the hidden SECRET garden wing"
FAULTS: list[tuple[str, str, str]] = []


@pytest.fixture(scope="module", autouse=True)
def fault_table():
    yield
    width = max(len(f) for f, _, _ in FAULTS) if FAULTS else 10
    print(f"\n{'fault':<{width}} | outcome | data lost")
    for fault, outcome, lost in FAULTS:
        print(f"{fault:<{width}} | {outcome} | {lost}")


def prepare(path):
    """Maya's memory before the fault: a profile, long-term notes (one secret), staged notes."""
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        u = store.for_user("acme", "maya")
        u.save_profile({"name": "Maya", "seat": "aisle"})
        u.add_notes([note("Lives in Brisbane", id="mem_old", keywords=["home"]), note(SECRET),
                     note("Prefers aisle seats", keywords=["seat"])])
        u.stage_session_notes("s1", [note(f"session note {i}", "2026-06-01") for i in range(50)])
        return u.export_json()


def memory(path):
    """Maya's whole memory after the fault, once SQLite's own integrity check has passed."""
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    raw.close()
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        document = json.loads(store.for_user("acme", "maya").export_json())
    return {key: document[key] for key in ("profile", "notes", "staged")}


# The victim: open the store, arm the trace, run one action; with a pause point it stops just
# before that statement runs (the trace callback fires first) and waits to be killed.
WRITER = textwrap.dedent("""
    import json, sys, time
    from helpers.state import MemoryNote, fixed_clock
    from helpers.store import MemoryStore
    from helpers.write_policy import DEFAULT_WRITE_POLICY, rules_only

    path, action, pause_on, argument = sys.argv[1:5]
    store = MemoryStore.open(path, clock=fixed_clock("2026-06-01T09:00:00Z"),
                            write_policy=rules_only(DEFAULT_WRITE_POLICY))  # as tests/conftest.py RULES_ALONE
    u = store.for_user("acme", "maya")
    armed = False

    def trace(sql):
        if armed and pause_on and sql.strip().startswith(pause_on):
            print("paused", flush=True)
            time.sleep(60)

    store._conn.set_trace_callback(trace)
    armed = True
    if action == "consolidate":
        merged = [MemoryNote(text=f"merged note {i} " + "m" * 100, observed_at="2026-06-01")
                  for i in range(int(argument))]
        u.commit_consolidation("s1", merged, superseded=["mem_old"])
    elif action == "forget":
        u.forget(matching=argument)
    elif action == "import":
        u.import_json(open(argument).read())
    armed = False
    print("done", flush=True)
    time.sleep(60)
""")


def run_and_kill(path, action, pause_on, argument=""):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), action, pause_on, str(argument)],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline().strip()
        assert line == ("paused" if pause_on else "done"), f"victim said {line!r} (rc={proc.poll()})"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def on_disk(folder, word):
    return sorted(p.name for p in folder.iterdir() if word.encode() in p.read_bytes())


# -- SIGKILL -------------------------------------------------------------------------------------

def test_sigkill_before_the_consolidation_commit_keeps_everything(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    before = memory(path)
    run_and_kill(path, "consolidate", "COMMIT", 5_000)
    assert memory(path) == before  # staged notes still staged, mem_old still active
    FAULTS.append(("SIGKILL during consolidation commit", "rolled back; staged notes kept for a rerun",
                   "none"))


def test_sigkill_after_the_consolidation_commit_keeps_all_of_it(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    run_and_kill(path, "consolidate", "", 2_000)
    after = memory(path)
    assert after["staged"] == [] and sum(n["text"].startswith("merged note") for n in after["notes"]) == 2_000
    assert next(n for n in after["notes"] if n["id"] == "mem_old")["status"] == "superseded"
    FAULTS.append(("SIGKILL after consolidation commit", "all of it stored", "none"))


def test_sigkill_during_erasure_before_its_commit_erases_nothing_and_a_rerun_erases(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    before = memory(path)
    run_and_kill(path, "forget", "COMMIT", "xqzorb")
    assert memory(path) == before
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        assert store.for_user("acme", "maya").forget(matching="xqzorb") == 1
    assert on_disk(tmp_path, "Xqzorb") == []
    FAULTS.append(("SIGKILL during erasure (before commit)", "nothing erased; the rerun erases",
                   "none"))


def test_sigkill_between_erasure_commit_and_checkpoint_is_finished_on_the_next_open(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    run_and_kill(path, "forget", "PRAGMA wal_checkpoint", "xqzorb")
    assert on_disk(tmp_path, "Xqzorb")  # the crash left the erased text in the WAL
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        u = store.for_user("acme", "maya")
        assert on_disk(tmp_path, "Xqzorb") == []  # opening completed the checkpoint
        assert [e.action for e in u.audit_log()] == ["forget"]
        assert SECRET not in u.export_json() and len(u.active_notes()) == 2
    FAULTS.append(("SIGKILL between erasure commit and checkpoint", "erased; next open empties the WAL",
                   "none (the text is gone)"))


def test_sigkill_during_import_keeps_the_old_memory_whole(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    before = memory(path)
    with MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE) as store:
        other = store.for_user("globex", "sam")
        other.add_notes([note(f"imported note {i}") for i in range(500)])
        document = tmp_path / "sam.json"
        document.write_text(other.export_json())
    run_and_kill(path, "import", "COMMIT", document)
    assert memory(path) == before
    run_and_kill(path, "import", "", document)
    assert len(memory(path)["notes"]) == 500
    FAULTS.append(("SIGKILL during import", "old memory whole; a finished import whole", "none"))


# -- disk full, read-only --------------------------------------------------------------------------

def test_a_full_disk_fails_the_write_clearly_and_loses_nothing(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    before = memory(path)
    store = MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE)
    u = store.for_user("acme", "maya")
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # a disk with two pages left
    merged = [note(f"merged note {i} " + "m" * 200, "2026-06-01") for i in range(200)]
    with pytest.raises(StoreFullError, match="full: this write was rolled back"):
        u.commit_consolidation("s1", merged, superseded=["mem_old"])
    with pytest.raises(StoreFullError):
        exported = json.loads(u.export_json())
        exported["notes"] += [dict(exported["notes"][0], id=f"mem_imp{i}", text=f"Imported {i} " + "i" * 200)
                              for i in range(300)]
        u.import_json(json.dumps(exported))
    assert json.loads(u.export_json())["notes"] == before["notes"]
    store._conn.execute("PRAGMA max_page_count = 1073741823")  # space freed: the retry succeeds
    u.commit_consolidation("s1", merged, superseded=["mem_old"])
    store.close()
    assert len(memory(path)["notes"]) == 203
    FAULTS.append(("disk full (max_page_count) during consolidation and import",
                   "StoreFullError; rolled back; retry succeeds", "none"))


def test_a_read_only_store_refuses_writes_clearly_and_still_reads(tmp_path):
    path = tmp_path / "m.db"
    prepare(path)
    before = memory(path)
    store = MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE)
    u = store.for_user("acme", "maya")
    store._conn.execute("PRAGMA query_only = 1")  # the file became read-only under us
    for write in (lambda: u.add_notes([note("Likes trains")]), lambda: u.forget(matching="xqzorb"),
                  lambda: u.stage_session_notes("s2", [note("Wants a quiet room")]),
                  lambda: u.erase_user()):
        with pytest.raises(StoreReadOnlyError, match="cannot be written"):
            write()
    assert len(u.active_notes()) == 3
    store.close()
    assert memory(path) == before
    FAULTS.append(("read-only store", "StoreReadOnlyError on every write; reads work", "none"))


# -- a damaged write-ahead log ---------------------------------------------------------------------

def wal_after_a_crash(tmp_path):
    """A store whose last writes are only in its WAL (the writer was killed before any checkpoint)."""
    path = tmp_path / "m.db"
    prepare(path)
    run_and_kill(path, "consolidate", "", 20)
    wal = tmp_path / "m.db-wal"
    assert wal.stat().st_size > 32
    return path, wal


def test_a_damaged_wal_is_refused_before_sqlite_drops_committed_memory(tmp_path):
    path, wal = wal_after_a_crash(tmp_path)
    data = bytearray(wal.read_bytes())
    page_size = int.from_bytes(data[8:12], "big")
    data[32 + 24 + 100] ^= 0xFF  # one flipped byte in the first frame's page
    wal.write_bytes(bytes(data))
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(CorruptStoreError, match=r"m.db-wal is damaged at frame 1 of \d+.*Nothing was changed"):
        MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    # What SQLite alone would have done: open quietly without the commits after the bad frame.
    raw = sqlite3.connect(path)
    lost = raw.execute("SELECT count(*) FROM notes WHERE text LIKE 'merged note%'").fetchone()[0]
    raw.close()
    assert lost == 0 and page_size > 0
    FAULTS.append(("corrupted -wal (a flipped byte)", "CorruptStoreError naming the frame; files untouched",
                   "none by the store (SQLite alone drops the later commits silently)"))


def test_a_torn_last_wal_frame_after_a_crash_opens_with_every_commit(tmp_path):
    path, wal = wal_after_a_crash(tmp_path)
    with open(wal, "ab") as f:
        f.write(b"\x00" * 1000)  # a frame the crash cut short
    after = memory(path)
    assert sum(n["text"].startswith("merged note") for n in after["notes"]) == 20 and after["staged"] == []
    FAULTS.append(("torn last -wal frame (crash mid-write)", "opens; every committed write there", "none"))


def test_a_damaged_wal_header_is_refused(tmp_path):
    path, wal = wal_after_a_crash(tmp_path)
    data = bytearray(wal.read_bytes())
    data[16] ^= 0x01  # the salt: SQLite would ignore the whole log
    wal.write_bytes(bytes(data))
    with pytest.raises(CorruptStoreError, match="damaged header"):
        MemoryStore.open(path, clock=CLOCK, write_policy=RULES_ALONE)
    FAULTS.append(("corrupted -wal header", "CorruptStoreError; files untouched", "none by the store"))
