"""Which keywords join long-term memory: topics the note's text grounds, never a one-off's place,
date, name or number. The rule reads no list of places, so it holds for text we never saw."""

import pytest

from helpers.catalogue import default_catalogue
from helpers.consolidation import deterministic_merge, split_keywords
from helpers.state import fixed_clock
from tests.conftest import notes_dated

CLOCK = fixed_clock("2026-11-30T09:00:00Z")
# Places our travel catalogue does not name: held-out text for a rule that must not read it.
UNSEEN_PLACES = ["reykjavik", "kyoto", "marrakech", "nairobi", "vancouver"]


note = notes_dated("2026-11-30")


def test_the_unseen_places_are_not_in_the_catalogue():
    known = {a["city"].casefold() for a in default_catalogue().airports}
    known |= {a["code"].casefold() for a in default_catalogue().airports}
    assert not known & set(UNSEEN_PLACES)


@pytest.mark.parametrize("place", UNSEEN_PLACES + ["Reykjavik", "Kyoto"])
def test_a_place_no_catalogue_names_is_dropped_when_the_text_does_not_state_it(place):
    kept, dropped = split_keywords(note("Is vegetarian", keywords=["diet", place]))
    assert (kept, dropped) == (["diet"], [place])


@pytest.mark.parametrize("place", ["reykjavik", "Reykjavik", "kyoto"])
def test_a_place_the_text_states_stays_a_keyword(place):
    kept, dropped = split_keywords(note(f"Lives in {place.title()}", keywords=["home", place]))
    assert (kept, dropped) == (["home", place], [])


@pytest.mark.parametrize("one_off", ["sarah", "hilton", "next friday", "saturday", "june 14", "2027",
                                     "this", "weekend in kyoto"])
def test_a_name_date_or_number_the_text_does_not_state_is_dropped(one_off):
    kept, dropped = split_keywords(note("Prefers an aisle seat", keywords=["seat", one_off]))
    assert (kept, dropped) == (["seat"], [one_off])


@pytest.mark.parametrize(("text", "keywords"), [
    ("Prefers the aisle", ["seat", "flight"]),
    ("Is vegetarian", ["diet"]),
    ("Likes small places near the old town", ["hotel"]),
    ("Flies with Qantas when it can", ["airline", "qantas"]),
    ("Prefers window seats", ["window", "seat"]),
    ("Needs 2 checked bags", ["2 bags"]),
    ("Is allergic to peanuts", ["peanut", "food"]),
])
def test_topic_keywords_stay(text, keywords):
    assert split_keywords(note(text, keywords=keywords)) == (keywords, [])


def test_the_merge_keeps_the_topic_and_says_which_keywords_it_dropped():
    diet = note("Vegetarian", keywords=["vegetarian", "reykjavik", "next friday"])
    home = note("Lives in Reykjavik", keywords=["home", "reykjavik"])
    notes, report = deterministic_merge([], [diet, home], clock=CLOCK)
    by_text = {n.text: n for n in notes}
    assert by_text["Vegetarian"].keywords == ["vegetarian"]
    assert by_text["Lives in Reykjavik"].keywords == ["home", "reykjavik"]
    assert "reykjavik, next friday dropped" in report.decisions[diet.id].reason
    assert diet.keywords == ["vegetarian", "reykjavik", "next friday"]  # the input is not modified


def test_the_rule_reads_no_catalogue(monkeypatch):
    import helpers.catalogue

    def no_catalogue():
        raise AssertionError("split_keywords read the travel catalogue")

    monkeypatch.setattr(helpers.catalogue, "default_catalogue", no_catalogue)
    assert split_keywords(note("Lives in Hobart", keywords=["home", "hobart", "perth"])) == (["home", "hobart"], ["perth"])
