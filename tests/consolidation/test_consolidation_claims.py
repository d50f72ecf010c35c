"""Consolidation rejects a merged note that no single source states; honest merges pass."""

import pytest

from helpers.consolidation import (
    ConsolidationPlan,
    PlanRejected,
    apply_plan,
    deterministic_merge,
    merge_notes,
    notes_for_model,
    unsupported_claims,
)
from helpers.state import MemoryState, fixed_clock
from helpers.write_policy import DEFAULT_WRITE_POLICY
from helpers.consolidation import consolidate
from tests.conftest import notes_dated
from tests.scripted_model import ScriptedModel

CLOCK = fixed_clock("2026-11-30T09:00:00Z")


note = notes_dated("2026-11-30")  # the day these tests take as now


def merge_plan(sources, text, keywords=("home",)):
    return ConsolidationPlan.model_validate(
        {
            "decisions": [
                {"id": s.id, "action": "merge", "other_id": "", "reason": "same"} for s in sources
            ],
            "notes": [
                {
                    "text": text,
                    "keywords": list(keywords),
                    "kind": "fact",
                    "source_ids": [s.id for s in sources],
                }
            ],
        }
    )


def apply_merge(global_notes, session_notes, text, keywords=("home",), **kw):
    notes, report = deterministic_merge(global_notes, session_notes, clock=CLOCK)
    inputs = notes_for_model(notes, report, clock=CLOCK) or notes
    return apply_plan(
        notes, report, merge_plan(global_notes + session_notes, text, keywords), inputs, **kw
    )


def test_recombined_subjects_are_rejected():
    brisbane = note("Lives in Brisbane", "2025-11-02", keywords=["home"], kind="fact")
    sydney = note("Moved to Sydney", "2026-08-25", keywords=["home"], kind="fact")
    assert "its sources are about different subjects (it recombines them)" in unsupported_claims(
        "Moved to Brisbane", [brisbane.text, sydney.text]
    )
    with pytest.raises(PlanRejected, match="recombines"):
        apply_merge([brisbane], [sydney], "Moved to Brisbane")


def test_a_flipped_tense_is_rejected():
    veg = note("Is vegetarian", "2026-01-02", keywords=["diet"], kind="fact")
    meals = note("Prefers vegetarian meals", "2026-06-02", keywords=["diet"])
    assert unsupported_claims("Was vegetarian", [veg.text, meals.text]) == [
        "it is in the past tense and no source is"
    ]
    with pytest.raises(PlanRejected, match="past tense"):
        apply_merge([veg], [meals], "Was vegetarian", ["diet"])
    assert unsupported_claims("No longer eats meat", ["Eats meat"]) != []


@pytest.mark.parametrize(
    "sources, merged",
    [
        (
            ["Usually prefers an aisle seat on flights", "Likes the aisle on long flights"],
            "Prefers an aisle seat on long flights",
        ),
        (["Is vegetarian", "Prefers vegetarian meals"], "Prefers vegetarian meals"),
        (["Prefers window seats", "Likes a seat by the window"], "Prefers window seats"),
        (["Was vegetarian until 2024", "Ate only vegetarian meals"], "Was vegetarian until 2024"),
    ],
)
def test_honest_merges_still_pass(sources, merged):
    assert unsupported_claims(merged, sources) == []


def test_the_merged_note_passes_the_write_policy_it_is_given():
    a = note("Prefers aisle seats", "2026-01-02", keywords=["seat"])
    b = note("Likes aisle seats", "2026-06-02", keywords=["seat"])
    # The model writes the merge in the first person: the default policy refuses it.
    with pytest.raises(PlanRejected, match="write policy"):
        apply_merge([a], [b], "I like aisle seats", ["seat"])
    notes, report = apply_merge(
        [a],
        [b],
        "I like aisle seats",
        ["seat"],
        write_policy=DEFAULT_WRITE_POLICY.without("first_person"),
    )
    assert report.created


async def test_consolidate_uses_the_states_policy_unless_given_one():
    state = MemoryState(
        pinned_now="2026-11-30T09:00:00Z",
        session_notes=[note("I like aisle seats", keywords=["seat"])],
    )
    report = await consolidate(state)
    assert [d.outcome for d in report.decisions.values()] == ["blocked"]
    state = MemoryState(
        pinned_now="2026-11-30T09:00:00Z",
        session_notes=[note("I like aisle seats", keywords=["seat"])],
    )
    report = await consolidate(state, write_policy=DEFAULT_WRITE_POLICY.without("first_person"))
    assert [d.outcome for d in report.decisions.values()] == ["added"]


async def test_merge_notes_falls_back_when_the_model_recombines():
    brisbane = note("Lives in Brisbane", "2025-11-02", keywords=["home"], kind="fact")
    sydney = note("Moved to Sydney", "2026-08-25", keywords=["home"], kind="fact")
    step = {"json": merge_plan([brisbane, sydney], "Moved to Brisbane").model_dump()}
    merged, report = await merge_notes([brisbane], [sydney], ScriptedModel([step]), clock=CLOCK)
    assert "recombines" in report.fallback_reason
    assert "Moved to Brisbane" not in [n.text for n in merged]


async def test_a_merge_that_drops_a_sources_fact_keeps_that_source_as_it_is():
    # What the embedded model did in home_move_over_three_sessions: the new note shares the
    # keywords "seat" and "flight" with the aisle note, and the merged note drops "Melbourne".
    aisle = note("Prefers aisle seats", "2026-11-02", keywords=["seat", "flight"])
    melbourne = note("Prefers Melbourne (seat, flight)", "2026-11-16", keywords=["seat", "flight"])
    step = {"json": merge_plan([aisle, melbourne], "Prefers aisle seats", ["seat"]).model_dump()}
    merged, report = await merge_notes([aisle], [melbourne], ScriptedModel([step]), clock=CLOCK)
    live = [n.text for n in merged if n.status == "active"]
    assert "Prefers Melbourne (seat, flight)" in live and "Prefers aisle seats" in live
    assert any("drops melbourn" in o for o in report.overruled), report.overruled
    assert report.model_used and report.fallback_reason is None


async def test_a_keyword_naming_a_place_or_time_the_text_does_not_state_stays_out_of_memory():
    # What the embedded model did in cold_start: "Vegetarian" saved with the keyword "hobart"
    # from "I'm vegetarian. Can you help me plan a weekend in Hobart?". Keywords reach every
    # later prompt, so the one-off trip would ride along with the lasting diet.
    diet = note("Vegetarian", "2026-11-30", keywords=["vegetarian", "hobart", "next friday"])
    home = note("Lives in Hobart", "2026-11-30", keywords=["home", "hobart"])
    merged, report = await merge_notes([], [diet, home], None, clock=CLOCK)
    by_text = {n.text: n for n in merged}
    assert by_text["Vegetarian"].keywords == ["vegetarian"]
    assert by_text["Lives in Hobart"].keywords == ["home", "hobart"]  # its text says it
    assert "hobart, next friday dropped" in report.decisions[diet.id].reason
