from datetime import timedelta

import pytest

from helpers.render import (
    BEYOND_TOP_K, DELETED, EXPIRED, FILTERED, NONE_LINE, SUPERSEDED, format_notes, matches_keywords,
    render_frontmatter, render_note_line, render_notes, select_notes,
)
from helpers.state import fixed_clock, load_example_state
from tests.conftest import note

NOW = "2026-11-30T09:00:00Z"
clock = fixed_clock(NOW)


def test_frontmatter_is_yaml_between_dashes_in_given_key_order():
    assert render_frontmatter({"name": "Maya Chen", "home_airport": "SYD", "tags": ["a", "b"]}) == (
        "---\nname: Maya Chen\nhome_airport: SYD\ntags:\n- a\n- b\n---"
    )


def test_frontmatter_keeps_unicode_and_rejects_bad_input():
    assert "name: José" in render_frontmatter({"name": "José"})
    with pytest.raises(TypeError, match="must be a dict"):
        render_frontmatter([("name", "x")])
    with pytest.raises(ValueError, match="plain data"):
        render_frontmatter({"when": object()})


def test_note_line_shows_date_text_and_keywords():
    n = note("Usually prefers an aisle seat on flights", "2026-03-14", keywords=["seat", "flight"])
    assert render_note_line(n) == "- [2026-03-14] Usually prefers an aisle seat on flights (seat, flight)"
    assert render_note_line(note("Vegetarian", "2026-04-01T18:30:00+10:00")) == "- [2026-04-01] Vegetarian"


def test_notes_are_newest_first_top_k_and_none_when_empty():
    notes = [note("old", "2026-01-01"), note("newest", "2026-06-01"), note("middle", "2026-03-01")]
    assert render_notes(notes, clock) == "- [2026-06-01] newest\n- [2026-03-01] middle\n- [2026-01-01] old"
    assert render_notes(notes, clock, k=2) == "- [2026-06-01] newest\n- [2026-03-01] middle"
    assert render_notes([], clock) == NONE_LINE == "- (none)"
    assert render_notes(notes, clock, k=0) == "- (none)"
    assert render_notes([], clock, heading="GLOBAL memory:") == "GLOBAL memory:\n- (none)"


def test_keyword_filter_keeps_a_note_when_any_keyword_matches():
    seat = note("Prefers an aisle seat", "2026-01-01", keywords=["seat", "flight"])
    hotel = note("Likes quiet hotel rooms", "2026-02-01", keywords=["hotel"])
    meal = note("Vegetarian meals please", "2026-03-01", keywords=["dietary"])
    kept, left_out = select_notes([seat, hotel, meal], clock, keywords=["FLIGHT", "meals"])
    assert kept == [meal, seat]  # "meals" is a word of the text; "FLIGHT" a keyword, any case
    assert left_out == [(hotel, FILTERED)]
    assert not matches_keywords(hotel, ["hot"])  # whole words only


def test_dead_notes_are_never_rendered_and_say_why():
    live = note("Window seat fan", "2026-05-01")
    gone = note("Deleted thing", "2026-10-01", status="deleted")
    old = note("Old home", "2026-09-01", status="superseded")
    past = note("Conference trip", "2026-09-15", expires_at="2026-10-31")
    at_now = note("Ends right now", "2026-09-16", expires_at=NOW)  # expiry is inclusive of "now"
    marked = note("Marked expired", "2026-09-17", status="expired")
    kept, left_out = select_notes([live, gone, old, past, at_now, marked], clock)
    assert kept == [live]
    assert {n.text: reason for n, reason in left_out} == {
        "Deleted thing": DELETED, "Old home": SUPERSEDED, "Conference trip": EXPIRED,
        "Ends right now": EXPIRED, "Marked expired": EXPIRED,
    }
    text = render_notes([live, gone, old, past, at_now, marked], clock)
    assert text == "- [2026-05-01] Window seat fan"
    # One second earlier, the note that expires at NOW is still live.
    earlier = select_notes([at_now], lambda: clock() - timedelta(seconds=1))
    assert earlier.kept == [at_now]


def test_top_k_counts_only_notes_that_passed_the_other_filters():
    notes = [note(f"n{i}", f"2026-0{i}-01") for i in range(1, 5)] + [note("dead", "2026-09-01", status="deleted")]
    kept, left_out = select_notes(notes, clock, k=2)
    assert [n.text for n in kept] == ["n4", "n3"]
    assert [(n.text, r) for n, r in left_out] == [("dead", DELETED), ("n2", BEYOND_TOP_K), ("n1", BEYOND_TOP_K)]
    with pytest.raises(ValueError, match="non-negative"):
        select_notes(notes, clock, k=-1)


def test_example_state_leaves_out_the_expired_trip_and_the_old_home():
    state = load_example_state()
    kept, left_out = select_notes(state.global_notes, clock)
    assert [(n.id, r) for n, r in left_out] == [(left_out[0].note.id, EXPIRED), ("mem_brisbane", SUPERSEDED)]
    assert "Lisbon" in left_out[0].note.text
    assert format_notes(kept).splitlines()[0] == "- [2026-08-25] Lives in Sydney since moving in August 2026 (home)"
    assert len(kept) == 5


def test_a_naive_clock_is_read_as_utc_when_a_note_expires():
    from datetime import datetime

    soon = note("Attending a conference in Lisbon", "2026-11-01", expires_at="2026-11-30T10:00:00Z")
    assert not soon.is_expired(lambda: datetime(2026, 11, 30, 9, 59))  # raised TypeError before
    assert soon.is_expired(lambda: datetime(2026, 11, 30, 10, 0))
