"""The attribute pass: a note that changes a one-value fact supersedes the old one."""

import pytest

from helpers import evals
from helpers.evals.agents import plan_for
from helpers.attributes import attributes_of, confirm_attribute_changes, propose_changes, qualifiers
from helpers.consolidation import deterministic_merge, merge_notes, rules_only_merge
from helpers.state import fixed_clock
from tests.conftest import notes_dated
from tests.scripted_model import ScriptedModel

CLOCK = fixed_clock("2026-11-30T09:00:00Z")


note = notes_dated("2026-11-30")  # the day these tests take as now


def keep_all(system, input, tools):
    """The consolidator the embedded model often is: it keeps every note it is shown."""
    return {"json": plan_for({}, input)}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Lives in Brisbane", {"home_city": "brisbane"}),
        ("Moved to Melbourne", {"home_city": "melbourne"}),
        ("Moved from Brisbane to Melbourne", {"home_city": "melbourne"}),
        ("Melbourne is my home city from now on", {"home_city": "melbourne"}),
        ("Based in Perth", {"home_city": "perth"}),
    ("Prefers Melbourne as home city", {"home_city": "melbourne"}),
        ("Lives in Sydney since moving in August 2026", {"home_city": "sydney"}),
        ("Used to live in Brisbane", {}),
        ("No longer lives in Brisbane, lives in Hobart", {"home_city": "hobart"}),
        (
            "Lives in Sydney; home airport is Sydney (SYD)",
            {"home_city": "sydney", "home_airport": "SYD"},
        ),
        ("Is vegetarian", {"diet": "vegetarian"}),
        ("No longer vegetarian", {"diet": "eats meat"}),
        ("Eats meat again", {"diet": "eats meat"}),
        ("Partner is vegan", {}),  # someone else's diet
        ("Usually prefers an aisle seat on flights", {"seat": "aisle"}),
        ("Prefers aisle over window", {}),  # two values: ambiguous
        ("Prefers premium economy", {"cabin": "premium economy"}),
        ("Prefers Qantas", {"airline": "qantas"}),
        ("Avoids Jetstar", {}),
        ("Keeps the nightly hotel budget under 250 AUD", {"hotel_budget": "250"}),
        ("Prefers hotels within walking distance of public transport", {}),
        ("Working on a client project in Melbourne until 4 December 2026", {}),
    ],
)
def test_attributes_are_read_from_note_text(text, expected):
    assert attributes_of(text) == expected


def test_circumstances_are_read_too():
    assert qualifiers("Prefers window seats on night flights") == {"on night"}
    assert qualifiers("Usually prefers an aisle seat on flights") == set()


BRISBANE = note("Lives in Brisbane", "2025-11-02", keywords=["home"], kind="fact")
AISLE = note("Usually prefers an aisle seat on flights", "2026-03-14", keywords=["seat", "flight"])


async def test_move_city_the_model_keeps_both_and_the_rule_supersedes_the_old_city():
    melbourne = note("Lives in Melbourne", keywords=["home"], kind="fact")
    merged, report = await merge_notes(
        [BRISBANE, AISLE], [melbourne], ScriptedModel([keep_all]), clock=CLOCK
    )
    assert report.model_used and report.fallback_reason is None
    stored = {n.id: n for n in merged}
    assert (stored[BRISBANE.id].status, stored[BRISBANE.id].superseded_by) == (
        "superseded",
        melbourne.id,
    )
    assert (
        stored[melbourne.id].supersedes == BRISBANE.id and stored[melbourne.id].status == "active"
    )
    assert stored[AISLE.id].status == "active"
    decision = report.decisions[BRISBANE.id]
    assert (
        decision.outcome == "superseded"
        and "home city changed: brisbane -> melbourne" in decision.reason
    )
    assert len(merged) == 3  # superseded, not lost


async def test_the_move_city_scenario_passes_its_supersede_with_a_model_that_keeps_everything():
    model = ScriptedModel(
        [
            {
                "tool": "save_memory_note",
                "arguments": {
                    "text": "Moved to Melbourne, now home city",
                    "keywords": ["home"],
                    "kind": "fact",
                },
            },
            "Noted.",
            keep_all,
        ]
    )
    result = evals.evaluate(await evals.run_scenario(evals.load_scenarios(["move_city"])[0], model))
    assert result.passed and result.should_met[0] == result.should_met[1], result.failures + result.misses


@pytest.mark.parametrize(
    "old_text, new_text",
    [
        ("Is vegetarian", "Eats meat again"),
        ("Prefers window seats", "Prefers aisle seats"),
        ("Prefers economy", "Prefers business class"),
        ("Flies Qantas", "Prefers Virgin Australia"),
        ("Keeps the nightly hotel budget under 250 AUD", "Hotel budget is now 300 AUD a night"),
    ],
)
async def test_other_attributes_change_the_same_way(old_text, new_text):
    old, new = note(old_text, "2026-01-10"), note(new_text)
    merged, report = await merge_notes([old], [new], ScriptedModel([keep_all]), clock=CLOCK)
    assert [n.status for n in merged] == ["superseded", "active"], report.summary()


@pytest.mark.parametrize(
    "old_text, new_text",
    [
        (
            "Prefers window seats on night flights",
            "Prefers aisle seats",
        ),  # other circumstances: both true
        ("Is vegetarian", "Is vegetarian and prefers aisle seats"),  # same value
        ("Lives in Sydney", "Attending a conference in Lisbon"),  # no shared attribute
    ],
)
async def test_no_change_leaves_both_notes_active(old_text, new_text):
    old, new = note(old_text, "2026-01-10"), note(new_text)
    merged, report = await merge_notes([old], [new], ScriptedModel([keep_all]), clock=CLOCK)
    assert [n.status for n in merged] == ["active", "active"] and not report.needs_user


async def test_an_older_note_with_another_fact_goes_to_the_user_instead():
    old = note("Lives in Brisbane with two cats", "2026-01-10")
    new = note("Moved to Melbourne")
    merged, report = await merge_notes([old], [new], ScriptedModel([keep_all]), clock=CLOCK)
    assert [n.status for n in merged] == ["active", "active"]
    [conflict] = report.needs_user
    assert conflict.note_ids == (old.id, new.id) and "also says cat, two" in conflict.reason
    assert report.decisions[old.id].outcome == "needs_user"


async def test_a_same_day_change_is_not_guessed():
    old, new = note("Prefers window seats"), note("Prefers aisle seats")
    merged, report = await merge_notes([old], [new], ScriptedModel([keep_all]), clock=CLOCK)
    assert [n.status for n in merged] == ["active", "active"]
    assert "same date" in report.needs_user[0].reason


async def test_a_pair_the_model_sent_to_the_user_stays_with_the_user():
    old, new = note("Prefers window seats", "2026-01-10"), note("Prefers aisle seats")
    plan = {
        "json": {
            "decisions": [
                {"id": old.id, "action": "conflict", "other_id": new.id, "reason": "clash"},
                {"id": new.id, "action": "keep", "other_id": "", "reason": "x"},
            ],
            "notes": [],
        }
    }
    merged, report = await merge_notes([old], [new], ScriptedModel([plan]), clock=CLOCK)
    assert [n.status for n in merged] == ["active", "active"] and len(report.needs_user) == 1


async def test_without_a_model_or_after_a_fallback_the_rules_only_merge_settles_the_move():
    # Before, the rules-only merge (and so every fallback) left both cities live.
    melbourne = note("Lives in Melbourne", keywords=["home"], kind="fact")
    rules, _ = rules_only_merge([BRISBANE], [melbourne], clock=CLOCK)
    alone, _ = await merge_notes([BRISBANE], [melbourne], None, clock=CLOCK)
    fallback, report = await merge_notes(
        [BRISBANE], [melbourne], ScriptedModel(["not json"]), clock=CLOCK
    )
    assert alone == rules == fallback and report.fallback_reason
    assert [(n.text, n.status) for n in rules] == [
        ("Lives in Brisbane", "superseded"), ("Lives in Melbourne", "active")]
    folded, _ = deterministic_merge([BRISBANE], [melbourne], clock=CLOCK)  # what the model is shown
    assert all(n.status == "active" for n in folded)


def test_only_new_notes_are_paired():
    old_city, other_city = (
        note("Lives in Perth", "2026-01-10"),
        note("Lives in Hobart", "2026-02-10"),
    )
    assert propose_changes([old_city, other_city], set(), clock=CLOCK) == []
    [change] = propose_changes([old_city, other_city], {other_city.id}, clock=CLOCK)
    assert (change.older_id, change.newer_id, change.confirmed) == (
        old_city.id,
        other_city.id,
        True,
    )


def test_confirming_needs_a_merge_result():
    melbourne = note("Lives in Melbourne")
    notes, report = deterministic_merge([BRISBANE], [melbourne], clock=CLOCK)
    notes, report = confirm_attribute_changes(notes, report, clock=CLOCK)
    assert {n.id: n.status for n in notes} == {BRISBANE.id: "superseded", melbourne.id: "active"}


@pytest.mark.parametrize("text", [
    "Sister lives in Perth", "Maya's partner lives in Perth", "Her sister prefers window seats",
    "The user's kids prefer window seats", "My brother moved to Perth", "Maya’s partner lives in Perth",
])
def test_a_note_about_someone_else_states_none_of_the_users_attributes(text):
    assert attributes_of(text) == {}


@pytest.mark.parametrize("text", ["Lives in Melbourne near her sister", "Moved to Perth with my partner"])
def test_a_note_that_only_mentions_someone_else_is_still_the_users(text):
    assert "home_city" in attributes_of(text)


async def test_someone_elses_seat_never_retires_the_users_own():
    aisle = note("Prefers aisle seats", "2026-01-02", keywords=["seat"])
    sister = note("Her sister prefers window seats", keywords=["seat"])
    merged, report = await merge_notes([aisle], [sister], ScriptedModel([keep_all]), clock=CLOCK)
    assert all(n.status == "active" for n in merged), report.summary()  # before: aisle superseded
