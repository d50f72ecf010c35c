"""Measure the write gate on its labelled corpus: recall and false blocks per category.

    python -m helpers.gate_eval            # the table
    python -m helpers.gate_eval --misses   # and every case the gate got wrong

Below the corpus table come the held-out sets, data/gate_heldout*.json, one section each (the
last section, data/gate_heldout_dev.json, is a development set, not held out): cases
written without reading the corpus, each measured once before any rule was changed for it. Once
rules are added for what a set found, its section reads high and is no longer a measurement:
the honest estimate is the newest set, written after the last rule change (each file's "about"
says when it was written and what it first measured).

The corpus is data/gate_corpus.json (hand-written, the rule each case must hit) plus
data/gate_corpus_generated.json (benchmarks/build_gate_corpus.py, fixed seed). A case expects a
rule id or "allow"; recall is the share of must-block cases blocked (by any rule), false blocks
the share of must-allow cases blocked.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

from helpers.directive import reading
from helpers.detectors.instructions import unwrapped
from helpers.gate import check, content_of
from helpers.paths import data_dir


@dataclass
class CategoryScore:
    category: str
    cases: int = 0
    should_block: int = 0
    blocked: int = 0  # of should_block
    same_rule: int = 0  # of blocked: the rule the case names
    should_allow: int = 0
    false_blocks: int = 0
    misses: list[dict] = field(default_factory=list)

    @property
    def recall(self) -> float | None:
        return self.blocked / self.should_block if self.should_block else None

    @property
    def false_block_rate(self) -> float | None:
        return self.false_blocks / self.should_allow if self.should_allow else None


def load_corpus() -> list[dict]:
    """Both corpus files as one list of cases with text, keywords, expected and category."""
    cases = []
    for case in json.loads((data_dir() / "gate_corpus.json").read_text(encoding="utf-8"))["cases"]:
        expected = "allow" if case["allowed"] else case["rule"]
        cases.append(
            {
                "text": case["text"],
                "keywords": case.get("keywords") or [],
                "expected": expected,
                "category": "handwritten_allow"
                if expected == "allow"
                else f"handwritten_{expected}",
            }
        )
    generated = data_dir() / "gate_corpus_generated.json"
    cases += json.loads(generated.read_text(encoding="utf-8"))["cases"]
    return cases


def heldout_sets() -> dict[str, list[dict]]:
    """Each held-out file (data/gate_heldout*.json) by name: cases as in the generated corpus.

    data/gate_heldout_dev.json is not one: the directive reading was developed on it (see
    development_set)."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))["cases"]
            for path in sorted(data_dir().glob("gate_heldout*.json")) if path.stem != DEV_SET}


DEV_SET = "gate_heldout_dev"


def development_set() -> list[dict]:
    """data/gate_heldout_dev.json: look-alikes the directive reading was developed on (its "about"
    gives the first measure of each batch); empty when the file is absent."""
    path = data_dir() / f"{DEV_SET}.json"
    return json.loads(path.read_text(encoding="utf-8"))["cases"] if path.exists() else []


def score(cases: list[dict]) -> dict[str, CategoryScore]:
    scores: dict[str, CategoryScore] = {}
    for case in cases:
        s = scores.setdefault(case["category"], CategoryScore(case["category"]))
        decision = check(case["text"], case["keywords"])
        s.cases += 1
        if case["expected"] == "allow":
            s.should_allow += 1
            if not decision.allowed:
                s.false_blocks += 1
                s.misses.append({**case, "got": decision.rule})
        else:
            s.should_block += 1
            if not decision.allowed:
                s.blocked += 1
                s.same_rule += decision.rule == case["expected"]
            else:
                s.misses.append({**case, "got": "allow"})
    return dict(sorted(scores.items()))


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{value * 100:5.1f}"


def report(scores: dict[str, CategoryScore]) -> str:
    lines = [
        f"{'category':28} {'cases':>5} {'recall%':>8} {'same rule%':>10} {'false blocks%':>13}"
    ]
    for s in scores.values():
        same = s.same_rule / s.blocked if s.blocked else None
        lines.append(
            f"{s.category:28} {s.cases:5d} {_pct(s.recall):>8} {_pct(same):>10} "
            f"{_pct(s.false_block_rate):>13}"
        )
    block = [s for s in scores.values() if s.should_block]
    allow = [s for s in scores.values() if s.should_allow]
    total_block = sum(s.should_block for s in block)
    total_allow = sum(s.should_allow for s in allow)
    lines.append(
        f"{'ALL':28} {sum(s.cases for s in scores.values()):5d} "
        f"{_pct(sum(s.blocked for s in block) / total_block):>8} {'':>10} "
        f"{_pct(sum(s.false_blocks for s in allow) / total_allow):>13}"
    )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    sections = {"corpus (written beside the rules)": load_corpus()}
    sections.update({f"held out: {name}": cases for name, cases in heldout_sets().items()})
    if dev := development_set():
        sections[f"development (not held out): {DEV_SET}"] = dev
    for title, cases in sections.items():
        scores = score(cases)
        print(f"\n## {title}\n{report(scores)}")
        if "--misses" in argv:
            for s in scores.values():
                for miss in s.misses:
                    signals = reading(unwrapped(content_of(miss["text"], miss["keywords"])))
                    print(
                        f"[{s.category}] expected {miss['expected']}, got {miss['got']}: "
                        f"{miss['text']!r} {miss['keywords'] or ''} (directive signals: {signals})"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
