"""Run the concierge request set (data/concierge_requests.json) and check every expectation.

    export AGENT_MEMORY_LLM_URL=http://127.0.0.1:<port>     # the embedded model's server, or a key
    .venv/bin/python benchmarks/concierge_requests.py [--limit N] [--reverse-policy] [--save NAME]

Each request runs as a reader's turn does: `helpers.concierge.make_concierge` and `run_turn` on a
fresh state built from the request's fixture, today pinned to the set's date, on whatever model
`helpers.llm.get_model` picks. The searches it made are read from the run's items (tool calls and
their outputs), and each expectation is checked by code:

- search choice: the catalogue searches called are exactly the expected one (or none);
- arguments: a value expected from memory ("remembered preference") or from the message is in a
  call of that search; "not" and "absent" must hold for every call;
- inventions: the answer names a place, airline, flight, hotel, restaurant or price that no tool
  result of the turn, the message or the memory gave. Names are the catalogue's own (its cities,
  airport codes, areas, airlines, hotel and restaurant names), anything shaped like a catalogue
  name (capitalised words before a word that ends catalogue hotel or restaurant names: "Shinjuku
  Hotel"), flight numbers and prices, read generally, not from a list of expected strings;
- raw tool messages: a sentence of the catalogue's error message for the arguments proposed or
  sent ("Unknown airline 'Air France': use '' for any, ..."), or of the memory tool's reply
  ("Not saved: ..."), shown verbatim in the answer.

`--reverse-policy` also runs every search request with `Policy.precedence` reversed (global >
session > message) and prints the arguments that changed. Output: a table per run, and with
`--save NAME` the text under benchmarks/results/concierge_requests_NAME.txt and every turn as JSON
next to it. Timings depend on the machine and its load: say which when quoting them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import re
import statistics
import sys
import time
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent.parent))  # this checkout's helpers, from anywhere

from helpers.catalogue import BadArgument, city_for, default_catalogue
from helpers.searches import TRAVEL_TOOLS, find_flights, find_hotels, find_restaurants
from helpers.paths import data_dir
from helpers.policy import DEFAULT_POLICY, PRECEDENCE, Policy
from helpers.state import MemoryNote, MemoryState, load_example_state, parse_time
from helpers.tools import MEMORY_TOOL

REQUESTS = data_dir() / "concierge_requests.json"
RESULTS = Path(__file__).parent / "results"
SEARCHES = {t.name for t in TRAVEL_TOOLS}
PLACE_ARGUMENTS = {"origin", "destination", "city"}


# ---- the set -----------------------------------------------------------------------------------

def load_requests(path: Path = REQUESTS) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def state_for(data: dict[str, Any], fixture: str) -> MemoryState:
    """A fresh state for a named fixture: an example state ("base") or another fixture ("like"),
    plus its own profile and notes, with today pinned to the set's date."""
    spec = data["fixtures"][fixture]
    if "base" in spec:
        state = load_example_state(spec["base"])
    elif "like" in spec:
        state = state_for(data, spec["like"])
    else:
        state = MemoryState()
    state.profile.update(spec.get("profile", {}))
    for scope in ("global", "session"):
        for raw in spec.get(f"{scope}_notes", []):
            getattr(state, f"{scope}_notes").append(MemoryNote.from_dict({**raw, "scope": scope}))
    state.pinned_now = data["today"]
    return state


def memory_text(state: MemoryState) -> str:
    notes = [n.text for n in state.live_notes(state.clock)]
    return "\n".join(notes + [f"{k}: {v}" for k, v in state.profile.items()] + state.recent_history)


# ---- reading a run ------------------------------------------------------------------------------

def calls_of(result: Any) -> list[dict[str, Any]]:
    """The tool calls of a run, in order: the model's arguments, its output as text, and, when the
    tool returns a structured outcome (attributes `arguments`, `sources`, `text`, `rows`), what was
    really searched and where each value came from; else the model's arguments are what went out."""
    calls: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    for item in getattr(result, "new_items", []):
        raw = getattr(item, "raw_item", None)
        if item.type == "tool_call_item":
            try:
                arguments = json.loads(getattr(raw, "arguments", "") or "{}")
            except json.JSONDecodeError:
                arguments = {"_unparsed": getattr(raw, "arguments", "")}
            call = {"name": getattr(raw, "name", "?"), "proposed": arguments, "arguments": arguments,
                    "sources": {}, "output": "", "text": ""}
            calls.append(call)
            by_id[getattr(raw, "call_id", "") or str(len(calls))] = call
        elif item.type == "tool_call_output_item":
            call_id = raw.get("call_id", "") if isinstance(raw, dict) else getattr(raw, "call_id", "")
            target = by_id.get(call_id) or (calls[-1] if calls else None)
            if target is not None:
                output = getattr(item, "output", "")
                target["output"] = target["text"] = str(output)
                if isinstance(getattr(output, "arguments", None), dict):  # what was searched
                    target["arguments"] = dict(output.arguments)
                    target["sources"] = dict(getattr(output, "sources", None) or {})
                    target["text"] = str(getattr(output, "text", output))  # the catalogue's own lines
                    rows = getattr(output, "rows", ())
                    target["output"] += "\n" + json.dumps(list(rows), ensure_ascii=False, default=str)
    return calls


# ---- the checks ---------------------------------------------------------------------------------

def _fold(value: Any) -> str:
    return " ".join(str(value).split()).casefold()


def _city(value: Any) -> str | None:
    with contextlib.suppress(BadArgument):
        return city_for(str(value), default_catalogue())
    return None


def same_value(name: str, expected: Any, got: Any) -> bool:
    """`got` is the expected value: one of a list of alternatives, the same set of list items,
    the same number, or the same catalogue city ("SYD" is "Sydney")."""
    if isinstance(got, list):
        return isinstance(expected, list) and {_fold(e) for e in expected} == {_fold(g) for g in got}
    if isinstance(expected, list):
        return any(same_value(name, e, got) for e in expected)
    if got is None:
        return False
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        with contextlib.suppress(TypeError, ValueError):
            return float(got) == float(expected)
        return False
    if _fold(expected) == _fold(got):
        return True
    return name in PLACE_ARGUMENTS and _city(got) is not None and _city(got) == _city(expected)


def check_argument(name: str, want: dict[str, Any], calls: list[dict[str, Any]]) -> tuple[bool, Any]:
    """One argument expectation against the calls of the expected search; (met, what was sent)."""
    sent = [c["arguments"].get(name) for c in calls]
    if want.get("absent"):
        return bool(calls) and all(_proposed(v) is False for v in sent), sent
    if "not" in want:
        return bool(calls) and not any(same_value(name, want["not"], v) for v in sent), sent
    return any(same_value(name, want["value"], v) for v in sent), sent


def _proposed(value: Any) -> bool:
    return value not in (None, [], 0) and _fold(value) not in ("", "any", "none")


def catalogue_names() -> dict[str, str]:
    """Every name the catalogue holds, folded -> shown: cities, airport codes, areas, airlines,
    hotels and restaurants."""
    cat = default_catalogue()
    names = [a["city"] for a in cat.airports] + [a["code"] for a in cat.airports]
    names += [r["area"] for r in cat.hotels + cat.restaurants if r["area"]]
    names += [f["airline"] for f in cat.flights]
    names += [r["name"] for r in cat.hotels + cat.restaurants]
    return {_fold(n): n for n in names}


def _name_kinds() -> str:
    """The words that end the catalogue's hotel and restaurant names ("Suites", "Table")."""
    cat = default_catalogue()
    return "|".join(sorted({re.escape(r["name"].split()[-1]) for r in cat.hotels + cat.restaurants}))


_FUNCTION_WORDS = {"the", "a", "an", "your", "our", "this", "that", "any", "no", "one", "each", "i"}
_FLIGHT = re.compile(r"\b[A-Z][A-Z0-9]\d{2,4}\b")
_PRICE = re.compile(r"(?i)(?:\b(?:AUD|A\$|US\$|\$)\s?(\d[\d,]*(?:\s?[-–]\s?\d[\d,]*)?)"
                    r"|\b(\d[\d,]*(?:\s?[-–]\s?\d[\d,]*)?)\s?(?:AUD|dollars|\$))")


def invented(answer: str, evidence: str, names: dict[str, str], kinds: str) -> list[str]:
    """What the answer names that the evidence (tool results, message, memory) does not."""
    said = _fold(evidence)
    found = set()
    for folded, shown in names.items():
        if re.search(rf"(?<![\w-]){re.escape(folded)}(?![\w-])", _fold(answer)) and folded not in said:
            if len(folded) > 3 or shown.isupper():  # a code counts written in capitals only
                if not shown.isupper() or re.search(rf"\b{re.escape(shown)}\b", answer):
                    found.add(shown)
    shaped = re.finditer(rf"((?:[A-Z][\w'’-]*\s+){{1,3}})({kinds})\b", answer)
    for m in shaped:
        words = [w for w in m.group(1).split() if w.casefold() not in _FUNCTION_WORDS]
        name = " ".join(words + [m.group(2)])
        if words and _fold(name) not in said:
            found.add(name)
    found |= {f for f in _FLIGHT.findall(answer) if f.casefold() not in said}
    numbers = set(re.findall(r"\d+", evidence.replace(",", "")))
    for m in _PRICE.finditer(answer):
        for number in re.findall(r"\d+", (m.group(1) or m.group(2) or "").replace(",", "")):
            if number not in numbers:
                found.add(f"{number} (price)")
    return sorted(found)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.:!?])\s+|\n", text) if len(s.strip()) >= 25]


def catalogue_error(tool: str, arguments: dict[str, Any], today: date) -> str:
    """The catalogue's own error message for a search with these arguments ("Unknown airline
    'Air France': use '' for any, ..."), or "" when the search runs."""
    a = arguments
    search = {
        "search_flights": lambda: find_flights(a["origin"], a["destination"], a.get("date", ""),
                                               a.get("seat", "any"), a.get("cabin", "economy"),
                                               a.get("airline", ""), today=today),
        "search_hotels": lambda: find_hotels(a["city"], a.get("max_price", 0), a.get("features")),
        "search_restaurants": lambda: find_restaurants(a["city"], a.get("diet", "any"), a.get("cuisine", "")),
    }.get(tool)
    try:
        if search is not None:
            search()
    except BadArgument as error:
        return str(error)
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""  # an argument missing or of the wrong type: the SDK's own error, not the catalogue's
    return ""


def raw_messages(answer: str, calls: list[dict[str, Any]], today: date) -> list[str]:
    """Sentences of a tool's raw message shown verbatim in the answer: the catalogue's error
    message for the arguments the model proposed or the search sent, and the memory tool's reply.
    A search's results (rows, or "No hotels in Tokyo under 250 AUD") are facts an answer may use,
    and so is the text of a note the memory tool saved ("I'll remember that: ...")."""
    shown, folded = [], _fold(answer)
    for call in calls:
        if call["name"] == MEMORY_TOOL:  # a saved note's text is a quote of what was kept, not the tool's words
            head, _, _ = call["output"].partition("): ")
            texts = [head + ")"] if head.startswith(("Saved (", "Already saved (")) else [call["output"]]
        elif call["name"] in SEARCHES:
            texts = [catalogue_error(call["name"], args, today) for args in (call["proposed"], call["arguments"])]
        else:
            continue
        shown += [s for t in texts for s in _sentences(t) if _fold(s) in folded]
    return list(dict.fromkeys(shown))


# ---- running ------------------------------------------------------------------------------------

async def run_request(data: dict[str, Any], request: dict[str, Any], policy: Policy,
                      names: dict[str, str], kinds: str, model: Any = None) -> dict[str, Any]:
    """One request as a reader's turn (`model`: None for the course's, a test double in tests)."""
    from helpers.concierge import make_concierge, run_turn  # late: importing it may load a model

    state = state_for(data, request["fixture"])
    agent = make_concierge(policy=policy, model=model)
    started = time.perf_counter()
    try:
        result = await run_turn(agent, state, request["message"])
        answer, error, calls = str(result.final_output or ""), None, calls_of(result)
    except Exception as exc:  # noqa: BLE001 - a failed turn is a data point, not the end of the run
        answer, error, calls = "", f"{type(exc).__name__}: {exc}", []
    turn = {"id": request["id"], "order": list(policy.precedence), "seconds": round(time.perf_counter() - started, 2),
            "error": error, "calls": calls, "answer": answer}
    return check(data, request, turn, names, kinds)


def check(data: dict[str, Any], request: dict[str, Any], turn: dict[str, Any], names: dict[str, str],
          kinds: str) -> dict[str, Any]:
    """Every expectation of a request against one finished turn (its calls and answer): the same
    verdicts whether the turn just ran or was read back from a saved run."""
    calls = [{"proposed": c["arguments"], "sources": {}, "text": c["output"], **c} for c in turn["calls"]]
    searches = [c for c in calls if c["name"] in SEARCHES]
    expected = request["search"]
    wanted_calls = [c for c in searches if c["name"] == expected]
    arguments = []
    for name, want in request["arguments"].items():
        met, sent = check_argument(name, want, wanted_calls)
        said = [c["sources"][name] for c in wanted_calls if name in c["sources"]]
        arguments.append({"name": name, "from": want["from"], "met": met, "sent": sent,
                          "source": said[0] if said else None})
    reversed_order = tuple(turn["order"]) != PRECEDENCE  # the request's "reversed" values must go out
    for name, value in (request.get("reversed", {}) if reversed_order else {}).items():
        met, sent = check_argument(name, {"value": value}, wanted_calls)
        arguments.append({"name": name, "from": "reversed", "met": met, "sent": sent, "source": None})
    memory = memory_text(state_for(data, request["fixture"]))
    evidence = "\n".join([request["message"], memory, *request.get("knowledge", [])]  # what a right answer says
                          + [c["output"] + "\n" + c["text"] for c in calls])
    answer = turn["answer"]
    return {
        **turn, "kind": request["kind"], "calls": calls,
        "search_expected": expected, "searches": [c["name"] for c in searches],
        "search_ok": turn["error"] is None and sorted({c["name"] for c in searches}) == ([expected] if expected else []),
        "arguments": arguments,
        "invented": invented(answer, evidence, names, kinds),
        "raw": raw_messages(answer, calls, parse_time(data["today"]).date()),
        "mentions_ok": all(w.casefold() in answer.casefold() for w in request.get("answer_mentions", [])),
        "mentions_expected": bool(request.get("answer_mentions")),
    }


def rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f} %)" if total else "n/a"


def attributed(args: list[dict[str, Any]]) -> str:
    """Remembered values whose reported source is a note or the profile (n/a: no sources reported)."""
    reported = [a for a in args if a.get("source") is not None]
    if not reported:
        return "n/a (the concierge reports no sources)"
    return rate(sum(a["met"] and a["source"] not in ("message", "model") for a in args), len(args))


def table(rows: list[dict[str, Any]], title: str) -> str:
    args = [a for r in rows for a in r["arguments"]]
    by_from = {f: [a for a in args if a["from"] == f] for f in ("memory", "message", "neutral", "any", "reversed")}
    seconds = [r["seconds"] for r in rows]
    search_rows = [r for r in rows if r["search_expected"]]
    lines = [
        f"== {title}: {len(rows)} requests ==",
        f"search-choice accuracy                  {rate(sum(r['search_ok'] for r in rows), len(rows))}",
        f"  with a search expected                {rate(sum(r['search_ok'] for r in search_rows), len(search_rows))}",
        f"  with no search expected               "
        f"{rate(sum(r['search_ok'] for r in rows if not r['search_expected']), len(rows) - len(search_rows))}",
        f"remembered preference in the arguments  {rate(sum(a['met'] for a in by_from['memory']), len(by_from['memory']))}",
        f"  and attributed to a note or profile   {attributed(by_from['memory'])}",
        f"stated value in the arguments           {rate(sum(a['met'] for a in by_from['message']), len(by_from['message']))}",
        f"nothing invented where nothing applies  {rate(sum(a['met'] for a in by_from['neutral']), len(by_from['neutral']))}",
        f"reversed-policy value in the arguments  {rate(sum(a['met'] for a in by_from['reversed']), len(by_from['reversed']))}",
        f"answers naming what no result gave      {sum(bool(r['invented']) for r in rows)}/{len(rows)}",
        f"answers showing a raw tool message      {sum(bool(r['raw']) for r in rows)}/{len(rows)}",
        f"memory answers with the remembered value "
        f"{rate(sum(r['mentions_ok'] for r in rows if r['mentions_expected']), sum(r['mentions_expected'] for r in rows))}",
        f"turns that raised                       {sum(r['error'] is not None for r in rows)}",
        f"seconds per turn: median {statistics.median(seconds):.1f}, mean {statistics.mean(seconds):.1f}, "
        f"max {max(seconds):.1f}, total {sum(seconds):.0f}" if seconds else "seconds per turn: n/a",
        "",
        f"{'kind':<18} {'n':>3} {'search ok':>9} {'memory args':>11} {'invented':>8} {'raw':>4}",
    ]
    for kind in sorted({r["kind"] for r in rows}):
        part = [r for r in rows if r["kind"] == kind]
        mem = [a for r in part for a in r["arguments"] if a["from"] == "memory"]
        lines.append(f"{kind:<18} {len(part):>3} {sum(r['search_ok'] for r in part):>9} "
                     f"{sum(a['met'] for a in mem):>5}/{len(mem):<5} {sum(bool(r['invented']) for r in part):>8} "
                     f"{sum(bool(r['raw']) for r in part):>4}")
    lines.append("")
    for r in rows:
        misses = [f"{a['name']}={a['sent']}" for a in r["arguments"] if not a["met"]]
        flags = ([f"search {r['searches'] or 'none'} (expected {r['search_expected'] or 'none'})"]
                 if not r["search_ok"] else []) + ([f"missed {', '.join(misses)}"] if misses else [])
        flags += [f"invented {r['invented']}"] if r["invented"] else []
        flags += [f"raw {r['raw'][0][:60]!r}"] if r["raw"] else []
        flags += [f"error {r['error'][:80]}"] if r["error"] else []
        lines.append(f"{r['id']:<32} {r['seconds']:>5.1f}s  " + ("; ".join(flags) or "ok"))
    return "\n".join(lines)


def changes(normal: list[dict[str, Any]], reversed_: list[dict[str, Any]]) -> str:
    """The arguments the reversed policy changed, request by request."""
    lines = ["== arguments changed by the reversed policy (global > session > message) =="]
    changed = 0
    for a, b in zip(normal, reversed_, strict=True):
        first = {c["name"]: c["arguments"] for c in a["calls"] if c["name"] in SEARCHES}
        second = {c["name"]: c["arguments"] for c in b["calls"] if c["name"] in SEARCHES}
        for tool in sorted(set(first) | set(second)):
            x, y = first.get(tool, {}), second.get(tool, {})
            diff = {k: (x.get(k), y.get(k)) for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)}
            if diff:
                changed += 1
                lines.append(f"{a['id']:<32} {tool}: " + ", ".join(f"{k} {u!r} -> {v!r}" for k, (u, v) in diff.items()))
    lines.append(f"{changed} of {len(normal)} search requests sent other arguments")
    return "\n".join(lines)


def report(rows: list[dict[str, Any]], say: Any) -> dict[str, Any]:
    """The tables of finished turns: the default order, the reversed one, and what changed."""
    normal = [r for r in rows if tuple(r["order"]) == PRECEDENCE]
    reversed_ = [r for r in rows if tuple(r["order"]) != PRECEDENCE]
    say(table(normal, "policy order " + " > ".join(PRECEDENCE)))
    if reversed_:
        say(table(reversed_, "policy order " + " > ".join(reversed(PRECEDENCE))))
        by_id = {r["id"]: r for r in normal}
        pairs = [(by_id[r["id"]], r) for r in reversed_ if r["id"] in by_id]
        say(changes([x for x, _ in pairs], [y for _, y in pairs]))
    return {"normal": normal, "reversed": reversed_}


# What each model call of a turn is, read from the end of its prompt (the engine's summary).
STEPS = (("capture question", "assistant\n[]<|im_end|>"), ("router", "assistant\nother<|im_end|>"),
         ("agent call (search arguments or prose)", "</session_memory>"))
QUIET_PREFILL, QUIET_GENERATION = 77.0, 13.0  # tokens/s of the 1.5B model on a quiet 2-core machine


def step_tokens(paths: list[Path]) -> str:
    """Per step of a turn, from --reuse-replies files: completions, uncached prompt tokens
    (prefilled), cached ones, generated ones, and the seconds they would take on a quiet machine."""
    table: dict[str, list[tuple[int, int, int]]] = {}
    for path in paths:
        for entry in json.loads(path.read_text())["requests"]:
            if entry["endpoint"] != "/v1/completions":
                continue
            timings = [c["timings"] for c in entry["replies"][0] if isinstance(c, dict) and c.get("timings")]
            if not timings:
                continue
            t = timings[-1]
            step = next((name for name, tail in STEPS if tail in entry["request"]), "other")
            table.setdefault(step, []).append((t["prompt_n"], t["cache_n"], t["predicted_n"]))
    lines = [f"{'step':<40} {'calls':>5} {'prefilled':>9} {'cached':>7} {'generated':>9} {'quiet s':>7}  (medians per call)"]
    for step, rows in sorted(table.items()):
        prefilled, cached, generated = (statistics.median(r[i] for r in rows) for i in range(3))
        quiet = prefilled / QUIET_PREFILL + generated / QUIET_GENERATION
        lines.append(f"{step:<40} {len(rows):>5} {prefilled:>9.0f} {cached:>7.0f} {generated:>9.0f} {quiet:>7.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="run only the first N requests")
    parser.add_argument("--spread", type=int, default=None,
                        help="run N requests spread evenly over the set (every kind, on a slow machine)")
    parser.add_argument("--ids", default=None, help="run only these request ids (comma-separated)")
    parser.add_argument("--reverse-policy", action="store_true",
                        help="also run each search request with the policy order reversed, right after it")
    parser.add_argument("--save", default=None,
                        help="write benchmarks/results/concierge_requests_NAME.{txt,json} (and .partial.jsonl "
                             "as turns finish)")
    parser.add_argument("--scripted", action="store_true",
                        help="no model: a scripted model proposes each search request's expected search with no "
                             "arguments, so the message and memory fill all of them in code (the filler, repair "
                             "and composed answers on their own); requests with no search are left out")
    parser.add_argument("--reuse-replies", type=Path, default=None,
                        help="answer a model request already made (in this run or one saved in this file) from "
                             "the file, ask the model the others (benchmarks/reuse_replies.py); with "
                             "--reverse-policy the reversed turns then cost no model time")
    parser.add_argument("--step-tokens", nargs="+", type=Path, default=None,
                        help="print the tokens of each step of a turn from --reuse-replies files, and stop")
    parser.add_argument("--report", nargs="+", type=Path, default=None,
                        help="print the tables from saved .partial.jsonl files instead of running")
    args = parser.parse_args(argv)
    out = io.StringIO()

    def say(text: str) -> None:
        print(text, flush=True)
        out.write(text + "\n")

    def save(record: dict[str, Any]) -> None:
        if args.save:
            (RESULTS / f"concierge_requests_{args.save}.txt").write_text(out.getvalue(), encoding="utf-8")
            (RESULTS / f"concierge_requests_{args.save}.json").write_text(
                json.dumps(record, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")

    if args.step_tokens:
        print(step_tokens(args.step_tokens))
        return 0
    if args.report:  # the verdicts are recomputed from each saved turn's calls and answer
        data, names, kinds = load_requests(), catalogue_names(), _name_kinds()
        by_id = {r["id"]: r for r in data["requests"]}
        turns = [json.loads(line) for path in args.report for line in path.read_text().splitlines() if line]
        say(f"read back from {', '.join(p.name for p in args.report)}: {len(turns)} turns")
        save(report([check(data, by_id[t["id"]], t, names, kinds) for t in turns], say))
        return 0
    if args.reuse_replies:  # read when the engine is first made, below
        import os

        os.environ["AGENT_MEMORY_MODEL_FACTORY"] = "benchmarks.reuse_replies:reusing_engine"
        os.environ["AGENT_MEMORY_REPLIES"] = str(args.reuse_replies.resolve())
    from agents import set_tracing_disabled

    from helpers.llm import active_backend

    set_tracing_disabled(True)
    data = load_requests()
    requests = data["requests"][: args.limit]
    if args.ids:
        by_id = {r["id"]: r for r in requests}
        requests = [by_id[i] for i in args.ids.split(",") if i in by_id]  # in the order given
    if args.spread:
        step = len(requests) / min(args.spread, len(requests))
        requests = [requests[int(i * step)] for i in range(min(args.spread, len(requests)))]
    if args.scripted:
        from tests.scripted_model import ScriptedModel

        requests = [r for r in requests if r["search"]]
        say("backend: none (--scripted): each search proposed with no arguments by a scripted model")
    else:
        backend = active_backend()
        say(f"backend: {backend.kind} ({backend.model_name}); {backend.reason}")
    reverse = replace(DEFAULT_POLICY, precedence=tuple(reversed(PRECEDENCE)))
    jobs = [(r, DEFAULT_POLICY) for r in requests]
    if args.reverse_policy:  # each reversed run right after its normal one: a stopped run has pairs
        jobs = [j for r in requests for j in [(r, DEFAULT_POLICY)] + ([(r, reverse)] if r["search"] else [])]
    names, kinds = catalogue_names(), _name_kinds()
    partial = RESULTS / f"concierge_requests_{args.save}.partial.jsonl" if args.save else None
    rows = []
    for i, (request, policy) in enumerate(jobs, 1):
        model = ScriptedModel([{"tool": request["search"], "arguments": {}}]) if args.scripted else None
        row = asyncio.run(run_request(data, request, policy, names, kinds, model=model))
        rows.append(row)
        print(f"  [{i}/{len(jobs)}] {request['id']} ({' > '.join(policy.precedence)}): {row['seconds']:.1f}s",
              file=sys.stderr, flush=True)
        if partial:  # a run stopped early still leaves every finished turn
            with partial.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    if args.reuse_replies:
        from benchmarks.reuse_replies import counts

        reused, asked = counts()
        say(f"model completions: {asked} asked, {reused} answered from {args.reuse_replies.name} "
            "(byte-identical requests: the reversed order lives in code, not in the prompt)")
    save(report(rows, say))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
