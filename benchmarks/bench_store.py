"""Benchmark helpers.store: read latency of one user's active notes, and write throughput.

    python benchmarks/bench_store.py                      # 10k, 100k and 1M notes over 100k users
    python benchmarks/bench_store.py --sizes 10000,100000

For each size a fresh store file is bulk-loaded (executemany, 10k rows per transaction), one in
ten notes superseded and one in ten expired, so reads must skip them. Then it times:
- read: `active_notes()` for random users that have notes (p50, p95);
- write: `add_notes` of 10 notes per transaction, the path a real session takes;
- open: `MemoryStore.open`, which runs SQLite's quick_check on the whole file.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from helpers.state import MemoryNote, fixed_clock
from helpers.store import _INSERT_NOTE, MemoryStore
from helpers.store_base import note_row

CLOCK = fixed_clock("2026-06-01T09:00:00Z")
BATCH = 10_000


def make_note(i: int) -> MemoryNote:
    status, expires = "active", None
    if i % 10 == 3:
        status = "superseded"
    elif i % 10 == 7:
        expires = "2026-01-01"  # already expired at CLOCK
    return MemoryNote(text=f"note {i}: prefers hotels near transit, budget {i % 400} AUD",
                      observed_at=f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}", keywords=["hotel", "budget"],
                      status=status, expires_at=expires, source_ref=f"session:{i}#turn1")


def owner(i: int, users: int) -> tuple[str, str]:
    user = i % users
    return f"tenant{user % 10}", f"user{user}"


def bulk_load(store: MemoryStore, size: int, users: int) -> tuple[float, float]:
    """Notes per second, loaded in big transactions through the store's own upsert:
    overall (with building the notes in Python) and in SQLite alone."""
    started, in_sql = time.perf_counter(), 0.0
    for start in range(0, size, BATCH):
        rows = [note_row(*owner(i, users), make_note(i), None, None)
                for i in range(start, min(start + BATCH, size))]
        t0 = time.perf_counter()
        with store._transaction(write=True) as conn:  # benchmark only: bypasses handles for speed
            conn.executemany(_INSERT_NOTE, rows)
        in_sql += time.perf_counter() - t0
    return size / (time.perf_counter() - started), size / in_sql


def percentile(samples: list[float], p: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


def run(size: int, users: int, reads: int, writes: int, rng: random.Random) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        with MemoryStore.open(path, clock=CLOCK) as store:
            load_rate, sql_rate = bulk_load(store, size, users)
        started = time.perf_counter()
        store = MemoryStore.open(path, clock=CLOCK)
        open_s = time.perf_counter() - started
        with store:
            with_notes = min(size, users)
            latencies, returned = [], 0
            for _ in range(reads):
                handle = store.for_user(*owner(rng.randrange(with_notes), users))
                t0 = time.perf_counter()
                notes = handle.active_notes()
                latencies.append((time.perf_counter() - t0) * 1000)
                returned += len(notes)
            t0 = time.perf_counter()
            for k in range(writes):
                handle = store.for_user(*owner(rng.randrange(users), users))
                handle.add_notes([make_note(size + 10 * k + j) for j in range(10)])
            write_rate = 10 * writes / (time.perf_counter() - t0)
        mb = path.stat().st_size / 1e6 if path.exists() else 0.0
    print(f"{size:>9,} notes | read p50 {percentile(latencies, 50):6.3f} ms  p95 {percentile(latencies, 95):6.3f} ms"
          f" ({returned / reads:4.1f} notes/read) | bulk load {load_rate:7,.0f} notes/s ({sql_rate:7,.0f} in SQL)"
          f" | add_notes {write_rate:7,.0f} notes/s | open {open_s:5.2f} s | file {mb:6.1f} MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated note counts")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--reads", type=int, default=2_000, help="timed reads per size")
    parser.add_argument("--writes", type=int, default=300, help="timed add_notes transactions per size")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"users: {args.users:,}; read = one user's active notes; write = add_notes of 10 notes per transaction")
    for size in (int(s.replace("_", "")) for s in args.sizes.split(",")):
        run(size, args.users, args.reads, args.writes, rng)


if __name__ == "__main__":
    main()
