"""Byte scan of `forget` while another connection reads (run from the repository root):

    python benchmarks/scan_erasure.py

Per case: how long forget took, its checkpoint report (completed, attempts, WAL frames, frames
copied back) and which of the store's files (database, -wal, -shm) still hold the erased text.
Last, a session that had loaded the note ends after the erasure: the text must stay gone.
"""

import sqlite3
import tempfile
import threading
import time
from pathlib import Path

from helpers.state import MemoryNote, fixed_clock
from helpers.store import MemoryStore

SECRET = "Wants a quiet room at the Xqzorb Lodge, the hidden SECRET garden wing"


def holding(folder: Path) -> str:
    return ", ".join(sorted(p.name for p in folder.iterdir() if b"Xqzorb" in p.read_bytes())) or "none"


def run(case: str, release_after: float | None) -> None:
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    store.erase_wait = 1.0
    user = store.for_user("acme", "maya")
    user.add_notes([MemoryNote(SECRET, "2026-05-01"), MemoryNote("Prefers aisle seats", "2026-05-01")])
    reader = sqlite3.connect(folder / "m.db", isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM notes").fetchone()  # the reader's snapshot holds the text
    if release_after is not None:
        threading.Timer(release_after, lambda: reader.execute("COMMIT")).start()
    started = time.perf_counter()
    erased = user.forget(matching="xqzorb")
    c = erased.checkpoint
    print(f"{case}: erased {int(erased)} in {time.perf_counter() - started:.2f} s; checkpoint completed="
          f"{c.completed} attempts={c.attempts} frames={c.wal_frames} copied={c.copied_frames}; "
          f"text in: {holding(folder)}")
    if release_after is None:
        reader.execute("COMMIT")
        print(f"  after the reader ends: {holding(folder)}")
        user.add_notes([MemoryNote("Likes trains", "2026-05-02")])
        print(f"  after one later write: {holding(folder)}")
    time.sleep(0.4)
    print(f"  store and reader connection still open: {holding(folder)}")
    reader.close()
    store.close()


def stale_session() -> None:
    """A session loads the note, another handle forgets it, the session then commits its merge."""
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    user = store.for_user("acme", "maya")
    user.add_notes([MemoryNote(SECRET, "2026-05-01")])
    state = user.load_state()
    again = MemoryNote(SECRET + "!", "2026-06-01")
    user.stage_session_notes("s1", [again])
    erased = store.for_user("acme", "maya").forget(matching="xqzorb")
    [held] = state.global_notes  # the session folded it into the copy it captured
    held.status, held.superseded_by, again.supersedes = "superseded", again.id, held.id
    user.stage_session_notes("s1", [again])
    user.commit_consolidation("s1", [held, again])
    store.close()
    print(f"stale session: erased {int(erased)}; after it committed, text in: {holding(folder)}")


if __name__ == "__main__":
    run("reader ends its read 0.3 s into forget", 0.3)
    run("reader holds its read past forget's 1 s wait", None)
    stale_session()
