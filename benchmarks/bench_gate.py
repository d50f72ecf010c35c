"""Time helpers.gate.check on every corpus case: p50 and p95 per check (target p95 <= 5 ms), and
the instruction rule alone on adversarial notes at the size limit (target <= 5 ms each).

python benchmarks/bench_gate.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))  # this checkout's helpers and tests
from helpers.gate import check
from helpers.detectors.instructions import _instruction_injection
from helpers.gate import content_of
from helpers.gate_eval import load_corpus
from tests.capture.test_write_policy_time import adversarial


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
    # The instruction rule on adversarial notes: 300 characters of clause marks, cue words, runs.
    worst = []
    for text, keywords in adversarial():
        content = content_of(text, keywords)
        best = float("inf")
        for _ in range(rounds):
            start_cpu = time.thread_time()
            _instruction_injection(content)
            best = min(best, (time.thread_time() - start_cpu) * 1000)
        worst.append((best, text[:24]))
    worst.sort(reverse=True)
    print(f"instruction_injection on {len(worst)} adversarial notes (cpu, best of {rounds}): "
          f"median {statistics.median(w for w, _ in worst):.3f} ms, max {worst[0][0]:.3f} ms on {worst[0][1]!r}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
