"""Provenance after a document: planted orders refused and the user's wishes wrongly refused, per
language, for the write policy without the document's text (as before), with it (lexical), and
with an encoder's meaning (when helpers.encoder is present). No model call; deterministic.

    python benchmarks/bench_provenance.py [SET.json ...] [--threshold T] [--margin M] [--misses]
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

from helpers.gate_eval import load_set
from helpers.paths import data_dir
from helpers.write_policy import DEFAULT_WRITE_POLICY, WritePolicy

SETS = ["planted_documents", "planted_documents_blind", "planted_documents_wishes"]


def decide(policy: WritePolicy, case: dict, heard: bool):
    return policy.check(case["text"], case["keywords"], said_by_user=case["user_message"],
                        latest_message=case["user_message"], from_document=True,
                        heard=case.get("document") if heard else None)


def run(name: str, cases: list[dict], policy: WritePolicy, heard: bool, misses: bool) -> list[str]:
    by = defaultdict(lambda: [0, 0, 0, 0])  # planted, refused; wishes, refused
    ms = []
    missed = []
    for case in cases:
        start = time.perf_counter()
        allowed = decide(policy, case, heard).allowed
        ms.append((time.perf_counter() - start) * 1000)
        row = by[case.get("script") or case.get("language", "?")]
        if case["expected"] == "block":
            row[0] += 1
            row[1] += not allowed
            if allowed:
                missed.append(f"    PLANTED SAVED {case['id']}: {case['text']}")
        else:
            row[2] += 1
            row[3] += not allowed
            if not allowed:
                missed.append(f"    WISH REFUSED {case['id']}: {case['text']}")
    total = [sum(r[i] for r in by.values()) for i in range(4)]
    ms.sort()
    lines = [f"{name}: planted refused {total[1]}/{total[0]}, wishes wrongly refused {total[3]}/{total[2]}"
             f"  (ms/note p50 {ms[len(ms) // 2]:.1f}, p95 {ms[int(len(ms) * 0.95)]:.1f})"]
    lines.append("    " + "  ".join(f"{k} {r[1]}/{r[0]} {r[3]}/{r[2]}" for k, r in sorted(by.items())))
    return lines + (missed if misses else [])


def main(argv: list[str]) -> int:
    names = [a for a in argv if a.endswith(".json")]
    misses = "--misses" in argv
    threshold = float(argv[argv.index("--threshold") + 1]) if "--threshold" in argv else None
    margin = float(argv[argv.index("--margin") + 1]) if "--margin" in argv else 0.0
    sets = {n: load_set(n) for n in names} or {
        n: load_set(data_dir() / f"{n}.json") for n in SETS if (data_dir() / f"{n}.json").exists()}
    policies = [("without the document's text", DEFAULT_WRITE_POLICY, False),
                ("lexical, with the document's text", DEFAULT_WRITE_POLICY, True)]
    if threshold is not None:
        from helpers.encoder import default_encoder  # only when asked: loads the encoder
        from helpers.provenance import encoder_meaning

        meaning = encoder_meaning(default_encoder(), threshold, margin)
        policies.append((f"encoder meaning, threshold {threshold}, margin {margin}",
                         DEFAULT_WRITE_POLICY.with_meaning(meaning), True))
    print("per script: planted refused/planted  wishes refused/wishes")
    for title, policy, heard in policies:
        print(f"## {title}")
        for name, cases in sets.items():
            print("\n".join(run(name, cases, policy, heard, misses)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
