"""Background consolidation merges into the live state: what changes during a run is never undone;
a timeout returns at once, even from a model that ignores cancellation."""

import asyncio
import time

from agents import Agent, Runner

from helpers.consolidation import consolidate, consolidate_in_background
from tests.scripted_model import ScriptedModel
from tests.consolidation.test_consolidation import PARAPHRASE, note, paraphrase_plan, session_state

MERGED = "Usually prefers an aisle seat on long flights"


class Gated(ScriptedModel):
    """Answers only when the test opens the gate, so the test can act while the run is in flight."""

    def __init__(self, steps):
        super().__init__(steps)
        self.asked, self.gate = asyncio.Event(), asyncio.Event()

    async def get_response(self, *args, **kwargs):
        self.asked.set()
        await self.gate.wait()
        return await super().get_response(*args, **kwargs)


async def run_while(state, change):
    """Start a background consolidation, apply `change` to the live state mid-run, then finish it."""
    model = Gated([paraphrase_plan(state)])
    task = consolidate_in_background(state, model)
    await model.asked.wait()
    change(state)
    model.gate.set()
    return await task


def live_texts(state):
    return [n.text for n in state.live_notes(state.clock, "global")]


def by_text(notes, text):
    return next(n for n in notes if n.text == text)


async def test_a_note_deleted_during_the_run_stays_deleted():
    state = session_state()
    aisle = by_text(state.global_notes, "Usually prefers an aisle seat on flights")
    report = await run_while(state, lambda s: s.global_notes.remove(aisle))  # the user said "forget that"
    assert aisle.id not in [n.id for n in state.global_notes]
    # Nor does it come back inside the note the model merged it into.
    assert MERGED not in live_texts(state)
    assert "changed during consolidation" in report.fallback_reason and aisle.id in report.fallback_reason
    assert PARAPHRASE.text in live_texts(state) and "Is vegetarian" in live_texts(state)
    assert state.session_notes == []


async def test_a_note_the_run_did_not_touch_can_be_deleted_meanwhile_and_the_plan_still_applies():
    state = session_state()
    lisbon = by_text(state.global_notes, "Attending a conference in Lisbon in October 2026")
    report = await run_while(state, lambda s: s.global_notes.remove(lisbon))
    assert report.model_used and report.fallback_reason is None
    assert lisbon.id not in [n.id for n in state.global_notes]
    assert MERGED in live_texts(state)


async def test_notes_written_and_edited_during_the_run_are_kept():
    state = session_state()
    trains = note("Prefers trains to buses", keywords=["transport"])
    budget = by_text(state.global_notes, "Keeps the nightly hotel budget under 250 AUD")

    def change(s):
        s.global_notes.append(trains)
        budget.status = "deleted"  # edited in place, as an editor widget would

    report = await run_while(state, change)
    assert report.model_used
    assert trains in state.global_notes
    assert by_text(state.global_notes, budget.text).status == "deleted"
    assert MERGED in live_texts(state)


async def test_a_note_the_run_supersedes_but_was_edited_meanwhile_keeps_the_edit():
    state = session_state()
    aisle = by_text(state.global_notes, "Usually prefers an aisle seat on flights")

    def change(s):
        aisle.confidence = 0.5

    report = await run_while(state, change)
    assert "edited" in report.fallback_reason
    assert by_text(state.global_notes, aisle.text).confidence == 0.5
    assert MERGED not in live_texts(state)


async def test_a_session_note_deleted_during_the_run_does_not_reach_global_memory():
    state = session_state()
    vegetarian = by_text(state.session_notes, "Is vegetarian")
    await run_while(state, lambda s: s.session_notes.remove(vegetarian))
    assert "Is vegetarian" not in [n.text for n in state.global_notes]
    assert state.session_notes == []


class Stubborn(ScriptedModel):
    """A slow model that ignores cancellation (as a call stuck in a native thread would)."""

    finished = False

    async def get_response(self, *args, **kwargs):
        try:
            await asyncio.sleep(1)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.sleep(1))  # keeps going after being cancelled
        Stubborn.finished = True
        return await super().get_response(*args, **kwargs)


async def test_a_timeout_returns_at_once_even_from_a_model_that_ignores_cancellation():
    state = session_state()
    started = time.monotonic()
    report = await consolidate(state, Stubborn([paraphrase_plan(state)]), timeout=0.1)
    assert time.monotonic() - started < 1.0
    assert report.fallback_reason.startswith("timeout") and "Is vegetarian" in live_texts(state)


async def test_the_next_turn_never_waits_behind_an_abandoned_consolidation():
    state = session_state()
    Stubborn.finished = False
    task = consolidate_in_background(state, Stubborn([paraphrase_plan(state)]), timeout=0.1)
    await task  # the session ends; the next turn comes right after
    started = time.monotonic()
    turn = await Runner.run(Agent(name="concierge", model=ScriptedModel(["Hello again."])), "Hi")
    assert turn.final_output == "Hello again."
    assert time.monotonic() - started < 0.5 and not Stubborn.finished
