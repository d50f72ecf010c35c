"""Stage 9 — evals (notebook 09): does memory behave, and what does it cost?

A scenario (data/evals/<name>.json) seeds a store, runs one or more sessions through the
lifecycle API (`helpers.lifecycle`: open, run turns, end the session) and checks what memory,
the prompt, the searches and the answers hold after each session. A scenario with the catalogue
runs the notebooks' concierge: recall_notes and the searches whose arguments memory fills in code
(`helpers.concierge.catalogue_tools`), answers composed from their results; `call_arguments`
reads what was searched (`SearchOutcome.arguments`), not what the model proposed.

    scenarios  the schema and the loader                   (helpers.evals.scenarios)
    agents     reference agents: do-nothing, fall-for-everything, the adversary replay
    guards     switching a guard off by passing options, e.g. options_without("truncation")
    runner     one scenario, session by session            (run_scenario)
    checks     must / should checks, invariants, metrics   (evaluate)
    suite      all scenarios on one agent, and the tables  (run_suite, compare_table)
    judge      an optional LLM judge, a metric only
    mutants    broken configurations (one promise broken each) and the kill matrix: do the
               checks catch them?                       (python -m helpers.evals --mutants)
    cli        python -m helpers.evals

Token economics (memory injection against full replay) lives in `helpers.economics`.
"""

from helpers.economics import (
    EconomicsPoint,
    economics_table,
    plot_economics,
    synthetic_history,
    token_economics,
)
from helpers.evals.agents import (
    REFERENCE_AGENTS,
    DoNothing,
    FallForEverything,
    ReplayModel,
    plan_for,
)
from helpers.evals.checks import (
    CHECKS,
    TRUNCATION_MARKER,
    ScenarioResult,
    capture_recall,
    evaluate,
    invariants,
    leakage,
)
from helpers.evals.cli import main
from helpers.evals.guards import GUARDS, RunOptions, options_without
from helpers.evals.judge import JudgeVerdict, judge_answer
from helpers.evals.mutants import MUTANTS, Mutant, kill_matrix, run_mutants
from helpers.evals.runner import ANSWER_MAX_TOKENS, Outcome, SessionOutcome, run_scenario
from helpers.evals.scenarios import (
    DEFAULT_NEIGHBOUR,
    EVAL_NOW,
    SCENARIO_SCHEMA,
    Scenario,
    SessionSpec,
    load_scenarios,
    scenario_dir,
    scenario_tool,
)
from helpers.evals.suite import SuiteResult, compare_table, format_table, run_suite

__all__ = [
    "ANSWER_MAX_TOKENS",
    "CHECKS",
    "DEFAULT_NEIGHBOUR",
    "DoNothing",
    "EVAL_NOW",
    "EconomicsPoint",
    "FallForEverything",
    "GUARDS",
    "JudgeVerdict",
    "MUTANTS",
    "Mutant",
    "Outcome",
    "REFERENCE_AGENTS",
    "ReplayModel",
    "RunOptions",
    "SCENARIO_SCHEMA",
    "Scenario",
    "ScenarioResult",
    "SessionOutcome",
    "SessionSpec",
    "SuiteResult",
    "TRUNCATION_MARKER",
    "capture_recall",
    "compare_table",
    "economics_table",
    "evaluate",
    "format_table",
    "invariants",
    "judge_answer",
    "kill_matrix",
    "leakage",
    "load_scenarios",
    "main",
    "options_without",
    "plan_for",
    "plot_economics",
    "run_mutants",
    "run_scenario",
    "run_suite",
    "scenario_dir",
    "scenario_tool",
    "synthetic_history",
    "token_economics",
]
