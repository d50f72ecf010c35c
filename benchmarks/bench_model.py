"""Benchmark the embedded models side by side: speed, prompt cache, capture recall, refusals and echoes.

    python benchmarks/bench_model.py                 (run it alone: other processes on the cores skew it)
    python benchmarks/bench_model.py --models qwen2.5-coder-1.5b --limit 10
    python benchmarks/bench_model.py --start 14 --no-repro   (held-out capture messages only)

For each model (1.5B, and 0.5B when its packages are installed):
- load time, prompt and generation speed;
- a short session in catalogue cities (each turn a search filled from memory, or a save: one tool
  call) with llama.cpp's prompt cache on, and its first CACHE_OFF_TURNS turns with the cache off
  (each of those calls computes the whole prompt): median turn seconds, and the share of each
  call's prompt tokens served from the cache;
- capture recall over data/capture_recall.json (multi-fact travel messages, each run as the first
  turn of a fresh session on the example user): stated durable facts that became a note, one-offs
  saved as lasting, answers that refuse or echo the user's message;
- reproducibility (first model): the first capture message again in two fresh processes, with
  the cache off, and after other prompts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from helpers import llm
from helpers.concierge import make_concierge, run_turn
from helpers.notebook import COURSE_NOW
from helpers.paths import data_dir
from helpers.state import load_example_state
from helpers.text import repeats_message

SESSION = [  # one tool call per turn is the expected shape: a search filled from memory, or a save
    "Find me a flight to Tokyo next Friday.",  # origin and seat come from memory (SYD, aisle)
    "By the way, I'm vegetarian.",  # a save
    "Can you suggest a restaurant in Melbourne?",  # the diet comes from the note just saved
    "I like hotels with a gym.",  # a save
]
CACHE_OFF_TURNS = 2  # every cache-off call prefills the whole prompt (~40 s on 2 cores): a sample

def fresh_state():
    state = load_example_state()
    state.pinned_now = COURSE_NOW
    return state


def run_one(engine: llm.EmbeddedLLM, state, message: str) -> dict[str, Any]:
    agent = make_concierge(model=llm.LocalModel(engine))
    first = len(engine.history)
    started = time.perf_counter()
    try:
        result = asyncio.run(run_turn(agent, state, message))
        answer, error = str(result.final_output), None
        calls = sum(1 for item in result.new_items if item.type == "tool_call_item")
    except Exception as exc:  # noqa: BLE001 - a failed turn is a data point, not the end of the bench
        answer, error, calls = "", f"{type(exc).__name__}: {exc}", 0
    records = engine.history[first:]
    return {"seconds": time.perf_counter() - started, "answer": answer, "error": error, "tool_calls": calls,
            "model_calls": [(r.prompt_tokens, r.cached_tokens) for r in records],
            "notes": [(n.text, n.keywords, n.scope) for n in state.session_notes]}


def share(cached: int, total: int) -> float:
    return cached / total if total else 0.0


def session_latency(engine: llm.EmbeddedLLM, cache: bool) -> dict[str, Any]:
    engine.cache_prompt = cache
    state = fresh_state()
    turns = [run_one(engine, state, message) for message in (SESSION if cache else SESSION[:CACHE_OFF_TURNS])]
    engine.cache_prompt = True
    one_call = [t["seconds"] for t in turns if t["tool_calls"] == 1] or [t["seconds"] for t in turns]
    # The first turn of a process computes the whole stable prefix (tools, role, policy) once.
    warm = [t["seconds"] for t in turns[1:] if t["tool_calls"] == 1] or one_call
    second_calls = [c for t in turns for c in t["model_calls"][1:]]
    later_first = [t["model_calls"][0] for t in turns[1:] if t["model_calls"]]
    every = [c for t in turns for c in t["model_calls"]]
    return {
        "median_turn_s": statistics.median(one_call),
        "median_warm_turn_s": statistics.median(warm),
        "one_call_turns": f"{len(one_call)}/{len(turns)}",
        "turn_s": [round(t["seconds"], 1) for t in turns],
        "calls": [t["tool_calls"] for t in turns],
        "second_call_share": share(sum(c for _, c in second_calls), sum(p for p, _ in second_calls)),
        "later_turn_share": share(sum(c for _, c in later_first), sum(p for p, _ in later_first)),
        "all_share": share(sum(c for _, c in every), sum(p for p, _ in every)),
        "per_call": [[f"{c}/{p}" for p, c in t["model_calls"]] for t in turns],
    }


def captured(fact: dict[str, Any], notes: list[tuple[str, list[str], str]]) -> list[str]:
    """The scopes of the notes that carry `fact` (empty: not captured)."""
    terms = [t.lower() for t in fact["any"]]
    return [scope for text, keywords, scope in notes
            if any(t in (text + " " + " ".join(keywords)).lower() for t in terms)]


def capture_recall(engine: llm.EmbeddedLLM, cases: list[dict[str, Any]]) -> dict[str, Any]:
    stated = got = lasting_one_offs = refusals = echoes = errors = 0
    seconds, misses = [], []
    for case in cases:
        turn = run_one(engine, fresh_state(), case["message"])
        seconds.append(turn["seconds"])
        for fact in case["durable"]:
            stated += 1
            if captured(fact, turn["notes"]):
                got += 1
            else:
                misses.append(fact["fact"])
        lasting_one_offs += sum("global" in captured(f, turn["notes"]) for f in case["one_offs"])
        refusals += bool(llm.REFUSAL.search(turn["answer"]))
        echoes += repeats_message(turn["answer"], case["message"])
        errors += turn["error"] is not None
    n = len(cases)
    return {"recall": got / stated, "stated": stated, "captured": got, "one_offs_lasting": lasting_one_offs,
            "refusals": refusals / n, "echoes": echoes / n, "errors": errors, "turns": n,
            "median_turn_s": statistics.median(seconds), "misses": misses}


def outputs_of(engine: llm.EmbeddedLLM, messages: list[str]) -> list[list[Any]]:
    return [[t["answer"], t["notes"]] for t in (run_one(engine, fresh_state(), m) for m in messages)]


def child(model: str, n: int) -> None:
    """Run in a fresh process: the first n capture messages, outputs as JSON on stdout."""
    os.environ["AGENT_MEMORY_MODEL"] = model
    cases = json.loads((data_dir() / "capture_recall.json").read_text())["messages"][:n]
    engine = llm.EmbeddedLLM(llm.resolve_model_file())
    print(json.dumps(outputs_of(engine, [c["message"] for c in cases])))


def reproducibility(engine: llm.EmbeddedLLM, model: str, cases: list[dict[str, Any]], n: int = 1) -> dict:
    messages = [c["message"] for c in cases[:n]]
    here = outputs_of(engine, messages)  # after the whole bench ran in this process (cache on)
    engine.cache_prompt = False
    uncached = outputs_of(engine, messages)
    engine.cache_prompt = True
    reverse = outputs_of(engine, messages[::-1])[::-1]  # other prompts before each one
    fresh = [json.loads(subprocess.run(
        [sys.executable, __file__, "--child", model, "--limit", str(n)], capture_output=True, text=True,
        check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}).stdout)
        for _ in range(2)]
    norm = lambda outs: json.loads(json.dumps(outs))  # noqa: E731 (tuples -> lists)
    return {"two fresh processes agree": fresh[0] == fresh[1],
            "fresh process == after the bench": norm(here) == fresh[0],
            "cache off == cache on": norm(uncached) == norm(here),
            "reverse order == forward": norm(reverse) == norm(here)}


def bench(model: str, cases: list[dict[str, Any]], repro: bool) -> dict[str, Any]:
    os.environ["AGENT_MEMORY_MODEL"] = model
    path = llm.resolve_model_file()
    engine = llm.EmbeddedLLM(path)
    row: dict[str, Any] = {"load_s": engine.load_seconds}
    prompt = engine.apply_template([{"role": "user", "content": "Describe a good travel checklist. " * 20}])
    record = engine.complete(prompt, max_tokens=64, cache_prompt=False)
    row["prompt_tok_s"] = record.prompt_tokens / record.prompt_seconds
    row["gen_tok_s"] = record.completion_tokens / record.generation_seconds
    row["cache_off"] = session_latency(engine, cache=False)
    row["cache_on"] = session_latency(engine, cache=True)
    row["capture"] = capture_recall(engine, cases)
    if repro:
        row["repro"] = reproducibility(engine, model, cases)
    del engine
    return row


def table(rows: dict[str, dict[str, Any]]) -> str:
    lines = []

    def line(label: str, fmt) -> None:
        values = []
        for row in rows.values():
            try:
                values.append(fmt(row))
            except (KeyError, ZeroDivisionError):
                values.append("-")
        lines.append(f"{label:<52}" + "".join(f"{v:>22}" for v in values))

    line("model", lambda r: r["name"])
    line("load (s)", lambda r: f"{r['load_s']:.1f}")
    line("prompt / generation (tokens/s)", lambda r: f"{r['prompt_tok_s']:.0f} / {r['gen_tok_s']:.1f}")
    line(f"median turn, one tool call, cache OFF (s) [{CACHE_OFF_TURNS} turns]",
         lambda r: f"{r['cache_off']['median_turn_s']:.1f}")
    line("median turn, one tool call, cache ON (s)", lambda r: f"{r['cache_on']['median_turn_s']:.1f}")
    line("  same, turns 2+ (stable prefix computed) (s)", lambda r: f"{r['cache_on']['median_warm_turn_s']:.1f}")
    line("  turns with exactly one tool call (on)", lambda r: r["cache_on"]["one_call_turns"])
    line("  turns off -> on (s)", lambda r: f"{r['cache_off']['turn_s']} -> {r['cache_on']['turn_s']}")
    line("  tool calls per turn (on)", lambda r: str(r["cache_on"]["calls"]))
    line("cached share, 2nd+ call of a turn", lambda r: f"{r['cache_on']['second_call_share']:.0%}")
    line("cached share, 1st call of later turns", lambda r: f"{r['cache_on']['later_turn_share']:.0%}")
    line("cached share, all prompt tokens (on / off)",
         lambda r: f"{r['cache_on']['all_share']:.0%} / {r['cache_off']['all_share']:.0%}")
    line("capture recall (durable facts)",
         lambda r: f"{r['capture']['recall']:.0%} ({r['capture']['captured']}/{r['capture']['stated']})")
    line("one-offs saved as lasting", lambda r: str(r["capture"]["one_offs_lasting"]))
    line("refusals / echoes (share of turns)",
         lambda r: f"{r['capture']['refusals']:.0%} / {r['capture']['echoes']:.0%}")
    line("median multi-fact turn (s), errors",
         lambda r: f"{r['capture']['median_turn_s']:.1f}, {r['capture']['errors']}")
    for key in ("two fresh processes agree", "fresh process == after the bench", "cache off == cache on",
                "reverse order == forward"):
        line(f"repro: {key}", lambda r, k=key: str(r["repro"][k]))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", nargs="*", default=["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"])
    parser.add_argument("--limit", type=int, default=None, help="capture messages to run (default: all)")
    parser.add_argument("--start", type=int, default=0,
                        help="skip the first capture messages (e.g. 14: those read while the capture question "
                             "was written, so the recall is held-out)")
    parser.add_argument("--no-repro", action="store_true")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", default=None, help="also write the raw results here")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.limit or 3)
    cases = json.loads((data_dir() / "capture_recall.json").read_text())["messages"][args.start:]
    cases = cases[:args.limit]
    rows = {}
    for model in args.models:
        try:
            repro = not args.no_repro and not rows  # the first model only: it takes two more loads
            rows[model] = {"name": model.removeprefix("qwen2.5-coder-"), **bench(model, cases, repro)}
        except llm.ModelFileError as error:
            print(f"{model}: skipped ({error})")
            continue
        print(f"{model}: done; misses: {rows[model]['capture']['misses']}", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    print(f"\n{len(cases)} capture messages (from message {args.start + 1})\n" + table(rows))
    for model, row in rows.items():
        for mode in ("cache_off", "cache_on"):
            print(f"{model} {mode}: cached/prompt tokens per call, per turn: {row[mode]['per_call']}")


if __name__ == "__main__":
    main()
