"""Red-team ids (new inputs, written for this file): a session note whose id another note already
holds (a note edited after it was merged, an id given twice) was skipped as "already merged" and
then cleared from the session: lost. It now joins global memory under an id of its own."""

from helpers.consolidation import consolidate, deterministic_merge
from helpers.state import MemoryNote, MemoryState, fixed_clock

CLOCK = fixed_clock("2026-11-30T09:00:00Z")
AISLE = MemoryNote("Prefers aisle seats", "2026-01-02", ["seat"])


def live(notes):
    return sorted(n.text for n in notes if n.is_live(CLOCK))


def test_a_session_note_with_a_global_notes_id_but_other_text_is_not_lost():
    edited = MemoryNote("Is allergic to shellfish", "2026-11-29", ["allergy"], id=AISLE.id)
    merged, report = deterministic_merge([AISLE], [edited], clock=CLOCK)
    assert live(merged) == sorted([AISLE.text, edited.text])  # before: only the aisle note
    assert report.decisions[AISLE.id].outcome == "kept"
    assert [d.outcome for d in report.decisions.values() if d.note_id != AISLE.id] == ["added"]


def test_two_session_notes_sharing_an_id_both_join_and_a_rerun_changes_nothing():
    a = MemoryNote("Is allergic to shellfish", "2026-11-29", ["allergy"], id="mem_same")
    b = MemoryNote("Travels with a guide dog", "2026-11-29", ["dog"], id="mem_same")
    merged, _ = deterministic_merge([], [a, b], clock=CLOCK)
    assert live(merged) == sorted([a.text, b.text]) and len({n.id for n in merged}) == 2
    again, report = deterministic_merge(merged, [a, b], clock=CLOCK)
    assert again == merged and {d.outcome for d in report.decisions.values()} == {"already_merged"}


async def test_consolidate_keeps_the_note_and_clears_the_session():
    state = MemoryState()
    state.clock = CLOCK
    state.global_notes = [AISLE]
    state.session_notes = [MemoryNote("Is allergic to shellfish", "2026-11-29", ["allergy"], id=AISLE.id)]
    await consolidate(state)
    assert live(state.global_notes) == sorted([AISLE.text, "Is allergic to shellfish"])
    assert state.session_notes == []
