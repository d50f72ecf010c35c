"""Command line: `python -m helpers.evals` runs the suite; exit 1 when a must-check fails."""

from __future__ import annotations

import argparse
import asyncio
import sys

from helpers.budget import TokenCounter, count_tokens
from helpers.economics import economics_table, token_economics
from helpers.evals.agents import REFERENCE_AGENTS
from helpers.evals.guards import GUARDS
from helpers.evals.scenarios import load_scenarios
from helpers.evals.suite import compare_table, run_suite

DESCRIPTION = (
    "Run the memory evals: a table per agent, the reference agents beside it; "
    "exit 1 on a must failure."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.evals", description=DESCRIPTION)
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all in data/evals/)")
    parser.add_argument(
        "--agent",
        choices=["model", *REFERENCE_AGENTS],
        default="model",
        help="whose run decides the exit code: the real model (default) or a reference agent",
    )
    parser.add_argument(
        "--adversary", action="store_true", help="replay each scenario's worst-case script"
    )
    parser.add_argument(
        "--mutants",
        action="store_true",
        help="mutation-test the evals: run every scenario on each broken configuration "
        "(helpers.evals.mutants, no model needed) and print the kill matrix; exit 1 when a "
        "mutant survives",
    )
    parser.add_argument(
        "--no-references",
        action="store_true",
        help="skip the reference agents (do-nothing, fall-for-everything) in the comparison",
    )
    parser.add_argument(
        "--disable-guard",
        action="append",
        default=[],
        choices=sorted(GUARDS),
        metavar="GUARD",
        help=f"switch a guard off (repeatable): {', '.join(sorted(GUARDS))}",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="also print answers, notes written, consolidation"
    )
    parser.add_argument(
        "--no-economics", action="store_true", help="skip the token-economics summary"
    )
    parser.add_argument(
        "--counter",
        choices=["model", "o200k"],
        default="model",
        help="tokenizer for the economics: the active model's (default) or o200k_base",
    )
    args = parser.parse_args(argv)

    scenarios = load_scenarios(args.scenarios or None)
    if args.mutants:
        from agents import set_tracing_disabled

        from helpers.evals.mutants import kill_matrix, run_mutants, survivors

        set_tracing_disabled(True)
        results = asyncio.run(run_mutants(scenarios=scenarios))
        print(kill_matrix(results, reasons=args.verbose))
        return 1 if survivors(results) else 0

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    async def run_all():
        model = REFERENCE_AGENTS[args.agent]() if args.agent in REFERENCE_AGENTS else None
        main_suite = await run_suite(
            scenarios,
            None if args.adversary else model,
            adversary=args.adversary,
            disable=args.disable_guard,
            progress=progress,
        )
        references = []
        if not args.no_references:
            for name, agent in REFERENCE_AGENTS.items():
                if name != args.agent or args.adversary:
                    references.append(
                        await run_suite(scenarios, agent(), disable=args.disable_guard, judge=False)
                    )
        return main_suite, references

    suite, references = asyncio.run(run_all())
    print(suite.table())
    if args.verbose:
        for r in suite.results:
            print(f"\n{r.name}: consolidation: {r.consolidation}")
            print(
                "\n".join(
                    [f"  note   {n}" for n in r.captured] + [f"  answer {a!r}" for a in r.answers]
                )
            )
    print(f"wall time: {suite.seconds:.1f} s")
    if references:
        print(f"\nbeside the reference agents:\n{compare_table([suite, *references])}")
    if not args.no_economics:
        counter: TokenCounter = count_tokens
        name = "o200k_base"
        if args.counter == "model":
            from helpers.llm import active_backend, token_counter

            counter, name = token_counter(), f"{active_backend().model_name} tokenizer"
        points = token_economics(50, counter)
        print(f"\ntoken economics ({name}):\n{economics_table(points)}")
        print(f"ratio at 50 sessions (replay / memory): {points[-1].ratio:.1f}x")
    return 0 if suite.passed else 1


__all__ = ["main"]
