"""The suite: every scenario on one agent, and the table that sets agents side by side."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agents import set_tracing_disabled
from agents.models.interface import Model

from helpers.budget import TokenCounter, count_tokens
from helpers.evals.checks import ScenarioResult, evaluate
from helpers.evals.guards import RunOptions, options_without
from helpers.evals.judge import judge_answer
from helpers.evals.runner import run_scenario
from helpers.evals.scenarios import Scenario, load_scenarios
from helpers.policy import DEFAULT_POLICY, Policy


@dataclass
class SuiteResult:
    results: list[ScenarioResult]
    seconds: float
    model_label: str
    guards_off: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def failed(self) -> list[str]:
        return [r.name for r in self.results if not r.passed]

    @property
    def capture_recall(self) -> float | None:
        """Over every scenario that states durable facts (each scenario weighs the same)."""
        values = [
            r.metrics["capture_recall"]
            for r in self.results
            if r.metrics["capture_recall"] is not None
        ]
        return sum(values) / len(values) if values else None

    def table(self, timing: bool = True) -> str:
        return format_table(self, timing=timing)


def _ratio(pair: tuple[int, int]) -> str:
    return f"{pair[0]}/{pair[1]}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def format_table(suite: SuiteResult, timing: bool = True) -> str:
    """The suite as a fixed-width table, then the failures and the should-misses."""
    head = (
        f"{'scenario':<30} {'result':<6} {'must':>5} {'should':>6} {'recall':>6} {'leak':>4} "
        f"{'tok/turn':>8} {'calls/turn':>10}"
    ) + (f" {'s/turn':>6}" if timing else "")
    lines = [head, "-" * len(head)]
    for r in suite.results:
        m = r.metrics
        line = (
            f"{r.name:<30} {'PASS' if r.passed else 'FAIL':<6} {_ratio(r.must_met):>5} "
            f"{_ratio(r.should_met):>6} {_pct(m['capture_recall']):>6} {int(m['leakage'] or 0):>4} "
            f"{m['input_tokens_per_turn']:>8.0f} {m['model_calls_per_turn']:>10.1f}"
        )
        lines.append(line + (f" {m['seconds_per_turn']:>6.1f}" if timing else ""))
    passed = sum(r.passed for r in suite.results)
    off = f"; guards off: {', '.join(suite.guards_off)}" if suite.guards_off else ""
    lines.append(
        f"{passed}/{len(suite.results)} scenarios passed on {suite.model_label}{off}; "
        f"capture recall {_pct(suite.capture_recall)}"
    )
    turns = sum(r.turns for r in suite.results)
    if timing and turns:
        in_turns = sum((r.metrics["seconds_per_turn"] or 0.0) * r.turns for r in suite.results)
        calls = sum((r.metrics["model_calls_per_turn"] or 0.0) * r.turns for r in suite.results)
        lines.append(
            f"{turns} user turns: {in_turns / turns:.1f} s and {calls / turns:.1f} model calls "
            f"per turn; {in_turns:.0f} s in turns, "
            f"{sum(r.seconds for r in suite.results) - in_turns:.0f} s in consolidation and setup"
        )
    sources = sorted({s for r in suite.results for s in r.token_source.split(", ")})
    lines.append(
        f"must/should: checks met (must counts the invariants as one); "
        f"recall: durable facts stated "
        f"that reached memory; tok/turn: input tokens per user turn ({', '.join(sources)})"
    )
    lines += [f"FAIL {r.name}: {p}" for r in suite.results for p in r.failures]
    lines += [f"miss {r.name}: {p}" for r in suite.results for p in r.misses]
    lines += [
        f"judge {r.name}: {r.judge['score']}/5 {r.judge['reason']}"
        for r in suite.results
        if r.judge
    ]
    return "\n".join(lines)


def compare_table(suites: Iterable[SuiteResult]) -> str:
    """Scenario by agent: PASS/FAIL, must checks met and capture recall; then the totals."""
    suites = list(suites)
    names = list(dict.fromkeys(r.name for s in suites for r in s.results))
    rows = []
    for name in names:
        cells = []
        for suite in suites:
            r = next((r for r in suite.results if r.name == name), None)
            cells.append(
                "-"
                if r is None
                else f"{'PASS' if r.passed else 'FAIL'} {_ratio(r.must_met):>5} "
                f"{_pct(r.metrics['capture_recall']):>4}"
            )
        rows.append([name, *cells])
    rows.append(
        ["total"]
        + [
            f"{sum(r.passed for r in s.results)}/{len(s.results)} pass {_pct(s.capture_recall):>4}"
            for s in suites
        ]
    )
    head = ["scenario", *(s.model_label[:24] for s in suites)]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(row: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        )

    out = [line(head), "-" * len(line(head)), *map(line, rows)]
    return "\n".join(out + ["cells: result, must checks met, capture recall"])


def _label(model: Model | None, adversary: bool) -> str:
    if adversary:
        return "the adversary (replayed worst-case model)"
    return str(
        getattr(model, "name", None) or getattr(model, "model", None) or type(model).__name__
    )


async def run_suite(
    scenarios: Iterable[Scenario] | None = None,
    model: Model | None = None,
    *,
    adversary: bool = False,
    disable: Iterable[str] = (),
    options: RunOptions | None = None,
    policy: Policy = DEFAULT_POLICY,
    judge: Model | bool | None = None,
    counter: TokenCounter = count_tokens,
    progress: Callable[[str], None] | None = None,
) -> SuiteResult:
    """Run scenarios (default: all) on `model` (default: get_model()) or, with adversary=True, on
    each session's adversary script. `disable` switches guards off by name (see GUARDS).

    judge: None asks an LLM judge only when OPENAI_API_KEY is set; False never; a Model always.
    """
    scenarios = list(scenarios) if scenarios is not None else load_scenarios()
    if adversary and model is not None:
        raise ValueError("pass either a model or adversary=True, not both")
    if adversary or getattr(model, "name", "") in ("do-nothing", "fall-for-everything"):
        set_tracing_disabled(True)  # scripted: nothing to trace
    elif model is None:
        from helpers.llm import get_model

        model = get_model()
    if judge is None:
        judge = bool(os.environ.get("OPENAI_API_KEY"))
    if judge is True:
        from helpers.llm import get_model

        judge = get_model()
    disable = tuple(disable)
    options = options_without(*disable, options=options)
    results = []
    started = time.perf_counter()
    for scenario in scenarios:
        t0 = time.perf_counter()
        outcome = await run_scenario(
            scenario,
            None if adversary else model,
            adversary=adversary,
            policy=policy,
            options=options,
            counter=counter,
        )
        result = evaluate(outcome, time.perf_counter() - t0)
        if judge and outcome.answers:
            try:
                result.judge = await judge_answer(scenario, outcome.answers, judge)
            except Exception as error:  # noqa: BLE001 - the judge is optional
                result.judge = {"score": 0, "reason": f"judge failed: {type(error).__name__}"}
        results.append(result)
        if progress:
            progress(
                f"{scenario.name}: {'PASS' if result.passed else 'FAIL'} "
                f"({result.seconds:.1f} s, {result.model_calls} model calls)"
            )
    return SuiteResult(results, time.perf_counter() - started, _label(model, adversary), disable)


__all__ = ["SuiteResult", "compare_table", "format_table", "run_suite"]
