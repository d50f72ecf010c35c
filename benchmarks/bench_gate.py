"""Time helpers.gate.check on every corpus case: p50 and p95 per check (target p95 <= 5 ms).

    python benchmarks/bench_gate.py
"""

from __future__ import annotations

import statistics
import time

from helpers.gate import check
from helpers.gate_eval import load_corpus


def main(rounds: int = 3) -> None:
    cases = load_corpus()
    check("warm up the look-alike table", ["x"])
    timings = []
    for _ in range(rounds):
        for case in cases:
            start = time.perf_counter()
            check(case["text"], case["keywords"])
            timings.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(timings, n=100)
    print(f"gate.check over {len(cases)} corpus cases x {rounds}: p50 {cuts[49]:.3f} ms, "
          f"p95 {cuts[94]:.3f} ms, max {max(timings):.3f} ms")


if __name__ == "__main__":
    main()
