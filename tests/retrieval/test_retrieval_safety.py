"""Safety first: a health or safety note (sensitivity "restricted") that a request concerns
outranks a newer convenience note, in every language, because the rule reads the note's signal,
never its words."""

import pytest

from helpers.retrieval import LEFT_OUT_BELOW_THRESHOLD, rank, safety_first
from helpers.state import MemoryNote, parse_time
from helpers.store import MemoryStore

NOW = parse_time("2026-11-02T09:00:00Z")
MEAL = "Please order my meal for tomorrow's flight"


def notes(sensitivity):
    allergy = MemoryNote("Severe peanut allergy: always request a nut-free meal", "2024-02-01", kind="fact",
                         keywords=["allergy", "meal"], confidence=0.9, sensitivity=sensitivity)
    seat = MemoryNote("Usually prefers an aisle seat on flights", "2026-03-14", keywords=["seat", "flight"])
    return allergy, seat


def test_the_allergy_comes_before_the_newer_aisle_seat_for_a_meal_request():
    allergy, seat = notes("restricted")
    kept = rank([seat, allergy], MEAL, NOW, total_notes=2).kept
    assert [s.note.id for s in kept] == [allergy.id, seat.id]


def test_without_the_signal_the_newer_note_wins_so_the_rule_is_the_signal_not_the_words():
    allergy, seat = notes("personal")
    kept = rank([seat, allergy], MEAL, NOW, total_notes=2).kept
    assert kept[0].note.id == seat.id


@pytest.mark.parametrize("text, message", [
    ("Schwere Erdnussallergie", "Bitte bestelle ein Essen ohne Erdnussallergie-Risiko: Erdnussallergie beachten"),
    ("Uses a wheelchair on every trip", "Book a hotel room for my wheelchair trip"),
])
def test_any_restricted_note_the_request_concerns_comes_first(text, message):
    safety = MemoryNote(text, "2023-01-01", kind="fact", sensitivity="restricted", confidence=0.5)
    newer = MemoryNote(text + " and likes it quiet", "2026-10-30")
    ranking = rank([newer, safety], message, NOW, total_notes=2)
    assert ranking.kept[0].note.id == safety.id  # old and unsure, still first


def test_a_restricted_note_the_request_does_not_concern_stays_out():
    allergy, seat = notes("restricted")
    kept = rank([seat, allergy], "Which aisle seat on the flight?", NOW, total_notes=2).kept
    assert [s.note.id for s in kept] == [seat.id]


def test_an_old_safety_note_is_not_cut_by_the_score_threshold_but_a_plain_one_is():
    for sensitivity, kept in (("restricted", True), ("personal", False)):
        note = MemoryNote("Severe peanut allergy", "2016-01-01", kind="fact", sensitivity=sensitivity,
                          confidence=0.1, keywords=["allergy", "meal"])
        ranking = rank([note], "order a meal, mind my allergy", NOW, total_notes=1, threshold=0.9)
        assert bool(ranking.kept) is kept
        if not kept:
            assert ranking.dropped[0][1] == LEFT_OUT_BELOW_THRESHOLD


def test_the_store_search_puts_safety_first():
    allergy, seat = notes("restricted")
    with MemoryStore.open(clock=lambda: NOW) as store:
        maya = store.for_user("acme", "maya")
        maya.add_notes([seat, allergy])
        assert maya.search(MEAL)[0].note.text == allergy.text
    assert safety_first(allergy) == 1 and safety_first(seat) == 0


def test_the_injected_selection_lists_the_allergy_first():
    from helpers.hooks import render_prompt
    from helpers.policy import Policy
    from helpers.state import MemoryState

    allergy, seat = notes("restricted")
    trips = [MemoryNote(f"Took a walking tour in city {i}", "2026-05-01") for i in range(40)]
    with MemoryStore.open(clock=lambda: NOW) as store:
        maya = store.for_user("acme", "maya")
        maya.add_notes([seat, allergy, *trips])
        state = maya.load_state()
        assert isinstance(state, MemoryState)
        block = render_prompt(state, policy=Policy(k=None), memory=maya, query=MEAL).sections["global_memory"]
    lines = [line for line in block.splitlines() if line.startswith("- ")]
    assert "peanut" in lines[0] and "aisle" in lines[1]


async def test_an_allergy_captured_mid_conversation_outranks_the_seat_for_a_meal_request():
    # Through the SDK tool, as a model would save it: the capture sets the sensitivity (the model
    # sends no such argument), consolidation keeps it, and the store's search puts it first.
    from agents import Agent, Runner

    from helpers.consolidation import deterministic_merge
    from helpers.state import MemoryState
    from helpers.tools import save_memory_note
    from tests.scripted_model import ScriptedModel

    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Severe peanut allergy", "keywords": ["allergy", "meal"],
                                                   "kind": "fact"}},
        "Noted.",
    ])
    state = MemoryState(pinned_now="2024-02-01T09:00:00Z", session_id="s1", turn_index=1)
    agent = Agent[MemoryState](name="concierge", instructions="Help.", model=model, tools=[save_memory_note])
    await Runner.run(agent, "I have a severe peanut allergy.", context=state)
    [allergy] = state.session_notes
    assert allergy.sensitivity == "restricted"
    merged, _ = deterministic_merge([], state.session_notes, clock=lambda: NOW)
    _, seat = notes("personal")  # the newer seat note
    with MemoryStore.open(clock=lambda: NOW) as store:
        maya = store.for_user("acme", "maya")
        maya.add_notes([seat, *merged])
        assert [s.note.text for s in maya.search(MEAL)][:2] == ["Severe peanut allergy", seat.text]
