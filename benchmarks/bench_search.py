"""Benchmark `search` on SQLite and PostgreSQL side by side, the tokens retrieval saves, and precision.

    python benchmarks/bench_search.py --build-only        # build the cached corpora (no lock needed)
    flock /tmp/embedded-model.lock python benchmarks/bench_search.py   # measure: 10k, 100k, 1M notes
    python benchmarks/bench_search.py --sizes 10000,100000 --no-postgres

One synthetic travel corpus (benchmarks/search_corpus.py: one note in ten superseded, one in ten
expired, 100k users) is built at each size in both stores (SQLite: executemany through the store's
upsert, 20k rows per transaction, the full-text triggers included; PostgreSQL: COPY as the owner).
Building takes minutes at 1M notes, so the built databases are cached in /tmp/agent-memory-bench
(or $BENCH_CACHE), keyed by the corpus generator and the stores' schemas (a hash of their source),
the size and the user count: a rerun only measures, and a change to any of those builds afresh.
`--build-only` builds the cache and stops, so the measuring run (under the lock) stays short.

Then each store answers `search(message)` for random users that have notes: wall-clock p50 and p95,
and for SQLite also the p95 of the search's own CPU time, which other processes on a busy machine
cannot inflate. PostgreSQL runs on a local server started from Debian's packages
(tests/postgres_server.py, TemporaryPostgres) over the cached cluster.

Last, a user with 1,000 notes: the tokens of the global-memory section per turn when every live
note is injected, against retrieval for the message (the injection path of helpers.hooks); and
precision@5 and recall@5 on the labelled set (data/retrieval/) on each backend.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))  # this checkout's helpers, from anywhere
sys.path.insert(0, str(Path(__file__).parent))
from search_corpus import MESSAGES, make_note, owner

import helpers.store
import helpers.store_postgres
import helpers.store_schema
from helpers.budget import count_tokens
from helpers.hooks import render_prompt
from helpers.policy import Policy
from helpers.retrieval_eval import evaluate, load_labelled_set
from helpers.state import fixed_clock
from helpers.store import _INSERT_NOTE, MemoryStore
from helpers.store_base import note_row

NOW = "2026-06-01T09:00:00Z"
CLOCK = fixed_clock(NOW)
BATCH = 20_000
CACHE = Path(os.environ.get("BENCH_CACHE", "/tmp/agent-memory-bench"))


def load_average() -> str:
    return f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"


def percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49], cuts[94]


def corpus_key(users: int) -> str:
    """Changes whenever the corpus generator, a store's schema or its note rows, or the users do."""
    digest = hashlib.sha256(f"users={users}".encode())
    digest.update(Path(sys.modules["search_corpus"].__file__ or "").read_bytes())
    for part in (
        helpers.store_schema.MIGRATIONS,
        helpers.store._INSERT_NOTE,
        helpers.store_postgres.SCHEMA,
        helpers.store_postgres._INSERT_NOTE,
    ):
        digest.update(repr(part).encode())
    return digest.hexdigest()[:12]


def rows(start: int, stop: int, users: int, note_row=note_row) -> list[tuple]:
    return [
        note_row(*owner(i, users), make_note(random.Random(i), i), None, None)
        for i in range(start, stop)
    ]


def load_sqlite(store: MemoryStore, start: int, stop: int, users: int) -> None:
    for first in range(start, stop, BATCH):
        batch = rows(first, min(stop, first + BATCH), users)
        with store._transaction(write=True) as conn:  # benchmark only: bypasses handles for speed
            conn.executemany(_INSERT_NOTE, batch)


def sqlite_database(size: int, users: int) -> tuple[Path, float]:
    """The cached SQLite store of `size` notes (built if missing), and the seconds building took."""
    path = CACHE / f"search-{corpus_key(users)}-sqlite-{size}.db"
    if path.exists():
        return path, 0.0
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    for leftover in CACHE.glob(partial.name + "*"):
        leftover.unlink()
    started = time.perf_counter()
    with MemoryStore.open(partial, clock=CLOCK) as store:
        load_sqlite(store, 0, size, users)
    Path(f"{partial}.key").rename(f"{path}.key")  # the store's key file goes with it
    partial.rename(path)  # closed and checkpointed: the WAL is empty
    return path, time.perf_counter() - started


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


def postgres_server(users: int):
    """The cached PostgreSQL cluster (one database per size), started."""
    from tests.postgres_server import TemporaryPostgres

    return TemporaryPostgres(folder=CACHE / f"search-{corpus_key(users)}-postgres")


def postgres_database(server, size: int, users: int) -> tuple[str, float]:
    """The database of `size` notes in the cached cluster (built if missing): its app conninfo."""
    import psycopg

    from helpers.store_postgres import create_schema

    name = f"notes_{size}"
    started = time.perf_counter()
    built = server.create_database(name)
    if built:
        try:
            create_schema(server.conninfo(database=name))
            load_postgres(server.conninfo(database=name), 0, size, users)
            with psycopg.connect(server.conninfo(database=name), autocommit=True) as conn:
                conn.execute("CREATE TABLE bench_done ()")  # marks a complete load
        except BaseException:
            with psycopg.connect(server.conninfo(database="postgres"), autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name}")
            raise
    else:
        with psycopg.connect(server.conninfo(database=name)) as conn:
            if conn.execute("SELECT to_regclass('bench_done')").fetchone()[0] is None:
                raise RuntimeError(f"{name} in {server.folder} is incomplete: delete the folder")
    took = time.perf_counter() - started if built else 0.0
    return server.conninfo("memory_app", database=name), took


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
        wall = []
        for i in range(200):
            started = time.perf_counter()
            handle.search(MESSAGES[i % len(MESSAGES)])
            wall.append((time.perf_counter() - started) * 1000)
    live = len(state.global_notes)
    p50, p95 = percentiles(wall)
    print(f"\nA user with {notes:,} notes ({live} live): global-memory tokens per turn")
    print(f"  inject everything : {everything:>7,} tokens ({live} notes)")
    print(
        f"  retrieval         : {statistics.mean(retrieved):>7,.0f} tokens on average "
        f"(min {min(retrieved)}, max {max(retrieved)}; {statistics.mean(shown):.1f} notes, "
        f"{len(MESSAGES)} messages)  -> {everything / statistics.mean(retrieved):.0f}x fewer"
    )
    print(f"  search for this user (SQLite): p50 {p50:.2f} ms, p95 {p95:.2f} ms")


def precision(server) -> None:
    """precision@5 and recall@5 on the labelled set, on each backend."""
    from helpers.store_postgres import PostgresMemoryStore, create_schema

    clock = fixed_clock(load_labelled_set()["now"])
    reports = {"SQLite": evaluate(5, store=MemoryStore.open(clock=clock))}
    if server is not None:
        import psycopg

        name = "labelled"
        if not server.create_database(name):
            with psycopg.connect(server.conninfo(database="postgres"), autocommit=True) as conn:
                conn.execute(f"DROP DATABASE {name}")
            server.create_database(name)
        create_schema(server.conninfo(database=name))
        store = PostgresMemoryStore.open(server.conninfo("memory_app", database=name), clock=clock,
                                         key_file=server.folder / f"{name}.key")
        reports["PostgreSQL"] = evaluate(5, store=store)
    first = next(iter(reports.values()))
    print(
        f"\nLabelled set (data/retrieval/): {len(first.results)} queries, "
        f"{first.pairs} query x note pairs; target precision@5 >= 0.8"
    )
    for name, report in reports.items():
        print(f"  {name:<10}: precision@5 {report.precision:.3f}, recall@5 {report.recall:.3f}")


def forget_cost(path: Path, erasures: int = 5) -> None:
    """Seconds per `forget` on a copy of the largest store: each erasure rewrites the FTS index."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        with MemoryStore.open(copy, clock=CLOCK) as store:
            with store._transaction(write=False) as conn:  # benchmark only: pick notes of different users
                count = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
                owners = [
                    conn.execute(
                        "SELECT tenant_id, user_id, id FROM notes LIMIT 1 OFFSET ?",
                        (count * (i + 1) // (erasures + 1),),
                    ).fetchone()
                    for i in range(erasures)
                ]
            seconds = []
            for tenant, user, note_id in owners:
                started = time.perf_counter()
                store.for_user(tenant, user).forget(note_id)
                seconds.append(time.perf_counter() - started)
    print(
        f"\nforget(note_id) on the {path.stem.rsplit('-', 1)[-1]}-note SQLite store "
        f"({len(seconds)} erasures): median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
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
    parser.add_argument(
        "--build-only", action="store_true", help="build the cached databases, measure nothing"
    )
    parser.add_argument(
        "--forget-only", action="store_true", help="measure only forget on the largest SQLite store"
    )
    args = parser.parse_args()
    sizes = sorted(int(s.replace("_", "")) for s in args.sizes.split(","))

    server = None
    if not args.no_postgres:
        from helpers.store_postgres import PostgresMemoryStore

        server = postgres_server(args.users)
    try:
        databases = {}
        for size in sizes:
            sqlite_path, sqlite_built = sqlite_database(size, args.users)
            pg_conninfo, pg_built = (
                postgres_database(server, size, args.users) if server else (None, 0.0)
            )
            databases[size] = (sqlite_path, pg_conninfo)
            if sqlite_built or pg_built:
                print(
                    f"built {size:,} notes: SQLite {sqlite_built:.0f} s, "
                    f"PostgreSQL {pg_built:.0f} s (cached in {CACHE})",
                    flush=True,
                )
        if args.build_only:
            return
        if args.forget_only:
            return forget_cost(databases[sizes[-1]][0])
        print(f"(load average at the start: {load_average()})")
        print(
            f"search(message) latency, {args.users:,} users, {args.searches:,} searches per cell "
            f"(SQLite FTS5 / PostgreSQL tsvector, both reranked by helpers.retrieval)"
        )
        print(
            f"{'notes':>10} | {'SQLite p50':>10} {'p95':>8} {'p95 cpu':>8} | "
            f"{'PostgreSQL p50':>14} {'p95':>8} | notes/search"
        )
        for size in sizes:
            sqlite_path, pg_conninfo = databases[size]
            with MemoryStore.open(sqlite_path, clock=CLOCK) as sqlite:
                s50, s95, s95_cpu, found = time_searches(
                    sqlite, size, args.users, args.searches, seed=size
                )
            cells = f"{s50:7.2f} ms {s95:5.2f} ms {s95_cpu:5.2f} ms"
            if pg_conninfo is not None:
                with PostgresMemoryStore.open(pg_conninfo, clock=CLOCK,
                                              key_file=CACHE / "search-postgres.key") as pg:
                    p50, p95, _, _ = time_searches(pg, size, args.users, args.searches, seed=size)
                cells += f" | {p50:11.2f} ms {p95:5.2f} ms"
            else:
                cells += f" | {'(skipped)':>23}"
            print(f"{size:>10,} | {cells} | {found:.1f}", flush=True)
        tokens_per_turn()
        precision(server)
        forget_cost(databases[sizes[-1]][0])
        print(f"(load average at the end: {load_average()})")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, line_buffering=True)
    main()
