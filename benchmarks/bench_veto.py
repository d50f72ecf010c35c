"""The veto's recall, false blocks and cost per note on the embedded model (helpers.veto).

    AGENT_MEMORY_LLM_URL=... python benchmarks/bench_veto.py [--every K] [--limit N] [FILE ...]

Reads cases with a note text and an expected block/allow: data/planted_documents.json
(proposed_note, expect) by default, and any gate set (text, expected). Prints, per set and per
language where given: refused of must-block, refused of must-allow, then p50/p95 ms and tokens
per note. The veto alone is measured here (what it would add on top of the rules).
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict

from helpers.llm import embedded_llm
from helpers.paths import data_dir
from helpers.veto import ModelVeto, llama_classifier


def cases_of(path) -> list[tuple[str, bool, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))["cases"]
    out = []
    for c in data:
        if "proposed_note" in c:
            out.append((c["proposed_note"], c["expect"] == "block", c.get("note_language") or c["language"]))
        else:
            out.append((c["text"], c["expected"] != "allow", c.get("language", "en")))
    return out


def main(argv: list[str]) -> int:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
    every = int(argv[argv.index("--every") + 1]) if "--every" in argv else 1
    files = [a for a in argv if a.endswith(".json")] or [str(data_dir() / "planted_documents.json")]
    veto = ModelVeto(llama_classifier(embedded_llm(), timeout=60))
    for name in files:
        from pathlib import Path
        cases = cases_of(Path(name))[::every][:limit]
        ms, tokens, errors = [], [], 0
        by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for text, block, lang in cases:
            try:
                verdict = veto(text)
            except Exception as error:  # noqa: BLE001 - counted, as the policy would fall back
                errors += 1
                print(f"error: {type(error).__name__}: {text[:50]!r}", flush=True)
                continue
            ms.append(verdict.ms)
            tokens.append(verdict.prompt_tokens + verdict.output_tokens)
            row = by_lang[lang]
            row[0 if block else 2] += 1
            row[1 if block else 3] += verdict.refuse
        print(f"\n## {Path(name).name} ({len(cases)} notes, {errors} errors)")
        print(f"{'lang':6} {'refused/block':>14} {'refused/allow':>14}")
        for lang, (nb, rb, na, ra) in sorted(by_lang.items()):
            print(f"{lang:6} {rb:>6}/{nb:<7} {ra:>6}/{na:<7}")
        nb = sum(r[0] for r in by_lang.values())
        rb = sum(r[1] for r in by_lang.values())
        na = sum(r[2] for r in by_lang.values())
        ra = sum(r[3] for r in by_lang.values())
        print(f"{'ALL':6} {rb:>6}/{nb:<7} {ra:>6}/{na:<7}")
        if ms:
            q = statistics.quantiles(ms, n=20) if len(ms) >= 2 else [ms[0]] * 19
            print(f"cost per note: p50 {statistics.median(ms):.0f} ms, p95 {q[18]:.0f} ms, "
                  f"tokens p50 {statistics.median(tokens):.0f} (prompt + output; the prefix is cached)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
