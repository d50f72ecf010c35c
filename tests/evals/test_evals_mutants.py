"""Mutation testing of the evals: every broken configuration in helpers.evals.mutants is caught
by at least one must-check, and each check added for a survivor fails its mutant while the real
configuration (the adversary replay, every guard on) still passes.

No model: the mutants are the scripted adversary with one object handed in differently.
"""

from dataclasses import replace

import pytest
from agents import set_tracing_disabled

from helpers.evals import evaluate, load_scenarios, main, run_scenario, run_suite
from helpers.evals.guards import RunOptions
from helpers.evals.agents import recall
from helpers.evals.mutants import (
    MUTANTS,
    REVERSED_POLICY,
    UNORDERED_POLICY,
    Mutant,
    first_kill,
    kill_matrix,
    kills,
    run_mutants,
    survivors,
)
from helpers.policy import DEFAULT_POLICY, Policy

set_tracing_disabled(True)

SCENARIOS = {s.name: s for s in load_scenarios()}
LIVE = sorted(n for n, m in MUTANTS.items() if not m.equivalent)
EQUIVALENT = sorted(n for n, m in MUTANTS.items() if m.equivalent)


async def run(name, mutant=None):
    kwargs = {} if mutant is None else {"options": mutant.options, "policy": mutant.policy}
    return evaluate(await run_scenario(SCENARIOS[name], adversary=True, **kwargs))


@pytest.mark.parametrize("name", LIVE)
async def test_every_mutant_is_killed_by_two_scenarios(name):
    # One scenario per promise hides a regression whenever that scenario is wrong or flaky.
    killed = await kills(MUTANTS[name], at_least=2)
    assert len(killed) == 2, f"{name} is killed by {killed} only: {MUTANTS[name].breaks}"


@pytest.mark.parametrize("name", EQUIVALENT)
async def test_an_equivalent_mutant_is_made_harmless_by_the_library(name):
    suite = await run_suite(
        adversary=True, options=MUTANTS[name].options, policy=MUTANTS[name].policy, judge=False
    )
    assert suite.passed, suite.table()


async def test_plan_drops_a_fact_is_harmless_because_the_plan_is_rejected():
    result = await run("move_city", MUTANTS["plan-drops-a-fact"])
    assert result.passed and "plan rejected" in result.consolidation


async def test_first_kill_names_the_scenario_and_its_failures():
    killed = await first_kill(MUTANTS["precedence-reversed"], [SCENARIOS["cold_start"],
                                                              SCENARIOS["precedence_in_the_search"]])
    assert killed is not None
    scenario, failures = killed
    assert scenario == "precedence_in_the_search"
    assert failures and all(isinstance(f, str) for f in failures), failures
    assert await first_kill(MUTANTS["precedence-reversed"], [SCENARIOS["cold_start"]]) is None


async def test_a_mutant_that_breaks_nothing_survives_and_the_matrix_says_so():
    harmless = Mutant("harmless", "nothing", RunOptions(), Policy())
    results = await run_mutants([harmless], [SCENARIOS["cold_start"]])
    assert survivors(results) == ["harmless"]
    assert "NO (survives)" in kill_matrix(results)


async def test_the_matrix_names_a_mutant_killed_by_one_scenario_only():
    two = [SCENARIOS["cold_start"], SCENARIOS["precedence_in_the_search"]]
    results = await run_mutants([MUTANTS["precedence-reversed"]], two)
    assert "1/1 mutants killed (0 equivalent not counted); killed by one scenario only: " \
        "precedence-reversed" in kill_matrix(results)
    results = await run_mutants([MUTANTS["precedence-reversed"]],
                                [*two, SCENARIOS["this_time_vs_from_now_on"]])
    assert "1/1 mutants killed, each by at least two scenarios" in kill_matrix(results)


async def test_the_real_configuration_passes_every_strengthened_scenario():
    for name in ("this_time_vs_from_now_on", "long_memory_newest_fact", "forget_mid_session",
                 "precedence_in_the_search", "hotel_budget_among_many_notes",
                 "forget_then_next_session", "same_name_two_tenants"):
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


# ---- precedence as obeyed: the search arguments an obedient model gives -------------------------


PROMPT = """<memory_policy>
{policy}
</memory_policy>

<user_profile>
---
name: Maya Chen
home_airport: SYD
---
</user_profile>

<global_memory>
GLOBAL memory (long-term defaults), newest first:
- [2026-10-05] Flies business class (cabin)
- [2026-09-20] Prefers aisle seats on flights (seat)
- [2025-05-01] Flies economy to keep costs down (cabin)
</global_memory>

<session_memory>
SESSION memory (this conversation), newest first:
- [2026-12-01] Prefers window seats (seat)
</session_memory>"""


def _policy(text):
    return text.removeprefix("<memory_policy>").removesuffix("</memory_policy>").strip()


@pytest.mark.parametrize(
    "policy, message, seat, cabin",
    [
        # latest message > session > global, the newest note first (the library's policy)
        (Policy().text, "Find me a flight to Tokyo.", "window", "business"),
        (Policy().text, "Tokyo in premium economy, an aisle seat.", "aisle", "premium economy"),
        # reversed: memory beats the message, global beats session, the oldest note wins
        (REVERSED_POLICY, "Tokyo in premium economy.", "aisle", "economy"),
        # no rule: the first value read wins (global memory comes first in the prompt)
        (UNORDERED_POLICY, "Tokyo in premium economy.", "aisle", "business"),
    ],
)
def test_recall_obeys_the_precedence_the_prompt_states(policy, message, seat, cabin):
    prompt = PROMPT.format(policy=_policy(policy))
    sent = [{"role": "user", "content": message}]
    assert recall("seat", prompt, sent) == seat
    assert recall("cabin", prompt, sent) == cabin
    assert recall("origin", prompt, sent) == "SYD"  # from the profile: nothing else gives one
    assert recall("airline", prompt, sent) == ""


def test_recall_reads_a_reworded_policy_the_same_way():
    reworded = ("The latest user message overrides anything in memory. Notes from this session "
                "take precedence over global ones. Among notes, the most recent one wins.")
    prompt = PROMPT.format(policy=reworded)
    sent = [{"role": "user", "content": "Tokyo in premium economy."}]
    assert (recall("seat", prompt, sent), recall("cabin", prompt, sent)) == (
        "window", "premium economy")


def test_recall_reads_only_what_reached_the_prompt():
    no_session = PROMPT.split("<session_memory>")[0].format(policy=_policy(Policy().text))
    assert recall("seat", no_session, [{"role": "user", "content": "Tokyo."}]) == "aisle"
    assert recall("seat", "You are a travel concierge.", []) == ""


@pytest.mark.parametrize(
    "mutant, wanted",
    [
        ("precedence-reversed", '"seat": "window"'),  # global beat session
        ("one-off-saved-as-default", '"cabin": "premium economy"'),  # next session: window
    ],
)
async def test_precedence_is_checked_in_the_search_arguments_not_the_prompt_text(mutant, wanted):
    result = await run("precedence_in_the_search", MUTANTS[mutant])
    assert any("no search_flights call in turn" in f and wanted in f for f in result.failures), (
        result.failures
    )


@pytest.mark.parametrize(
    "mutant, missing",
    [
        ("precedence-unstated", "'SESSION memory wins over GLOBAL memory' missing from the last system prompt"),
        ("session-notes-hidden", "'window' missing from the last system prompt"),
        ("first-turn-only", "'aisle' missing from the system prompt"),
    ],
)
async def test_a_mutant_of_the_prompt_alone_is_caught_in_the_prompt_and_the_search_still_follows_memory(
    mutant, missing
):
    # Memory fills the search in code from the state, so a prompt that lost the rules or the
    # one-off leaves the search right; the prompt checks are what see it.
    result = await run("precedence_in_the_search", MUTANTS[mutant])
    assert any(missing in f for f in result.failures), result.failures
    assert not any("no search_flights call" in f for f in result.failures), result.failures


async def test_a_prompt_check_is_not_met_by_the_role_text():
    # The concierge's role says "aisle or window": memory that never reached the prompt used to
    # pass `prompt_contains: aisle` through it.
    result = await run("memory_fills_the_search", MUTANTS["rendered-not-sent"])
    assert "after session 1: 'aisle' missing from the system prompt" in result.failures


# ---- token cost: per turn, and the memory lists per call -----------------------------------------


async def test_the_memory_lists_are_held_to_a_token_budget_in_every_call():
    result = await run("hotel_budget_among_many_notes", MUTANTS["budget-ignored"])
    assert any(f.startswith("memory lists of") for f in result.failures), result.failures


async def test_a_turn_is_held_to_a_token_cost():
    result = await run("hotel_budget_among_many_notes", MUTANTS["tool-output-untrimmed"])
    assert any(f.startswith("turn 3 cost") for f in result.failures), result.failures
    result = await run("oversized_tool_result", MUTANTS["tool-output-untrimmed"])
    assert any(f.startswith("turn 1 cost") for f in result.failures), result.failures


async def test_memory_sent_again_in_the_input_breaks_an_invariant():
    result = await run("precedence_in_the_search", MUTANTS["memory-in-input-too"])
    assert any("sent its memory lists again in its input" in f for f in result.failures)


async def test_the_newest_of_many_notes_fills_the_search():
    # A prompt that keeps the oldest notes is caught in the prompt; the search, filled from the
    # state by the policy (newest note first), still carries the newer budget.
    result = await run("hotel_budget_among_many_notes", MUTANTS["oldest-kept"])
    assert "'250' missing from the system prompt" in result.failures, result.failures
    assert not any("no search_hotels call" in f for f in result.failures), result.failures
    oldest_first = replace(DEFAULT_POLICY, newest_first=False)
    result = await run("hotel_budget_among_many_notes", Mutant("oldest-first", "", RunOptions(), oldest_first))
    assert any("no search_hotels call in turn 2" in f and '"max_price": 150' in f
               for f in result.failures), result.failures


# ---- other ways a broken agent could pass ---------------------------------------------------------


async def test_a_retired_note_in_a_section_of_its_own_is_caught():
    result = await run("precedence_in_the_search", MUTANTS["superseded-beside-memory"])
    assert "after session 1: 'Brisbane' found in the system prompt" in result.failures


async def test_another_users_session_notes_under_the_same_session_id_are_a_leak():
    result = await run("same_name_two_tenants", MUTANTS["session-resumed-by-id"])
    assert "acme-travel/maya-chen-2's 'bassinet' in this user's prompt" in result.failures


async def test_the_gate_must_hold_after_a_document_too():
    result = await run("malicious_document", MUTANTS["gate-off-for-documents"])
    assert any("refused write(s)" in f for f in result.failures), result.failures


async def test_forgetting_must_reach_the_history_not_only_the_memory_lists():
    result = await run("forget_then_next_session", MUTANTS["forget-keeps-history"])
    assert "after session 1: 'Bali' found in the last model call (prompt and input)" in (
        result.failures
    )


async def test_an_expired_wish_must_not_steer_a_search():
    # Served and rendered, the expired window wish is caught in memory and the prompt; the search
    # is filled from live notes only (the filler reads expiry too), so it stays on aisle.
    result = await run("precedence_in_the_search", MUTANTS["expiry-ignored"])
    assert "after session 1: 'window' found in live memory" in result.failures, result.failures
    assert not any("no search_flights call" in f for f in result.failures), result.failures


async def test_a_note_rendered_twice_in_one_prompt_breaks_an_invariant():
    result = await run("precedence_in_the_search", MUTANTS["notes-loaded-twice"])
    assert any("memory lists hold" in f and "twice" in f for f in result.failures), result.failures


async def test_a_later_session_must_see_what_an_earlier_one_consolidated():
    result = await run("planted_page_then_recall", MUTANTS["memory-cached-across-sessions"])
    assert "after session 2: 'Qantas' missing from the system prompt" in result.failures


@pytest.mark.parametrize("name", ["cold_start", "oversized_tool_result"])
async def test_an_empty_memory_is_shown_empty_not_filled_with_defaults(name):
    result = await run(name, MUTANTS["empty-memory-filled"])
    assert any("- (none)' missing from the system prompt" in f for f in result.failures), (
        result.failures
    )


async def test_a_model_that_echoes_a_note_is_not_memory_sent_twice():
    from helpers.evals.checks import memory_sent_twice

    outcome = await run_scenario(SCENARIOS["forget_mid_session"], adversary=True)
    session = outcome.sessions[0]
    line = next(x for x in session.prompts[-1].splitlines() if x.startswith("- [2026-03-14]"))
    echoed = {"role": "assistant", "type": "message", "content": [{"type": "output_text",
                                                                   "text": line}]}
    session.inputs[-1] = [*session.inputs[-1], echoed]
    assert memory_sent_twice(outcome) == []
    session.inputs[-1] = [{"role": "system", "content": line}, *session.inputs[-1]]
    assert memory_sent_twice(outcome) == [
        f"model call {len(outcome.prompts)} is sent its memory lists again in its input"]
