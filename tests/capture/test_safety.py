"""helpers.safety: a captured note about health or safety is stored "restricted", in the languages
data/safety/terms.json lists, and nothing else is (a wrong match would put a note first)."""

import pytest

from helpers.safety import SAFETY_SENSITIVITY, about_health_or_safety, sensitivity_of
from helpers.state import MemoryState
from helpers.tools import capture_note


@pytest.mark.parametrize("text", [
    "Severe peanut allergy: always request a nut-free meal",
    "Is allergic to shellfish",
    "Type 2 diabetic, needs meals at regular times",
    "Uses a wheelchair and needs step-free access",
    "Schwere Erdnussallergie",  # a German compound: the stem inside the word
    "Es alérgica a los mariscos",  # accents folded
    "Tiene asma",
    "Аллергия на орехи",
    "エビとカニのアレルギーあり",
    "对花生过敏",
    "땅콩 알레르기가 있음",
])
def test_health_and_safety_notes_are_restricted(text):
    assert about_health_or_safety(text) and sensitivity_of(text) == SAFETY_SENSITIVITY


@pytest.mark.parametrize("text", [
    "Usually prefers an aisle seat on flights",
    "Prefers Pin Oak Lodge in Tasmania",  # "asma" only at a word's start
    "Best inbox for her: tom_w@fastmail.com",  # "astm" likewise
    "Likes peanut butter on toast",
    "Is vegetarian",
    "Lebt in Hamburg",
])
def test_other_notes_stay_personal(text):
    assert not about_health_or_safety(text) and sensitivity_of(text) == "personal"


def test_a_keyword_is_enough():
    assert sensitivity_of("Needs the nut-free meal", ["allergy", "meal"]) == SAFETY_SENSITIVITY


def test_the_capture_tool_stores_the_sensitivity():
    state = MemoryState(pinned_now="2026-11-30T09:00:00Z", session_id="s1", turn_index=1)
    capture_note(state, "Severe peanut allergy", ["allergy"], "fact")
    capture_note(state, "Prefers aisle seats", ["seat"])
    assert [(n.text, n.sensitivity) for n in state.session_notes] == [
        ("Severe peanut allergy", "restricted"), ("Prefers aisle seats", "personal")]
