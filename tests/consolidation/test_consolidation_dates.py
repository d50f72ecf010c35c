"""Red-team dates (new inputs, written for this file): recency decides a supersede only when the
two notes can be ordered. The same instant written two ways, or a note dated after now, used to
let the model's naming (or a typo in a year) decide which fact was retired."""

import pytest
from agents import set_tracing_disabled

from helpers.consolidation import merge_notes
from helpers.state import MemoryNote, fixed_clock
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)
CLOCK = fixed_clock("2026-11-30T09:00:00Z")


def plan(decisions):
    return {"json": {"decisions": [{"id": i, "action": a, "other_id": o, "reason": "t"} for i, a, o in decisions],
                     "notes": []}}


@pytest.mark.parametrize("aisle_at, window_at, why", [
    ("2026-11-29", "2026-11-29T00:00:00+00:00", "same date"),  # one instant, two spellings
    ("2026-11-29T10:00:00+10:00", "2026-11-29T00:00:00Z", "same date"),
    ("2099-01-01", "2026-11-29", "dated after now"),  # a typo in the year
    ("2026-11-30T09:00:01Z", "2026-11-29", "dated after now"),
])
async def test_a_supersede_between_notes_that_cannot_be_ordered_goes_to_the_user(aisle_at, window_at, why):
    aisle = MemoryNote("Prefers aisle seats", aisle_at, ["seat"])
    window = MemoryNote("Prefers window seats", window_at, ["seat"])
    # The model names the window note as the one replaced.
    model = ScriptedModel([plan([(window.id, "supersede", aisle.id), (aisle.id, "keep", "")])])
    merged, report = await merge_notes([aisle], [window], model, clock=CLOCK)
    assert sorted(n.text for n in merged if n.is_live(CLOCK)) == [aisle.text, window.text], report.summary()
    [conflict] = report.needs_user
    assert why in conflict.reason


async def test_notes_that_can_be_ordered_are_still_decided_by_recency():
    aisle = MemoryNote("Prefers aisle seats", "2026-11-29T10:00:00+10:00", ["seat"])  # 00:00 UTC
    window = MemoryNote("Prefers window seats", "2026-11-29T01:00:00Z", ["seat"])
    model = ScriptedModel([plan([(window.id, "supersede", aisle.id), (aisle.id, "keep", "")])])
    merged, report = await merge_notes([aisle], [window], model, clock=CLOCK)
    assert [n.text for n in merged if n.is_live(CLOCK)] == [window.text], report.summary()
