"""Consolidation keeps frequency and hedge words as part of the fact: a merge may not drop
"usually", and two notes that differ in one are not duplicates (any language the merge reads)."""

import pytest

from helpers.consolidation import (
    ConsolidationPlan, PlanRejected, apply_plan, carries, deterministic_merge, hedges, is_near_duplicate,
    merge_notes,
)
from helpers.state import MemoryNote, fixed_clock
from tests.scripted_model import ScriptedModel

CLOCK = fixed_clock("2026-11-30T09:00:00Z")


@pytest.mark.parametrize("hedged, plain", [
    ("Usually prefers an aisle seat on flights", "Prefers an aisle seat on flights"),
    ("Rarely drinks coffee on early flights", "Drinks coffee on early flights"),
    ("Sometimes travels with her sister", "Travels with her sister"),
    ("Mostly books hotels near the station", "Books hotels near the station"),
    ("Bucht meistens Hotels am Bahnhof", "Bucht Hotels am Bahnhof"),
    ("Prend souvent le train de nuit", "Prend le train de nuit"),
    ("A veces viaja con su hermana", "Viaja con su hermana"),
    ("Flies economy most of the time", "Flies economy"),
])
def test_a_hedge_makes_another_fact(hedged, plain):
    assert hedges(hedged) and not hedges(plain)
    assert not is_near_duplicate(hedged, plain)
    assert not carries(plain, hedged)  # the plain note does not say all the hedged one says


def plan(sources, text):
    return ConsolidationPlan.model_validate({
        "decisions": [{"id": n.id, "action": "merge", "other_id": "", "reason": "same"} for n in sources],
        "notes": [{"text": text, "keywords": ["seat"], "kind": "preference", "source_ids": [n.id for n in sources]}]})


def merge(text, sources):
    notes, report = deterministic_merge([sources[0]], sources[1:], clock=CLOCK)
    return apply_plan(notes, report, plan(sources, text), sources)


OLD = MemoryNote("Usually prefers an aisle seat on flights", "2026-03-14", ["seat", "flight"])
NEW = MemoryNote("Prefers aisle seats", "2026-11-30", ["seat"])


def test_a_merge_that_drops_usually_is_refused_and_the_hedged_note_stays_as_it_is():
    with pytest.raises(PlanRejected, match="invented|usually"):
        merge("Prefers aisle seats on flights", [OLD, NEW])


async def test_consolidation_with_that_plan_keeps_usually_in_memory():
    step = {"json": plan([OLD, NEW], "Prefers aisle seats on flights").model_dump()}
    notes, report = await merge_notes([OLD], [NEW], ScriptedModel([step]), clock=CLOCK)
    live = [n.text for n in notes if n.is_live(CLOCK)]
    assert OLD.text in live and report.fallback_reason


def test_a_merge_that_keeps_usually_retires_both_sources_into_it():
    notes, report = merge("Usually prefers aisle seats on flights", [OLD, NEW])
    [created] = [n for n in notes if n.id in report.created]
    assert created.text.startswith("Usually") and report.decisions[OLD.id].outcome == "merged"
