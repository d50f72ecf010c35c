"""The veto candidates behind the rules: recall they add, false blocks they add, cost per note.

    AGENT_MEMORY_LLM_URL=... python benchmarks/bench_veto.py [--veto translate|classify]
        [--every K] [--limit N] [--workers W] [--out FILE.jsonl] [FILE ...]

Reads gate sets (text, expect/expected) and planted-document sets (note, user_message): by default
data/gate_multilingual_blind.json and data/gate_multilingual.json. A case the rules already refuse
(`helpers.gate.check`, or the full write policy after a document) is not asked: the veto is asked
only about what the rules allowed, as in `WritePolicy.check`. Prints, per set and language:
refused of must-block, refused of must-allow, errors (the policy would fall back), then p50/p95 ms
and tokens per note asked. Each verdict is also appended to --out (JSON lines) as it arrives, so a
stopped run keeps what it measured; `--report FILE.jsonl` prints the table from such a file.

    translate  helpers.veto.TranslateVeto: a note not plainly English is translated, then the
               English rules read the translation (a plainly English note costs nothing)
    classify   helpers.veto.ModelVeto: an ALLOW/REFUSE label over a cached few-shot prefix
"""

from __future__ import annotations

import json
import os
import queue
import statistics
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from helpers import gate
from helpers.paths import data_dir
from helpers.veto import ModelVeto, TranslateVeto, llama_classifier, llama_translator
from helpers.write_policy import DEFAULT_WRITE_POLICY


def cases_of(path: Path) -> list[dict]:
    out = []
    for c in json.loads(path.read_text(encoding="utf-8"))["cases"]:
        expect = c.get("expected") or c.get("expect")
        out.append({"id": c.get("id", ""), "text": c.get("text") or c.get("note") or c.get("proposed_note"),
                    "keywords": c.get("keywords") or [], "block": expect != "allow",
                    "language": c.get("note_language") or c.get("language", "?"),
                    "category": c.get("category", expect), "user_message": c.get("user_message")})
    return out


def rules_allow(case: dict) -> bool:
    if case["user_message"]:
        return DEFAULT_WRITE_POLICY.check(case["text"], case["keywords"], said_by_user=case["user_message"],
                                          latest_message=case["user_message"], from_document=True).allowed
    return gate.check(case["text"], case["keywords"]).allowed


def report(rows: list[dict]) -> str:
    latest = {}
    for r in rows:  # a rerun's answer replaces a stopped run's error for the same note
        if "refuse" in r or (r["set"], r["id"]) not in latest:
            latest[(r["set"], r["id"])] = r
    rows = list(latest.values())
    lines = []
    for name in dict.fromkeys(r["set"] for r in rows):
        mine = [r for r in rows if r["set"] == name]
        by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        for r in mine:
            row = by_lang[r["language"]]
            if r.get("error"):
                row[4] += 1
                continue
            row[0 if r["block"] else 2] += 1
            row[1 if r["block"] else 3] += r["refuse"]
        lines.append(f"\n## {name}: {len(mine)} notes the rules allowed")
        lines.append(f"{'lang':6} {'refused/block':>14} {'refused/allow':>14} {'errors':>6}")
        for lang, (nb, rb, na, ra, er) in sorted(by_lang.items()):
            lines.append(f"{lang:6} {rb:>6}/{nb:<7} {ra:>6}/{na:<7} {er:6d}")
        total = [sum(r[i] for r in by_lang.values()) for i in range(5)]
        lines.append(f"{'ALL':6} {total[1]:>6}/{total[0]:<7} {total[3]:>6}/{total[2]:<7} {total[4]:6d}")
        asked = [r for r in mine if not r.get("error") and r["prompt_tokens"]]
        if asked:
            ms = [r["ms"] for r in asked]
            p95 = statistics.quantiles(ms, n=20)[18] if len(ms) > 1 else ms[0]
            lines.append(
                f"cost per note asked ({len(asked)} asked the model, {len(mine) - len(asked)} not): "
                f"p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms (wall, shared server); "
                f"prompt tokens p50 {statistics.median(r['prompt_tokens'] for r in asked):.0f}, "
                "(all but the note's own line is the cached prefix), "
                f"output tokens p50 {statistics.median(r['output_tokens'] for r in asked):.0f}, "
                f"p95 {sorted(r['output_tokens'] for r in asked)[int(0.95 * (len(asked) - 1))]}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    def opt(name: str, default: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else default

    if "--report" in argv:
        rows = [json.loads(line) for line in Path(opt("--report", "")).read_text().splitlines() if line]
        print(report(rows))
        return 0
    from helpers.llm import EmbeddedLLM, RemoteServer, embedded_llm  # only when measuring
    from helpers.llm.engine import KEY_VARIABLE

    kind, every, limit = opt("--veto", "translate"), int(opt("--every", "1")), int(opt("--limit", "100000"))
    out = Path(opt("--out", f"/tmp/bench_veto_{kind}.jsonl"))
    files = [a for a in argv if a.endswith(".json")] or [
        str(data_dir() / "gate_multilingual_blind.json"), str(data_dir() / "gate_multilingual.json")]
    timeout = float(opt("--timeout", "300"))

    def a_veto(llm):
        if kind == "translate":
            return TranslateVeto(llama_translator(llm, timeout=timeout), gate.check)
        return ModelVeto(llama_classifier(llm, timeout=timeout))

    # One engine per worker: an engine serialises its calls, a shared model server has several slots.
    workers = int(opt("--workers", "2"))
    url = os.environ.get("AGENT_MEMORY_LLM_URL")
    engines = ([EmbeddedLLM(Path(url), server=RemoteServer(url, os.environ.get(KEY_VARIABLE)))
                for _ in range(workers)] if url else [embedded_llm()])
    vetoes = queue.Queue()
    for engine in engines:
        vetoes.put(a_veto(engine))
    done = set()
    if out.exists():  # a rerun skips the notes a stopped run already answered
        done = {(r["set"], r["id"]) for r in map(json.loads, out.read_text().splitlines()) if "refuse" in r}
    work = []
    for name in files:
        allowed = [c for c in cases_of(Path(name)) if rules_allow(c)]
        work += [(Path(name).name, c) for c in allowed[::every][:limit] if (Path(name).name, c["id"]) not in done]
    print(f"{len(work)} notes the rules allowed; results appended to {out}", flush=True)

    def one(item):
        name, case = item
        row = {"set": name, "id": case["id"], "language": case["language"], "block": case["block"],
               "category": case["category"], "text": case["text"]}
        veto = vetoes.get()
        try:
            verdict = veto(case["text"])
        except Exception as error:  # noqa: BLE001 - counted: the policy would fall back to the rules
            return {**row, "error": f"{type(error).__name__}: {error}"[:200]}
        finally:
            vetoes.put(veto)
        return {**row, "refuse": verdict.refuse, "reason": verdict.reason, "ms": verdict.ms,
                "prompt_tokens": verdict.prompt_tokens, "output_tokens": verdict.output_tokens}

    rows = []
    with ThreadPoolExecutor(len(engines)) as pool, out.open("a", encoding="utf-8") as sink:
        for row in pool.map(one, work):
            rows.append(row)
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
            sink.flush()
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
