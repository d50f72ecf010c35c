"""Red-team supersedes (new inputs, written for this file): a newer note about someone named
("Tom eats meat"), or written in another language, must not retire the user's own note, whether a
model plan or the attribute rules propose it; an honest change still retires the old note."""

import pytest
from agents import set_tracing_disabled

from helpers.attributes import attributes_of, named_subject
from helpers.consolidation import merge_notes
from helpers.state import fixed_clock
from tests.scripted_model import ScriptedModel
from tests.conftest import note

set_tracing_disabled(True)
CLOCK = fixed_clock("2026-11-30T09:00:00Z")


def plan(decisions):
    return {"json": {"decisions": [{"id": i, "action": a, "other_id": o, "reason": "t"} for i, a, o in decisions],
                     "notes": []}}


async def run(older, newer, keywords, action):
    old = note(older, "2026-01-02", keywords=keywords, kind="fact")
    new = note(newer, "2026-11-29", keywords=keywords, kind="fact")
    decisions = [(old.id, "supersede", new.id), (new.id, "keep", "")] if action == "supersede" else \
        [(old.id, "keep", ""), (new.id, "keep", "")]
    merged, report = await merge_notes([old], [new], ScriptedModel([plan(decisions)]), clock=CLOCK)
    return sorted(n.text for n in merged if n.is_live(CLOCK)), report


@pytest.mark.parametrize("action", ["supersede", "keep"])  # the model's supersede, or the rules' own pairing
@pytest.mark.parametrize("older, newer, keywords", [
    ("Is vegetarian", "Tom eats meat", ["diet"]),
    ("Lives in Perth", "Tom moved to Hobart", ["home"]),
    ("Prefers aisle seats", "Maya Lee prefers window seats", ["seat"]),
])
async def test_a_note_about_a_named_person_never_retires_the_users_note(older, newer, keywords, action):
    live, report = await run(older, newer, keywords, action)
    assert live == sorted([older, newer]), report.summary()  # before: the user's note was superseded


@pytest.mark.parametrize("older, newer, keywords", [
    ("Is vegetarian", "Mi hermano come carne", ["diet"]),
    ("Is vegetarian", "Mein Bruder isst Fleisch", ["diet"]),
    ("Lives in Perth", "Мой брат переехал в Хобарт", ["home"]),
])
async def test_a_newer_note_that_gives_no_value_for_the_attribute_goes_to_the_user(older, newer, keywords):
    # Sharing a topic tag, the model is asked, and says "supersede": the rules cannot read the newer
    # note's diet or home, so it replaces nothing they know of; the user decides.
    live, report = await run(older, newer, keywords, "supersede")
    assert live == sorted([older, newer]), report.summary()
    [conflict] = report.needs_user
    assert "differ in" in conflict.reason


@pytest.mark.parametrize("older, newer", [
    ("Is vegetarian", "Eats meat again"),
    ("Lives in Perth", "Moved to Hobart"),
    ("Prefers aisle seats", "Prefers window seats"),
])
async def test_an_honest_change_still_retires_the_older_note(older, newer):
    live, report = await run(older, newer, ["x"], "supersede")
    assert live == [newer], report.summary()


@pytest.mark.parametrize("text, name", [
    ("Tom eats meat", "Tom"), ("Maya Lee prefers window seats", "Maya Lee"),
    ("Usually prefers an aisle seat on flights", None), ("Prefers seats by the window", None),
    ("Is vegetarian", None), ("Moved to Melbourne", None), ("Qantas is preferred", None),
])
def test_named_subject_reads_the_name_a_note_opens_with(text, name):
    assert named_subject(text) == name
    if name:
        assert attributes_of(text) == {}
