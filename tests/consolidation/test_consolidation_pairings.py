"""Red-team plans (new inputs, written for this file): each word of the written note is a
source's, but the note says something no source says, because the words are in another order
where order is the claim ("Qantas over Jetstar" -> "Jetstar over Qantas"), a number moved to
another noun, or a restricting word ("only", "under") was dropped or turned around. The plan
must be refused, or the source it would widen kept as it is; honest merges still apply."""


import pytest
from agents import set_tracing_disabled
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.consolidation import merge_notes, unsupported_claims
from helpers.state import fixed_clock
from tests.conftest import note
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)
CLOCK = fixed_clock("2026-11-30T09:00:00Z")



def merge_all(sources, text):
    return {"json": {
        "decisions": [{"id": s.id, "action": "merge", "other_id": "", "reason": "t"} for s in sources],
        "notes": [{"text": text, "keywords": [], "kind": "preference", "source_ids": [s.id for s in sources]}],
    }}


async def run(old_text, new_text, written):
    old, new = note(old_text, "2026-01-02"), note(new_text, "2026-11-29")
    merged, report = await merge_notes([old], [new], ScriptedModel([merge_all([old, new], written)]), clock=CLOCK)
    live = sorted(n.text for n in merged if n.is_live(CLOCK))
    return live, report


@pytest.mark.parametrize("old, new, written", [
    # Two pairings swapped: every word and every count is a source's.
    ("Flies Qantas to Tokyo and JAL to Osaka", "Books Qantas to Tokyo, JAL to Osaka for work trips",
     "Flies JAL to Tokyo and Qantas to Osaka for work trips"),
    # A comparative turned around.
    ("Prefers trains over buses for short trips", "Picks trains over buses for short trips",
     "Prefers buses over trains for short trips"),
    # Numbers moved to the other noun.
    ("Travels with 2 kids and 1 dog", "Brings 2 kids and 1 dog along", "Travels with 1 kid and 2 dogs along"),
    # A limit turned around ("over" is a stopword, so no word check saw it).
    ("Spends under 300 AUD a week on car hire", "Car hire budget under 300 AUD a week",
     "Car hire budget over 300 AUD a week"),
])
async def test_a_written_note_that_reorders_its_sources_words_is_refused(old, new, written):
    live, report = await run(old, new, written)
    assert written not in live, report.summary()
    assert live == sorted([old, new])
    assert report.fallback_reason and "invented" in report.fallback_reason


@pytest.mark.parametrize("old, new, written, dropped", [
    ("Prefers aisle seats only on trains", "Books an aisle seat only on trains", "Prefers aisle seats on trains",
     "only"),
    ("Spends under 90 AUD a day on car hire", "Car hire budget under 90 AUD a day", "Car hire budget 90 AUD a day",
     "under"),
])
async def test_a_merge_that_drops_a_restricting_word_keeps_its_sources(old, new, written, dropped):
    # Before: both sources retired into a note that says more than either ("on trains", any budget).
    live, report = await run(old, new, written)
    assert new in live, report.summary()
    assert any(f"drops {dropped}" in o or f", {dropped}" in o for o in report.overruled), report.overruled


@pytest.mark.parametrize("old, new, written", [
    ("Prefers trains over buses for short trips", "Picks trains over buses for short trips",
     "Prefers trains over buses for short trips"),
    ("Flying to Tokyo on 2026-12-05", "Flight to Tokyo departs 2026-12-05", "Flying to Tokyo, departs 2026-12-05"),
    ("Travels with 2 kids", "Brings 2 kids along", "Travels with 2 kids"),
])
async def test_an_honest_merge_in_the_sources_order_still_applies(old, new, written):
    live, report = await run(old, new, written)
    assert report.model_used and report.fallback_reason is None, report.summary()
    assert written in live


NOUNS = ["trains", "buses", "ferries", "Qantas", "Jetstar", "Tokyo", "Osaka", "Lyon", "hostels", "museums"]
RELATING = ["over", "than", "to", "before", "after", "instead of"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(NOUNS), min_size=2, max_size=2, unique=True), st.sampled_from(RELATING))
def test_swapping_the_two_sides_of_a_relating_word_is_always_an_invention(pair, relating):
    a, b = pair
    sources = [f"Prefers {a} {relating} {b}", f"Likes {a} {relating} {b}"]
    assert unsupported_claims(f"Prefers {a} {relating} {b}", sources) == []
    assert unsupported_claims(f"Prefers {b} {relating} {a}", sources) != []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["kids", "dogs", "bags", "rooms", "nights"]), min_size=2, max_size=2, unique=True),
       st.lists(st.integers(1, 9), min_size=2, max_size=2, unique=True))
def test_moving_numbers_between_nouns_is_always_an_invention(nouns, counts):
    (x, y), (m, n) = nouns, counts
    source = f"Travels with {m} {x} and {n} {y}"
    assert unsupported_claims(f"Travels with {n} {y} and {m} {x}", [source]) == []  # same pairs, other order
    assert unsupported_claims(f"Travels with {n} {x} and {m} {y}", [source]) != []




@pytest.mark.parametrize("sources, written", [
    # German: "als" is no relating word the rules know; the nouns' order is the claim.
    (["Fährt lieber Zug als Bus", "Nimmt lieber den Zug als den Bus"], "Fährt lieber Bus als Zug"),
    # French: "plutôt que" likewise.
    (["Prend Air France plutôt que Lufthansa", "Choisit Air France plutôt que Lufthansa"],
     "Prend Lufthansa plutôt que Air France"),
])
async def test_a_word_order_swap_in_another_language_is_refused(sources, written):
    live, report = await run(sources[0], sources[1], written)
    assert written not in live and "which no source does" in report.fallback_reason, report.summary()
    assert unsupported_claims(sources[0], sources) == []
