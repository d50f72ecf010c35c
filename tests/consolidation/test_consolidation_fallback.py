"""The rules-only merge is the fallback, so it must already settle what rules can settle: a
changed one-value attribute (home city, diet, seat...) retires the older value by recency
(superseded, kept). Before, a plan refused for any reason other than "merged a change" (a
recombination, an invented word, bad JSON) left both values live until the next consolidation."""

import re

import pytest
from agents import set_tracing_disabled

from helpers.consolidation import merge_notes, rules_only_merge
from helpers.state import MemoryNote, fixed_clock
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)
CLOCK = fixed_clock("2026-12-01T12:00:00Z")


def live(notes):
    return sorted(n.text for n in notes if n.is_live(CLOCK))


# (older global note, newer session note): a plain change of one attribute.
CHANGES = [
    ("Home base is Adelaide", "Relocated to Hobart last month", "home_city"),
    ("Follows a vegan diet", "Eats chicken again these days", "diet"),
    ("Books the window on every flight", "Books the aisle on every flight", "seat"),
    ("Flies in premium economy", "Flies in business class", "cabin"),
]


@pytest.mark.parametrize("old_text, new_text, attribute", CHANGES)
def test_the_rules_only_merge_retires_the_older_value(old_text, new_text, attribute):
    old = MemoryNote(old_text, "2026-04-03", ["x"])
    new = MemoryNote(new_text, "2026-11-28", ["x"])
    merged, report = rules_only_merge([old], [new], clock=CLOCK)
    assert live(merged) == [new_text], report.summary()
    retired = next(n for n in merged if n.id == old.id)
    assert retired.status == "superseded" and retired.superseded_by == new.id  # kept, not lost
    assert report.decisions[old.id].outcome == "superseded"
    assert attribute.replace("_", " ") in report.decisions[old.id].reason


BAD_PLANS = {
    "invalid JSON": "Here you go: {\"decisions\": [",
    "invented word": None,  # built per case: merges with a word no source has
    "unknown id": {"json": {"decisions": [{"id": "mem_nope", "action": "keep", "other_id": "", "reason": "x"}],
                            "notes": []}},
}


@pytest.mark.parametrize("fault", sorted(BAD_PLANS))
@pytest.mark.parametrize("old_text, new_text, attribute", CHANGES)
async def test_a_refused_plan_falls_back_to_a_merge_that_settles_the_change(fault, old_text, new_text, attribute):
    old = MemoryNote(old_text, "2026-04-03", ["x"])
    new = MemoryNote(new_text, "2026-11-28", ["x"])
    # Two related new notes, so the model is asked whatever happened to the change.
    other = MemoryNote("Likes quiet hotel rooms", "2026-11-28", ["hotel"])
    again = MemoryNote("Wants a quiet room in every hotel", "2026-11-28", ["hotel"])
    step = BAD_PLANS[fault]
    if step is None:
        def step(system, input, tools):  # keep every note shown, merge the two hotel notes into an invention
            shown = re.findall(r"^(mem_\w+) \|", str(input[0]["content"] if isinstance(input, list) else input), re.M)
            return {"json": {
                "decisions": [{"id": i, "action": "merge" if i in (other.id, again.id) else "keep",
                               "other_id": "", "reason": "x"} for i in shown],
                "notes": [{"text": "Likes quiet hotel rooms in Oslo", "keywords": [], "kind": "preference",
                           "source_ids": [other.id, again.id]}]}}
    model = ScriptedModel([step] * 2)
    merged, report = await merge_notes([old], [new, other, again], model, clock=CLOCK)
    rules, _ = rules_only_merge([old], [new, other, again], clock=CLOCK)
    assert model.calls
    if fault == "invented word":
        assert "'oslo' is not in its sources" in report.fallback_reason
    assert report.fallback_reason and not report.model_used
    assert merged == rules  # the fallback is exactly the rules-only merge
    assert new_text in live(merged) and old_text not in live(merged), report.summary()
    assert next(n for n in merged if n.id == old.id).status == "superseded"


def test_a_change_the_rules_cannot_confirm_goes_to_the_user_in_the_rules_only_merge():
    # The older note says more ("with two cats"): retiring it would lose that, so both stay and
    # the user is asked, with or without a model.
    old = MemoryNote("Lives in Perth with two cats", "2026-04-03", ["home"])
    new = MemoryNote("Moved to Darwin", "2026-11-28", ["home"])
    merged, report = rules_only_merge([old], [new], clock=CLOCK)
    assert live(merged) == sorted([old.text, new.text])
    [conflict] = report.needs_user
    assert set(conflict.note_ids) == {old.id, new.id}


def test_a_same_day_change_is_not_decided_by_the_rules():
    old = MemoryNote("Prefers window seats", "2026-11-28T08:00:00Z", ["seat"])
    new = MemoryNote("Prefers aisle seats", "2026-11-28T08:00:00+00:00", ["seat"])
    merged, report = rules_only_merge([old], [new], clock=CLOCK)
    assert live(merged) == sorted([old.text, new.text]) and report.needs_user
