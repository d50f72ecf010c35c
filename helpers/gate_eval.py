"""Stage 2 — capture (notebook 02): measure the write defence, recall and false blocks per category and language.

    python -m helpers.gate_eval            # the tables
    python -m helpers.gate_eval --misses   # and every case the gate got wrong
    python -m helpers.gate_eval --veto     # and the configured veto (helpers.llm.configured_veto)
    python -m helpers.gate_eval --veto probe       # or name it: probe (ProbeVeto) or translate (TranslateVeto)
    python -m helpers.gate_eval --set PATH      # only an external set shaped like gate_multilingual_blind.json
                                                # (the rules; the capture tool, rules alone and default)
    python -m helpers.gate_eval --planted PATH  # only an external set shaped like planted_documents_blind.json

Three layers are measured. The rules (`helpers.gate.check`) on the corpus, the held-out sets, the
multilingual set (data/gate_multilingual.json) and, once it is there, the blind multilingual set
(data/gate_multilingual_blind.json), per category and per language. Provenance (the full
`WritePolicy.check` after a document) on data/planted_documents.json: every planted order must be
refused, every wish of the user kept. The veto (helpers.veto), with --veto: what it refuses of the
notes the rules allowed, and its cost per note (p50/p95 ms and tokens).

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

import functools
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from helpers.directive import reading
from helpers.detectors.instructions import unwrapped
from helpers.gate import GateDecision, check, content_of
from helpers.paths import data_dir
from helpers.write_policy import DEFAULT_WRITE_POLICY, WritePolicy, rules_only


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


def multilingual_sets() -> dict[str, list[dict]]:
    """data/gate_multilingual.json and (when present) data/gate_multilingual_blind.json, as cases
    with text, keywords, expected ("allow" or "block"), category and language."""
    out = {}
    for name in ("gate_multilingual", "gate_multilingual_blind"):
        path = data_dir() / f"{name}.json"
        if path.exists():
            out[name] = [_case(c) for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return out


def _case(c: dict) -> dict:
    expected = c.get("expected") or ("allow" if c.get("expect") == "allow" else "block")
    return {**c, "text": c.get("text") or c.get("proposed_note") or c.get("note", ""),
            "keywords": c.get("keywords") or [], "expected": expected,
            "category": c.get("category", "?"), "language": c.get("language", "?")}


def planted_documents(name: str = "planted_documents") -> list[dict]:
    """data/planted_documents.json (or the blind data/planted_documents_blind.json): a user message,
    a document, and the note a model proposed after reading it; empty when the file is absent."""
    path = data_dir() / f"{name}.json"
    return load_set(path) if path.exists() else []


def load_set(path: str | Path) -> list[dict]:
    """Any set file shaped like the multilingual or planted sets ({"cases": [...]}), as cases."""
    return [_case(c) for c in json.loads(Path(path).read_text(encoding="utf-8"))["cases"]]


def after_a_document(case: dict, policy: WritePolicy = DEFAULT_WRITE_POLICY) -> GateDecision:
    """The full write policy on a note proposed after a document, grounded in the user's message."""
    return policy.check(case["text"], case["keywords"], said_by_user=case["user_message"],
                        latest_message=case["user_message"], from_document=True, heard=case.get("document"))


def typed_by_the_user(case: dict, policy: WritePolicy = DEFAULT_WRITE_POLICY) -> GateDecision:
    """The capture tool on a note the user typed this turn: the whole write policy, with the note
    as the user's own words (so the first-person and grounding rules accept it, as they accept
    "never book me a night flight" from her message)."""
    return policy.check(case["text"], case["keywords"], said_by_user=case["text"], latest_message=case["text"])


def score(cases: list[dict], by: str = "category",
          decide: Callable[[dict], GateDecision] | None = None) -> dict[str, CategoryScore]:
    scores: dict[str, CategoryScore] = {}
    for case in cases:
        s = scores.setdefault(case[by], CategoryScore(case[by]))
        decision = decide(case) if decide else check(case["text"], case["keywords"])
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
                s.same_rule += decision.rule == case["expected"] or case["expected"] == "block"
            else:
                s.misses.append({**case, "got": "allow"})
    return dict(sorted(scores.items()))


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{value * 100:5.1f}"


def report(scores: dict[str, CategoryScore], by: str = "category") -> str:
    lines = [
        f"{by:28} {'cases':>5} {'recall%':>8} {'same rule%':>10} {'false blocks%':>13}"
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


def veto_report(sets: dict[str, list[dict]], kind: str | None = None) -> str:
    """A veto (`configured_veto(kind)`), on the notes the rules allowed: refused of must-block
    (recall it adds), refused of must-allow (false blocks it adds), cost per note."""
    from helpers.llm import configured_veto  # only with --veto: loads or reaches the model

    veto = configured_veto(kind, timeout=60)
    rules = rules_only(DEFAULT_WRITE_POLICY)
    lines = [f"{'set':28} {'notes':>5} {'refused/block':>14} {'refused/allow':>14} {'errors':>6}"]
    ms: list[float] = []
    tokens: list[int] = []
    for name, cases in sets.items():
        counts = [0, 0, 0, 0, 0]  # must-block, refused; must-allow, refused; errors
        for case in cases:
            decision = (after_a_document(case, rules) if "user_message" in case
                        else check(case["text"], case["keywords"]))
            if not decision.allowed:
                continue  # the veto is asked only about what the rules allowed
            block = case["expected"] != "allow"
            try:
                verdict = veto(case["text"])
            except Exception:  # noqa: BLE001 - the policy falls back to the rules; counted here
                counts[4] += 1
                continue
            ms.append(verdict.ms)
            tokens.append(verdict.prompt_tokens + verdict.output_tokens)
            counts[0 if block else 2] += 1
            counts[1 if block else 3] += verdict.refuse
        lines.append(f"{name:28} {counts[0] + counts[2] + counts[4]:5d} {counts[1]:>6}/{counts[0]:<7} "
                     f"{counts[3]:>6}/{counts[2]:<7} {counts[4]:6d}")
    if ms:
        p95 = statistics.quantiles(ms, n=20)[18] if len(ms) > 1 else ms[0]
        lines.append(f"cost per note: p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, "
                     f"p50 {statistics.median(tokens):.0f} tokens (prompt + output, prefix cached)")
    return "\n".join(lines)


def _veto_kind(argv: list[str]) -> str | None:
    """The word after --veto (probe or translate), or None for the configured one."""
    at = argv.index("--veto") + 1
    return argv[at] if at < len(argv) and not argv[at].startswith("-") else None


def _option(argv: list[str], name: str) -> str | None:
    if name not in argv:
        return None
    at = argv.index(name)
    if at + 1 >= len(argv):
        raise SystemExit(f"{name} needs a path")
    return argv[at + 1]


def _capture_policies() -> list[tuple[str, WritePolicy]]:
    """The default write policy, and (when it has a veto) its rules alone, to compare the two."""
    if DEFAULT_WRITE_POLICY.veto is None:
        return [("the default write policy", DEFAULT_WRITE_POLICY)]
    return [("rules alone", rules_only(DEFAULT_WRITE_POLICY)),
            ("the default write policy: rules, then the probe veto", DEFAULT_WRITE_POLICY)]


def external_sections(set_path: str | None, planted_path: str | None) -> list[tuple]:
    """The sections for sets kept outside the project: rules by category and language, and the full
    policy after a document for a planted set (by expected outcome and language)."""
    sections: list[tuple] = []
    if set_path:
        cases = load_set(set_path)
        sections += [(f"rules, external set: {set_path} (by {by})", cases, by, None)
                     for by in ("category", "language")]
        for name, policy in _capture_policies():
            sections.append((f"the capture tool ({name}, the note as the user typed it): {set_path}",
                             cases, "category", functools.partial(typed_by_the_user, policy=policy)))
    if planted_path:
        cases = load_set(planted_path)
        for name, policy in _capture_policies():
            sections += [(f"provenance after a document ({name}), external set: {planted_path} (by {by})",
                          cases, by, functools.partial(after_a_document, policy=policy))
                         for by in ("expected", "language")]
    return sections


def _print_sections(sections: list[tuple], misses: bool) -> None:
    for title, cases, by, decide in sections:
        scores = score(cases, by, decide)
        print(f"\n## {title}\n{report(scores, by)}")
        if misses:
            for s in scores.values():
                for miss in s.misses:
                    signals = reading(unwrapped(content_of(miss["text"], miss["keywords"])))
                    print(
                        f"[{s.category}] expected {miss['expected']}, got {miss['got']}: "
                        f"{miss['text']!r} {miss['keywords'] or ''} (directive signals: {signals})"
                    )


def main(argv: list[str]) -> int:
    set_path, planted_path = _option(argv, "--set"), _option(argv, "--planted")
    if set_path or planted_path:
        _print_sections(external_sections(set_path, planted_path), "--misses" in argv)
        if "--veto" in argv:
            kind = _veto_kind(argv)
            external = {Path(path).stem: load_set(path) for path in (set_path, planted_path) if path}
            print(f"\n## veto ({kind or 'configured'}; asked only about what the rules allowed)\n"
                  f"{veto_report(external, kind)}")
        return 0
    multilingual = multilingual_sets()
    planted = planted_documents()
    sections: list[tuple[str, list[dict], str, Callable[[dict], GateDecision] | None]] = [
        ("corpus (written beside the rules)", load_corpus(), "category", None)]
    sections += [(f"held out: {name}", cases, "category", None) for name, cases in heldout_sets().items()]
    if dev := development_set():
        sections.append((f"development (not held out): {DEV_SET}", dev, "category", None))
    for name, cases in multilingual.items():
        sections += [(f"rules, multilingual: {name} (by {by})", cases, by, None) for by in ("category", "language")]
    sections += [(f"provenance after a document: planted_documents (by {by})", planted, by, after_a_document)
                 for by in ("category", "language")]
    if blind := planted_documents("planted_documents_blind"):
        sections += [(f"provenance after a document: planted_documents_blind (by {by})", blind, by,
                      after_a_document) for by in ("expected", "language")]
    _print_sections(sections, "--misses" in argv)
    if "--veto" in argv:
        kind = _veto_kind(argv)
        sets = {"corpus": load_corpus(), **heldout_sets(), DEV_SET: dev, **multilingual,
                "planted_documents": planted, "planted_documents_blind": blind}
        print(f"\n## veto ({kind or 'configured'}; asked only about what the rules allowed)\n"
              f"{veto_report(sets, kind)}")
    else:
        print("\n## veto: not run (python -m helpers.gate_eval --veto, with the model reachable)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
