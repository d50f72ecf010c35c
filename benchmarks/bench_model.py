"""Benchmark the embedded model: file check, load time, prompt and generation speed, one agent turn, peak memory.

    python benchmarks/bench_model.py          (run it alone: other processes on the cores skew it)
"""

from __future__ import annotations

import asyncio
import resource
import time

from helpers import llm
from helpers.concierge import make_concierge, run_turn
from helpers.notebook import COURSE_NOW
from helpers.state import load_example_state


def main() -> None:
    started = time.perf_counter()
    path = llm.resolve_model_file()
    verify_s = time.perf_counter() - started

    engine = llm.EmbeddedLLM(path)
    print(f"model file check (sha256 of {path.stat().st_size / 1e9:.2f} GB): {verify_s:.1f} s")
    print(f"model load: {engine.load_seconds:.1f} s")

    prompt = engine.apply_template([{"role": "user", "content": "Describe a good travel checklist. " * 20}])
    record = engine.complete(prompt, max_tokens=128)
    print(f"prompt: {record.prompt_tokens} tokens at {record.prompt_tokens / record.prompt_seconds:.1f} tokens/s")
    print(f"generation: {record.completion_tokens} tokens at "
          f"{record.completion_tokens / record.generation_seconds:.1f} tokens/s")

    state = load_example_state()
    state.pinned_now = COURSE_NOW
    agent = make_concierge(model=llm.LocalModel(engine))
    turn_started = time.perf_counter()
    result = asyncio.run(run_turn(agent, state, "I'm vegetarian and I always want an aisle seat. Book me a flight to Paris."))
    turn_s = time.perf_counter() - turn_started
    calls = sum(1 for item in result.new_items if item.type == "tool_call_item")
    print(f"one agent turn: {turn_s:.1f} s, {calls} tool call(s), {len(engine.history) - 1} model calls, "
          f"{result.context_wrapper.usage.input_tokens} input tokens")

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {peak_mb:,.0f} MB")


if __name__ == "__main__":
    main()
