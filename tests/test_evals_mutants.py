"""Mutation testing of the evals: every broken configuration in helpers.evals.mutants is caught
by at least one must-check, and each check added for a survivor fails its mutant while the real
configuration (the adversary replay, every guard on) still passes.

No model: the mutants are the scripted adversary with one object handed in differently.
"""

import pytest
from agents import set_tracing_disabled

from helpers.evals import evaluate, load_scenarios, main, run_scenario, run_suite
from helpers.evals.guards import RunOptions
from helpers.evals.mutants import (
    MUTANTS,
    REVERSED_POLICY,
    Mutant,
    first_kill,
    kill_matrix,
    run_mutants,
    survivors,
)
from helpers.policy import Policy

set_tracing_disabled(True)

SCENARIOS = {s.name: s for s in load_scenarios()}
LIVE = sorted(n for n, m in MUTANTS.items() if not m.equivalent)
EQUIVALENT = sorted(n for n, m in MUTANTS.items() if m.equivalent)


async def run(name, mutant=None):
    kwargs = {} if mutant is None else {"options": mutant.options, "policy": mutant.policy}
    return evaluate(await run_scenario(SCENARIOS[name], adversary=True, **kwargs))


@pytest.mark.parametrize("name", LIVE)
async def test_every_mutant_is_killed_by_a_must_check(name):
    killed = await first_kill(MUTANTS[name])
    assert killed is not None, f"no scenario's must-checks catch {name}: {MUTANTS[name].breaks}"
    scenario, failures = killed
    assert failures and all(isinstance(f, str) for f in failures), (scenario, failures)


@pytest.mark.parametrize("name", EQUIVALENT)
async def test_an_equivalent_mutant_is_made_harmless_by_the_library(name):
    suite = await run_suite(
        adversary=True, options=MUTANTS[name].options, policy=MUTANTS[name].policy, judge=False
    )
    assert suite.passed, suite.table()


async def test_plan_drops_a_fact_is_harmless_because_the_plan_is_rejected():
    result = await run("move_city", MUTANTS["plan-drops-a-fact"])
    assert result.passed and "plan rejected" in result.consolidation


async def test_a_mutant_that_breaks_nothing_survives_and_the_matrix_says_so():
    harmless = Mutant("harmless", "nothing", RunOptions(), Policy())
    results = await run_mutants([harmless], [SCENARIOS["cold_start"]])
    assert survivors(results) == ["harmless"]
    assert "NO (survives)" in kill_matrix(results)


async def test_the_real_configuration_passes_every_strengthened_scenario():
    for name in ("this_time_vs_from_now_on", "long_memory_newest_fact", "forget_mid_session"):
        result = await run(name)
        assert result.passed, result.failures


# ---- each strengthened check: fails its mutant, passes the real configuration ------------------


async def test_memory_must_reach_every_model_call_not_the_first_turn_only():
    result = await run("this_time_vs_from_now_on", MUTANTS["first-turn-only"])
    assert any("missing from the system prompt of model call(s) [3, 4]" in f
               for f in result.failures), result.failures


async def test_notes_saved_in_a_session_must_reach_its_last_prompt():
    result = await run("this_time_vs_from_now_on", MUTANTS["rendered-once"])
    assert "'vegetarian' missing from the last system prompt" in result.failures


async def test_the_prompt_must_state_the_precedence_rules():
    result = await run("this_time_vs_from_now_on", MUTANTS["precedence-reversed"])
    assert any("latest message wins" in f for f in result.failures), result.failures
    assert "oldest note wins" in REVERSED_POLICY


async def test_a_long_memory_is_held_to_a_budget():
    result = await run("long_memory_newest_fact", MUTANTS["budget-ignored"])
    assert any("memory is not held to a budget" in f for f in result.failures), result.failures


async def test_a_long_memory_keeps_the_newest_notes_not_the_oldest():
    result = await run("long_memory_newest_fact", MUTANTS["oldest-kept"])
    assert "'Osaka' missing from the system prompt" in result.failures


async def test_memory_injected_twice_breaks_an_invariant_in_every_scenario():
    result = await run("cold_start", MUTANTS["memory-injected-twice"])
    assert any("global_memory" in f and "twice" in f for f in result.failures), result.failures


def test_the_command_line_prints_the_kill_matrix_and_exits_1_on_a_survivor(capsys):
    # One scenario alone cannot kill every mutant: the survivors make the exit code 1.
    assert main(["--mutants", "cold_start"]) == 1
    out = capsys.readouterr().out
    assert "NO (survives)" in out and "rendered-not-sent" in out


# ---- a promise kept since the write policy reads the user's other notes -------------------------


async def test_a_card_number_split_across_two_notes_stays_out_of_memory():
    # Was pending (data/evals_pending/): each half passed the per-note check.
    result = await run("secret_split_across_notes")
    assert result.passed, result.failures
    assert result.captured == ["global: Pays for flights with her Visa"], result.captured


async def test_forgetting_in_the_store_alone_leaves_the_history_in_the_next_call():
    result = await run("forget_mid_session", MUTANTS["forget-store-only"])
    assert "'Fiji' found in the last model call (prompt and input)" in result.failures
    assert (await run("forget_mid_session")).passed
