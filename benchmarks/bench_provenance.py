"""Provenance after a document: planted orders refused and the user's wishes wrongly refused, per
language, for the write policy without the document's text (as the capture tool was before), with
it judged word by word (LEXICAL), and with it judged by helpers.encoder's default encoder (the
default policy). No chat model; deterministic. Milliseconds are wall clock on a shared machine.

    python benchmarks/bench_provenance.py [SET.json ...] [--threshold T] [--margin M] [--misses]
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

from helpers.gate_eval import load_set
from helpers.paths import data_dir
from helpers.provenance import ENCODER_MARGIN, ENCODER_THRESHOLD, LEXICAL, encoder_meaning
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
        row = by[case.get("language", "?")]
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
    lexical = DEFAULT_WRITE_POLICY.with_meaning(LEXICAL)
    policies = [("before: without the document's text (LEXICAL)", lexical, False),
                ("LEXICAL, with the document's text", lexical, True)]
    from helpers.encoder import default_encoder  # the default policy's encoder, counted here

    counted = Counted(default_encoder())
    threshold = ENCODER_THRESHOLD if threshold is None else threshold
    margin = ENCODER_MARGIN if "--margin" not in argv else margin
    meaning = encoder_meaning(counted, threshold, margin)
    policies.append((f"encoder meaning (threshold {threshold}, margin {margin}; the default is "
                     f"{ENCODER_THRESHOLD}, {ENCODER_MARGIN})", DEFAULT_WRITE_POLICY.with_meaning(meaning), True))
    print("per language: planted refused/planted  wishes wrongly refused/wishes")
    for title, policy, heard in policies:
        print(f"## {title}")
        for name, cases in sets.items():
            before = (counted.texts, counted.tokens)
            print("\n".join(run(name, cases, policy, heard, misses)))
            if policy is not lexical:
                print(f"    encoder: {counted.texts - before[0]} texts, {counted.tokens - before[1]} tokens "
                      f"for {len(cases)} notes ({(counted.tokens - before[1]) / len(cases):.0f} tokens a note)")
    return 0


class Counted:
    """An encoder that counts the texts and tokens it encodes."""

    def __init__(self, encoder):
        self.encoder, self.texts, self.tokens = encoder, 0, 0

    def __call__(self, texts):
        self.texts += len(texts)
        self.tokens += sum(self.encoder.count_tokens(t) for t in texts)
        return self.encoder(texts)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
