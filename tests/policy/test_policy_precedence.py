"""Red-team inputs for the memory policy's precedence (new, written for this file): what the prompt
shows must let a model apply "latest message > session notes > global notes, newest note wins
within a list" on notes with odd dates, time zones, ties, expiries and superseded notes."""

import re
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.hooks import render_prompt
from helpers.render import render_notes, select_notes
from helpers.state import MemoryNote, MemoryState, fixed_clock

CLOCK = fixed_clock("2026-11-30T09:00:00Z")


def dates_shown(text):
    return re.findall(r"^- \[(\d{4}-\d{2}-\d{2})\]", text, re.M)


def test_a_note_written_in_a_time_zone_ahead_shows_the_day_it_sorts_by():
    # 01:00 on 15 March in Sydney is 14 March 15:00 UTC: older than 20:00 UTC on 14 March.
    east = MemoryNote("Prefers window seats", "2026-03-15T01:00:00+10:00", ["seat"])
    utc = MemoryNote("Prefers aisle seats", "2026-03-14T20:00:00Z", ["seat"])
    text = render_notes([east, utc], CLOCK)
    # Before: aisle (newer) first but dated 14 March, window dated 15 March: by the dates shown the
    # older note was the newest, and "the newest note wins" picked it.
    assert text.splitlines() == ["- [2026-03-14] Prefers aisle seats (seat)", "- [2026-03-14] Prefers window seats (seat)"]


offsets = st.integers(-12 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
# Within three days of each other, so notes straddle midnight in one zone or another.
instants = st.integers(0, 3 * 24 * 60).map(lambda m: datetime(2026, 3, 13, tzinfo=UTC) + timedelta(minutes=m))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(instants, offsets, st.booleans()), min_size=2, max_size=6))
def test_the_dates_shown_never_contradict_the_newest_first_order(notes):
    # Any mix of zones, with or without a time: the dates shown read newest first, as the notes do.
    made = [MemoryNote(f"note {i}", (at.astimezone(zone).isoformat() if with_time else at.date().isoformat()))
            for i, (at, zone, with_time) in enumerate(notes)]
    shown = dates_shown(render_notes(made, CLOCK))
    assert shown == sorted(shown, reverse=True)


def test_session_notes_win_over_a_newer_global_note_and_dead_notes_never_show():
    # A "this time" session note older than a global note written since (another device's session):
    # the session list still comes as the session list; expired and superseded notes never show.
    state = MemoryState()
    state.clock = CLOCK
    durable = MemoryNote("Usually prefers aisle seats", "2026-11-30T08:00:00Z", ["seat"])
    this_time = MemoryNote("Window seat this time", "2026-11-30T07:00:00+00:00", ["seat"], scope="session")
    expired = MemoryNote("Middle seat for this flight", "2026-11-30T08:30:00Z", ["seat"], scope="session",
                         expires_at="2026-11-30T08:59:00Z")
    old_global = MemoryNote("Prefers exit rows", "2026-01-01", ["seat"], status="superseded",
                            superseded_by=durable.id)
    state.global_notes, state.session_notes = [durable, old_global], [this_time, expired]
    prompt = render_prompt(state).text
    assert "Window seat this time" in prompt and "Usually prefers aisle seats" in prompt
    assert "Middle seat" not in prompt and "exit rows" not in prompt
    session_block = prompt[prompt.index("<session_memory>"):prompt.index("</session_memory>")]
    assert "Window seat this time" in session_block and "aisle" not in session_block


def test_a_same_instant_tie_keeps_the_stored_order():
    # Newest-first cannot break an exact tie; the order is the stored order, never a random one.
    a = MemoryNote("Prefers aisle seats", "2026-11-29T10:00:00Z")
    b = MemoryNote("Prefers window seats", "2026-11-29T20:00:00+10:00")  # the same instant
    assert [n.text for n in select_notes([a, b], CLOCK).kept] == [a.text, b.text]
    assert [n.text for n in select_notes([b, a], CLOCK).kept] == [b.text, a.text]
