"""Benchmark the keyless concierge turn: where a turn's time goes, step by step, and capture recall.

    python benchmarks/bench_model.py                  (run it alone: other processes on the cores skew it)
    python benchmarks/bench_model.py --save quiet     (also write benchmarks/results/bench_model_quiet.txt)
    python benchmarks/bench_model.py --limit 10 --models qwen2.5-coder-1.5b qwen2.5-coder-0.5b
    python benchmarks/bench_model.py --shared         (the model server at AGENT_MEMORY_LLM_URL, not our own)

For each model, in one process with its own in-process engine (`EmbeddedLLM`, default slots):
- load time, prompt and generation speed on a plain prompt;
- SESSION, one conversation of searches, saves, questions about memory and general questions, run
  through the concierge as a reader would (capture, route, arguments or prose; answers composed in
  code): the first turn of the process (nothing cached), the median search turn and the median
  turn after it, the share of prompt tokens llama.cpp served from its cache, and per step (capture,
  route, arguments, prose) the prompt, computed (uncached) and generated tokens and the seconds;
- the first turn of a second session (a new state, the same process);
- capture recall over data/capture_recall.json (multi-fact travel messages, each the first turn of a
  fresh session on the example user): stated durable facts that became a note, one-offs saved as
  lasting, answers that refuse or echo the user's message;
- with --repro: the first capture message in two fresh processes, with the cache off, and after
  other prompts (do the texts depend on what ran before?).

Seconds depend on the machine and its load; tokens do not. Each step's cost is also given at the
quiet 2-core speeds (QUIET_PREFILL, QUIET_DECODE tokens/s): computed prompt tokens / prefill speed +
generated tokens / decode speed.
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
from helpers.llm.router import OTHER, RECALL, REMEMBER
from helpers.notebook import COURSE_NOW
from helpers.paths import data_dir
from helpers.state import load_example_state
from helpers.text import repeats_message

SESSION = [  # a reader's conversation: what each message asks for, and the message
    ("search", "Find me a flight to Tokyo next Friday."),  # origin and seat come from memory (SYD, aisle)
    ("save", "By the way, I'm vegetarian."),
    ("search", "Can you suggest a restaurant in Melbourne?"),  # the diet comes from the note just saved
    ("save", "I like hotels with a gym."),
    ("search", "Find me a hotel in Tokyo for next week."),
    ("recall", "What seat do I usually like?"),
    ("search", "Any flights to Osaka on 11 December?"),
    ("other", "What is the capital of Portugal?"),
    ("search", "Find me a vegan restaurant in Sydney."),
]
SECOND_SESSION = "Find me a hotel in Melbourne."  # the first turn of another session, same process
QUIET_PREFILL, QUIET_DECODE = 77.0, 13.0  # tokens/s on 2 quiet cores, 1.5B (notebook 00's recorded run)
STEPS = ("capture", "route", "arguments", "prose", "call or answer")
RESULTS = Path(__file__).resolve().parent / "results"


def fresh_state(session_id: str = "bench"):
    state = load_example_state()
    state.pinned_now, state.session_id = COURSE_NOW, session_id
    return state


def quiet_seconds(computed: int, generated: int) -> float:
    return computed / QUIET_PREFILL + generated / QUIET_DECODE


def run_one(engine: llm.EmbeddedLLM, state, message: str, agent=None) -> dict[str, Any]:
    """One concierge turn: its seconds, route, tool calls, notes, and each completion's counts."""
    model = llm.LocalModel(engine)
    agent = agent or make_concierge(model=model)
    first = len(engine.history)
    started = time.perf_counter()
    try:
        result = asyncio.run(run_turn(agent, state, message))
        answer, error = str(result.final_output), None
        calls = [item.raw_item.name for item in result.new_items if item.type == "tool_call_item"]
    except Exception as exc:  # noqa: BLE001 - a failed turn is a data point, not the end of the bench
        answer, error, calls = "", f"{type(exc).__name__}: {exc}", []
    seconds = time.perf_counter() - started
    steps: list[dict[str, Any]] = [{"step": r.step or "?", "prompt": r.prompt_tokens, "cached": r.cached_tokens,
              "computed": r.computed_prompt_tokens, "generated": r.completion_tokens,
              "wall": r.wall_seconds, "prompt_s": r.prompt_seconds, "gen_s": r.generation_seconds}
             for r in engine.history[first:]]
    routes = getattr(agent.model, "routes", [])
    return {"message": message, "seconds": seconds, "answer": answer, "error": error, "tool_calls": calls,
            "route": routes[-1].kind if routes else None, "steps": steps,
            "quiet_s": sum(quiet_seconds(s["computed"], s["generated"]) for s in steps),
            "notes": [(n.text, n.keywords, n.scope) for n in state.session_notes]}


def share(steps: list[dict[str, Any]]) -> float:
    total = sum(s["prompt"] for s in steps)
    return sum(s["cached"] for s in steps) / total if total else 0.0


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def session(engine: llm.EmbeddedLLM) -> dict[str, Any]:
    """SESSION in one state (one agent, as a notebook's chat), then the first turn of a new session."""
    state = fresh_state("bench-1")
    agent = make_concierge(model=llm.LocalModel(engine))
    turns = []
    for kind, message in SESSION:
        turns.append({**run_one(engine, state, message, agent), "kind": kind})
        print(*turn_lines(turns[-1:]), flush=True)  # progress: a session takes minutes
    second = run_one(engine, fresh_state("bench-2"), SECOND_SESSION)
    later = turns[1:]  # after the process's first turn (which computes every stable prefix once)
    searches = [t for t in later if t["route"] is not None and t["route"] not in (RECALL, REMEMBER, OTHER)]
    return {
        "turns": turns, "second": second,
        "first_s": turns[0]["seconds"], "first_quiet_s": turns[0]["quiet_s"],
        "median_search_s": median([t["seconds"] for t in searches]),
        "median_search_quiet_s": median([t["quiet_s"] for t in searches]),
        "median_s": median([t["seconds"] for t in later]),
        "median_quiet_s": median([t["quiet_s"] for t in later]),
        "share_all": share([s for t in turns for s in t["steps"]]),
        "share_later": share([s for t in later for s in t["steps"]]),
        "routes_right": sum(route_matches(t["kind"], t["route"]) for t in turns),
    }


def route_matches(kind: str, route: str | None) -> bool:
    searched = route is not None and route not in (RECALL, REMEMBER, OTHER)
    return {"search": searched, "save": route == REMEMBER, "recall": route == RECALL,
            "other": route == OTHER}[kind]


def step_table(turns: list[dict[str, Any]]) -> list[str]:
    """Per step, over the turns after the first: medians of tokens and seconds."""
    lines = [f"{'step (turns 2+)':<16}{'n':>4}{'prompt':>8}{'cached':>8}{'computed':>9}{'written':>8}"
             f"{'wall s':>8}{'quiet s':>8}"]
    steps = [s for t in turns[1:] for s in t["steps"]]
    for name in [*STEPS, *sorted({s["step"] for s in steps} - set(STEPS))]:
        mine = [s for s in steps if s["step"] == name]
        if not mine:
            continue
        m = {k: median([s[k] for s in mine]) for k in ("prompt", "cached", "computed", "generated", "wall")}
        quiet = median([quiet_seconds(s["computed"], s["generated"]) for s in mine])
        lines.append(f"{name:<16}{len(mine):>4}{m['prompt']:>8.0f}{m['cached']:>8.0f}{m['computed']:>9.0f}"
                     f"{m['generated']:>8.0f}{m['wall']:>8.1f}{quiet:>8.1f}")
    return lines


def turn_lines(turns: list[dict[str, Any]]) -> list[str]:
    lines = []
    for t in turns:
        steps = ", ".join(f"{s['step']} {s['computed']}+{s['cached']}c/{s['generated']}w" for s in t["steps"])
        lines.append(f"  {t['seconds']:5.1f} s (quiet ~{t['quiet_s']:4.1f} s) {t.get('kind', ''):7} "
                     f"route={t['route']}: {t['message']!r} [{steps}]" + (f" ERROR {t['error']}" if t["error"] else ""))
    return lines


def captured(fact: dict[str, Any], notes: list[tuple[str, list[str], str]]) -> list[str]:
    """The scopes of the notes that carry `fact` (empty: not captured)."""
    terms = [t.lower() for t in fact["any"]]
    return [scope for text, keywords, scope in notes
            if any(t in (text + " " + " ".join(keywords)).lower() for t in terms)]


def capture_recall(engine: llm.EmbeddedLLM, cases: list[dict[str, Any]]) -> dict[str, Any]:
    stated = got = lasting_one_offs = refusals = echoes = errors = 0
    seconds, quiet, misses = [], [], []
    for case in cases:
        turn = run_one(engine, fresh_state(), case["message"])
        seconds.append(turn["seconds"])
        quiet.append(turn["quiet_s"])
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
    return {"recall": got / stated if stated else float("nan"), "stated": stated, "captured": got,
            "one_offs_lasting": lasting_one_offs, "refusals": refusals / n if n else 0,
            "echoes": echoes / n if n else 0, "errors": errors, "turns": n,
            "median_turn_s": median(seconds), "median_quiet_s": median(quiet), "misses": misses}


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


def engine_for(model: str, shared: bool) -> llm.EmbeddedLLM:
    os.environ["AGENT_MEMORY_MODEL"] = model
    if shared:
        return llm.embedded_llm()
    return llm.EmbeddedLLM(llm.resolve_model_file())


def bench(model: str, cases: list[dict[str, Any]], repro: bool, shared: bool) -> dict[str, Any]:
    engine = engine_for(model, shared)
    row: dict[str, Any] = {"load_s": engine.load_seconds}
    prompt = engine.apply_template([{"role": "user", "content": "Describe a good travel checklist. " * 20}])
    record = engine.complete(prompt, max_tokens=64, cache_prompt=False)
    row["prompt_tok_s"] = record.prompt_tokens / max(record.prompt_seconds, 1e-9)
    row["gen_tok_s"] = record.completion_tokens / max(record.generation_seconds, 1e-9)
    row["session"] = session(engine)
    row["capture"] = capture_recall(engine, cases)
    if repro:
        row["repro"] = reproducibility(engine, model, cases)
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
        lines.append(f"{label:<58}" + "".join(f"{v:>24}" for v in values))

    s = lambda r: r["session"]  # noqa: E731
    line("model", lambda r: r["name"])
    line("load (s)", lambda r: f"{r['load_s']:.1f}")
    line("prompt / generation, plain prompt (tokens/s)", lambda r: f"{r['prompt_tok_s']:.0f} / {r['gen_tok_s']:.1f}")
    line("first turn of the process, nothing cached (s) [quiet est.]",
         lambda r: f"{s(r)['first_s']:.1f} [{s(r)['first_quiet_s']:.1f}]")
    line("first turn of a second session (s) [quiet est.]",
         lambda r: f"{s(r)['second']['seconds']:.1f} [{s(r)['second']['quiet_s']:.1f}]")
    line("median search turn, turns 2+ (s) [quiet est.]",
         lambda r: f"{s(r)['median_search_s']:.1f} [{s(r)['median_search_quiet_s']:.1f}]")
    line("median turn, turns 2+ (s) [quiet est.]", lambda r: f"{s(r)['median_s']:.1f} [{s(r)['median_quiet_s']:.1f}]")
    line("cache share of prompt tokens, all turns / turns 2+",
         lambda r: f"{s(r)['share_all']:.0%} / {s(r)['share_later']:.0%}")
    line("routes as expected (session)", lambda r: f"{s(r)['routes_right']}/{len(s(r)['turns'])}")
    line("capture recall (durable facts)",
         lambda r: f"{r['capture']['recall']:.0%} ({r['capture']['captured']}/{r['capture']['stated']})")
    line("one-offs saved as lasting", lambda r: str(r["capture"]["one_offs_lasting"]))
    line("refusals / echoes (share of turns)",
         lambda r: f"{r['capture']['refusals']:.0%} / {r['capture']['echoes']:.0%}")
    line("median multi-fact turn (s) [quiet est.], errors",
         lambda r: f"{r['capture']['median_turn_s']:.1f} [{r['capture']['median_quiet_s']:.1f}], "
                   f"{r['capture']['errors']}")
    if any("repro" in r for r in rows.values()):
        for key in ("two fresh processes agree", "fresh process == after the bench", "cache off == cache on",
                    "reverse order == forward"):
            line(f"repro: {key}", lambda r, k=key: str(r["repro"][k]))
    for model, row in rows.items():
        lines += ["", f"{model}: per step, medians", *step_table(row["session"]["turns"]),
                  f"{model}: turns (computed+cached prompt tokens / written tokens per completion)",
                  *turn_lines(row["session"]["turns"] + [row["session"]["second"]]),
                  f"capture misses: {row['capture']['misses']}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", nargs="*", default=["qwen2.5-coder-1.5b"])
    parser.add_argument("--limit", type=int, default=None, help="capture messages to run (default: all)")
    parser.add_argument("--start", type=int, default=0,
                        help="skip the first capture messages (e.g. 14: those read while the capture question "
                             "was written, so the recall is held-out)")
    parser.add_argument("--repro", action="store_true", help="also check reproducibility (two more model loads)")
    parser.add_argument("--shared", action="store_true",
                        help="use the model server at AGENT_MEMORY_LLM_URL instead of an engine of our own")
    parser.add_argument("--save", default=None, metavar="NAME", help="write benchmarks/results/bench_model_NAME.txt")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", default=None, help="also write the raw results here")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.limit or 3)
    started, begun = time.perf_counter(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    cases = json.loads((data_dir() / "capture_recall.json").read_text())["messages"][args.start:]
    cases = cases[:args.limit]
    rows: dict[str, dict[str, Any]] = {}
    for model in args.models:
        try:
            repro = args.repro and not rows  # the first model only: it takes two more loads
            rows[model] = {"name": model.removeprefix("qwen2.5-coder-"), **bench(model, cases, repro, args.shared)}
        except llm.ModelFileError as error:
            print(f"{model}: skipped ({error})")
            continue
        print(f"{model}: done", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parent).stdout.strip() or "?"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    header = (f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}\n"
              f"# commit: {commit}; started {begun} on {os.cpu_count()} cores, load average {load:.1f} at the end;"
              f" {time.perf_counter() - started:.0f} s\n"
              f"# quiet est. = computed prompt tokens / {QUIET_PREFILL:g} + written tokens / {QUIET_DECODE:g} "
              f"(tokens/s on 2 quiet cores)\n"
              f"{len(cases)} capture messages (from message {args.start + 1})\n")
    report = header + table(rows)
    print("\n" + report)
    if args.save:
        (RESULTS / f"bench_model_{args.save}.txt").write_text(report + "\n")


if __name__ == "__main__":
    main()
