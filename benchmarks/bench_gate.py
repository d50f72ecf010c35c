"""Time helpers.gate.check on every corpus case: p50 and p95 per check (target p95 <= 5 ms).

python benchmarks/bench_gate.py
"""

from __future__ import annotations

import os
import statistics
import time

from helpers.gate import check
from helpers.gate_eval import load_corpus


def main(rounds: int = 3) -> None:
    cases = load_corpus()
    check("warm up the look-alike table", ["x"])
    wall, cpu = [], []
    for _ in range(rounds):
        for case in cases:
            start, start_cpu = time.perf_counter(), time.thread_time()
            check(case["text"], case["keywords"])
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.thread_time() - start_cpu) * 1000)
    # CPU time is what the check costs; wall time also counts other processes on a busy machine.
    for name, timings in (("wall", wall), ("cpu", cpu)):
        cuts = statistics.quantiles(timings, n=100)
        print(
            f"gate.check over {len(cases)} corpus cases x {rounds} ({name}): "
            f"p50 {cuts[49]:.3f} ms, p95 {cuts[94]:.3f} ms, max {max(timings):.3f} ms"
        )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
