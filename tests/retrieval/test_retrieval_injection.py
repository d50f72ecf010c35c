"""Injection with retrieval: a large memory is searched for the message, a small one injected."""

import pytest
from agents import Agent, Runner, set_tracing_disabled

from helpers.budget import ContextBudget
from helpers.hooks import (
    MemoryHooks,
    MemoryInstructions,
    PromptCapture,
    build_instructions,
    render_prompt,
)
from helpers.inspect import notes_report
from helpers.policy import Policy
from helpers.render import OVER_BUDGET
from helpers.retrieval import LEFT_OUT_NOT_RECALLED
from helpers.state import MemoryNote, MemoryState, fixed_clock, load_example_state
from helpers.store import MemoryStore
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)
NOW = "2026-11-30T09:00:00Z"
ALLERGY = MemoryNote(
    "Severe peanut allergy: always request a nut-free meal",
    "2024-02-01",
    kind="fact",
    keywords=["allergy", "meal"],
    confidence=0.9,
    source_ref="s3#turn4",
)
CITIES = [
    "Lisbon",
    "Osaka",
    "Denver",
    "Hobart",
    "Bergen",
    "Quito",
    "Tunis",
    "Krakow",
    "Dundee",
    "Cairns",
]
TOPICS = [
    "Liked the rooftop bar in {c}",
    "Rented a bike in {c}",
    "Wants to revisit the museums of {c}",
    "Found taxis in {c} expensive",
    "Prefers the old town when staying in {c}",
    "Took a walking tour in {c}",
    "Enjoyed the harbour in {c}",
    "Bought a rail pass in {c}",
]


def filler(n):
    """`n` distinct, newer notes that have nothing to do with meals."""
    return [
        MemoryNote(
            TOPICS[i % len(TOPICS)].format(c=CITIES[i // len(TOPICS) % len(CITIES)])
            + f" (trip {i})",
            f"2026-{1 + i % 10:02d}-{1 + i % 27:02d}",
            source_ref=f"s{i}#turn1",
        )
        for i in range(n)
    ]


def budget(notes=700):
    return ContextBudget(
        model_limit=32_000,
        reserved_output=1_000,
        stable_instructions=1_000,
        profile=600,
        notes=notes,
        tool_definitions=1_000,
        recent_turns=4_000,
    )


@pytest.fixture
def big_memory():
    store = MemoryStore.open(clock=fixed_clock(NOW))
    handle = store.for_user("acme", "maya")
    handle.add_notes(filler(300) + [ALLERGY])
    state = handle.load_state({"name": "Maya"}, pinned_now=NOW)
    yield handle, state
    store.close()


def answer_from_prompt(system_prompt, input, tools):
    """A deterministic stand-in for the model: it can only use what its prompt says."""
    return (
        "I asked for a nut-free meal."
        if "peanut" in system_prompt
        else "A standard meal is included."
    )


def test_injecting_everything_would_blow_the_budget_and_lose_the_note(big_memory):
    _, state = big_memory
    everything = render_prompt(state, policy=Policy(k=None), budget=budget())
    assert ALLERGY.text not in everything.text
    assert (ALLERGY.id, OVER_BUDGET) in {(n.id, why) for n, why in everything.left_out}
    assert len(everything.report.dropped) > 250  # most of the 301 notes did not fit


@pytest.mark.asyncio
async def test_retrieval_keeps_the_needed_note_and_the_answer_right(big_memory):
    handle, state = big_memory
    instructions = MemoryInstructions(policy=Policy(k=None), budget=budget(), memory=handle)
    capture = PromptCapture(instructions)
    model = ScriptedModel([answer_from_prompt])
    agent = Agent[MemoryState](name="concierge", instructions=instructions, model=model)
    result = await Runner.run(
        agent,
        "Please order my meal for tomorrow's flight",
        context=state,
        hooks=MemoryHooks(capture=capture),
    )
    assert result.final_output == "I asked for a nut-free meal."
    prompt = model.calls[0].system_instructions
    assert f"{ALLERGY.text} (allergy, meal) [source: s3#turn4]" in prompt
    assert "GLOBAL memory retrieved for this message (" in prompt and "of 301 notes)" in prompt
    rendered = capture.calls[0].rendered
    assert ALLERGY.id in {n.id for n in rendered.injected} and rendered.report.fits
    assert (
        len(rendered.injected) < 10
        and rendered.query == "Please order my meal for tomorrow's flight"
    )
    # Without retrieval the same turn answers wrong: the note was cut for the budget.
    model = ScriptedModel([answer_from_prompt])
    agent = Agent[MemoryState](
        name="concierge",
        model=model,
        instructions=MemoryInstructions(policy=Policy(k=None), budget=budget()),
    )
    result = await Runner.run(agent, "Please order my meal for tomorrow's flight", context=state)
    assert result.final_output == "A standard meal is included."


def test_the_inspector_shows_score_parts_and_what_was_left_out(big_memory):
    handle, state = big_memory
    rendered = render_prompt(state, memory=handle, query="Any peanut-free meal on the plane?")
    from helpers.hooks import CapturedCall

    call = CapturedCall(1, 0, "concierge", rendered.text, [], rendered.sections, rendered)
    report = notes_report(call)
    assert "Retrieved for the message: 'Any peanut-free meal on the plane?'" in report
    line = next(
        line for line in report.splitlines() if line.startswith("  [global]") and "peanut" in line
    )
    assert (
        "<- score " in line
        and "×relevance 1.00" in line
        and "×recency" in line
        and "×confidence 0.90" in line
    )
    assert report.count(LEFT_OUT_NOT_RECALLED) == 300


def test_small_memories_keep_the_simple_path():
    state = load_example_state()
    state.pinned_now = NOW
    with MemoryStore.open(clock=fixed_clock(NOW)) as store:
        handle = store.for_user("acme", "maya")
        handle.add_notes(state.global_notes)
        rendered = render_prompt(state, memory=handle, query="Find me a hotel")
        assert (
            rendered.text == build_instructions(state)
            and rendered.query is None
            and not rendered.scores
        )


def test_no_message_no_retrieval(big_memory):
    handle, state = big_memory
    assert render_prompt(state, memory=handle, query="  ").query is None
