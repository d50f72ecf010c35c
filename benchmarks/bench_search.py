"""Benchmark `search` on SQLite and PostgreSQL side by side, and the tokens retrieval saves.

    python benchmarks/bench_search.py                     # 10k, 100k, 1M notes over 100k users
    python benchmarks/bench_search.py --sizes 10000,100000 --no-postgres

One synthetic travel corpus (benchmarks/search_corpus.py: one note in ten superseded, one in ten
expired) grows to each size in both stores, loaded in bulk (SQLite: executemany through the store's
upsert, 20k rows per transaction, the full-text triggers included; PostgreSQL: COPY as the owner).
Then each store answers `search(message)` for random users that have notes: wall-clock p50 and p95,
and for SQLite also the p95 of the search's own CPU time, which other processes on a busy machine
cannot inflate.
PostgreSQL runs on a throwaway local server (helpers.store_postgres.TemporaryPostgres).

Last, a user with 1,000 notes: the tokens of the global-memory section per turn when every live
note is injected, against retrieval for the message (the injection path of helpers.hooks).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from search_corpus import MESSAGES, make_note, owner

from helpers.budget import count_tokens
from helpers.hooks import render_prompt
from helpers.policy import Policy
from helpers.state import fixed_clock
from helpers.store import _INSERT_NOTE, MemoryStore, _note_row

NOW = "2026-06-01T09:00:00Z"
CLOCK = fixed_clock(NOW)
BATCH = 20_000


def load_average() -> str:
    return f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"


def percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49], cuts[94]


def rows(start: int, stop: int, users: int, note_row=_note_row) -> list[tuple]:
    return [
        note_row(*owner(i, users), make_note(random.Random(i), i), None, None)
        for i in range(start, stop)
    ]


def load_sqlite(store: MemoryStore, start: int, stop: int, users: int) -> None:
    for first in range(start, stop, BATCH):
        batch = rows(first, min(stop, first + BATCH), users)
        with store._transaction(write=True) as conn:  # benchmark only: bypasses handles for speed
            conn.executemany(_INSERT_NOTE, batch)


def load_postgres(admin_conninfo: str, start: int, stop: int, users: int) -> None:
    import psycopg

    from helpers.store_postgres import _pg_note_row

    columns = (
        "tenant_id, user_id, id, text, keywords, kind, scope, observed_at, source_ref, status, "
        "supersedes, superseded_by, expires_at, sensitivity, confidence, session_id, "
        "superseded_at, observed_utc, expires_utc, text_folded, keywords_folded"
    )
    with psycopg.connect(admin_conninfo) as conn:  # the owner loads: bulk import, not an app path
        for first in range(start, stop, BATCH):
            with conn.cursor() as cur, cur.copy(f"COPY notes ({columns}) FROM STDIN") as copy:
                for row in rows(first, min(stop, first + BATCH), users, _pg_note_row):
                    copy.write_row(row)
            conn.commit()
        conn.execute("ANALYZE notes")
        conn.commit()


def time_searches(
    store, size: int, users: int, searches: int, seed: int
) -> tuple[float, float, float, float]:
    """Wall-clock p50 and p95, this thread's CPU p95 (immune to other processes on a busy machine;
    for SQLite the whole search, for PostgreSQL only the client's part), notes per search."""
    rng = random.Random(seed)
    for _ in range(200):  # warm the caches and the statement cache first
        store.for_user(*owner(rng.randrange(min(size, users)), users)).search(rng.choice(MESSAGES))
    wall, cpu, found = [], [], 0
    for _ in range(searches):
        handle = store.for_user(*owner(rng.randrange(min(size, users)), users))
        message = rng.choice(MESSAGES)
        started, started_cpu = time.perf_counter(), time.thread_time()
        found += len(handle.search(message))
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return (*percentiles(wall), percentiles(cpu)[1], found / searches)


def tokens_per_turn(notes: int = 1_000) -> None:
    with MemoryStore.open(clock=CLOCK) as store:
        handle = store.for_user("bench", "heavy")
        handle.add_notes([make_note(random.Random(i), i) for i in range(notes)])
        state = handle.load_state({"name": "Heavy"}, pinned_now=NOW)
        policy = Policy(k=None)  # inject everything: no top-k
        everything = count_tokens(render_prompt(state, policy=policy).sections["global_memory"])
        retrieved = [
            count_tokens(
                render_prompt(state, policy=policy, memory=handle, query=m).sections[
                    "global_memory"
                ]
            )
            for m in MESSAGES
        ]
        shown = [
            len(render_prompt(state, policy=policy, memory=handle, query=m).injected)
            for m in MESSAGES
        ]
    live = len(state.global_notes)
    print(f"\nA user with {notes:,} notes ({live} live): global-memory tokens per turn")
    print(f"  inject everything : {everything:>7,} tokens ({live} notes)")
    print(
        f"  retrieval         : {statistics.mean(retrieved):>7,.0f} tokens on average "
        f"(min {min(retrieved)}, max {max(retrieved)}; {statistics.mean(shown):.1f} notes, "
        f"{len(MESSAGES)} messages)  -> {everything / statistics.mean(retrieved):.0f}x fewer"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="comma-separated note counts, ascending"
    )
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument(
        "--searches", type=int, default=2_000, help="timed searches per size and backend"
    )
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args()
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(","))

    server = None
    if not args.no_postgres:
        from helpers.store_postgres import PostgresMemoryStore, TemporaryPostgres, create_schema

        server = TemporaryPostgres()
        create_schema(server.conninfo())
    print(
        f"(load average at the start: {load_average()})"
    )
    print(
        f"search(message) latency, {args.users:,} users, {args.searches:,} searches per cell "
        f"(SQLite FTS5 / PostgreSQL tsvector, both reranked by helpers.retrieval)"
    )
    print(
        f"{'notes':>10} | {'SQLite p50':>10} {'p95':>8} {'p95 cpu':>8} {'load':>6} | "
        f"{'PostgreSQL p50':>14} "
        f"{'p95':>8} {'load':>6} | notes/search"
    )
    try:
        with tempfile.TemporaryDirectory() as folder:
            sqlite = MemoryStore.open(Path(folder) / "bench.db", clock=CLOCK)
            pg = None
            loaded = 0
            for size in sizes:
                t0 = time.perf_counter()
                load_sqlite(sqlite, loaded, size, args.users)
                sqlite_load = time.perf_counter() - t0
                s50, s95, s95_cpu, found = time_searches(
                    sqlite, size, args.users, args.searches, seed=size
                )
                cells = f"{s50:7.2f} ms {s95:5.2f} ms {s95_cpu:5.2f} ms {sqlite_load:4.0f} s"
                if server is not None:
                    t0 = time.perf_counter()
                    load_postgres(server.conninfo(), loaded, size, args.users)
                    pg_load = time.perf_counter() - t0
                    pg = pg or PostgresMemoryStore.open(server.conninfo("memory_app"), clock=CLOCK)
                    p50, p95, _, _ = time_searches(pg, size, args.users, args.searches, seed=size)
                    cells += f" | {p50:11.2f} ms {p95:5.2f} ms {pg_load:4.0f} s"
                else:
                    cells += f" | {'(skipped)':>31}"
                print(f"{size:>10,} | {cells} | {found:.1f}", flush=True)
                loaded = size
            sqlite.close()
            if pg is not None:
                pg.close()
    finally:
        if server is not None:
            server.stop()
    tokens_per_turn()
    print(
        f"(load average at the end: {load_average()})"
    )


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, line_buffering=True)
    main()
