import asyncio

import pytest
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.hooks import MemoryHooks, MemoryInstructions, PromptCapture
from helpers.policy import Policy
from helpers.state import MemoryNote, MemoryState
from helpers.trimming import (
    CompactingSession, TrimmingSession, drop_orphan_outputs, is_summary_item, split_turns,
    tool_output_filter, truncate_tool_output, truncate_tool_outputs,
)
from tests.history_items import call, output, reply, user
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


# ---------------------------------------------------------------- fixtures: items and turns

def tool_turn(n, calls=2, name="search"):
    items = [user(f"request {n}")]
    for k in range(calls):
        items += [call(f"c{n}_{k}", name), output(f"c{n}_{k}", f"result {n}.{k}")]
    return items + [reply(f"answer {n}")]


def assert_pairs_intact(items):
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
    assert sorted(calls) == sorted(outputs)


# ---------------------------------------------------------------- truncation

def test_truncation_keeps_head_and_tail_with_a_marker_and_respects_the_limit():
    text = "HEAD" + "x" * 20_000 + "TAIL"
    cut = truncate_tool_output(text, max_chars=1000)
    assert len(cut) <= 1000
    assert cut.startswith("HEAD") and cut.endswith("TAIL")
    kept = len(cut) - len(cut[cut.index("\n[..."):cut.index("...]\n") + 5])
    assert f"[... truncated {len(text) - kept:,} characters ...]" in cut


def test_short_output_is_untouched_and_tiny_limits_are_refused():
    assert truncate_tool_output("small", 100) == "small"
    with pytest.raises(ValueError, match="max_chars"):
        truncate_tool_output("x" * 500, 10)


def test_truncate_tool_outputs_cuts_only_tool_outputs_and_copies():
    items = [user("u" * 500), call("c1"), output("c1", "o" * 500)]
    cut = truncate_tool_outputs(items, 200)
    assert cut[0] == items[0] and cut[1] == items[1]
    assert "truncated" in cut[2]["output"] and len(cut[2]["output"]) <= 200
    assert items[2]["output"] == "o" * 500  # the caller's items are not mutated


@function_tool
def fetch_page(url: str) -> str:
    """Fetch a web page."""
    return "<html>" + "lorem " * 5000 + "</html>"


async def test_oversized_tool_output_is_cut_before_the_model_sees_it_and_in_storage():
    model = ScriptedModel([{"tool": "fetch_page", "arguments": {"url": "x"}}, "Read it."])
    session = TrimmingSession("t", max_turns=4, max_tool_output_chars=1500)
    agent = Agent(name="a", instructions="Help.", model=model, tools=[fetch_page])
    await Runner.run(agent, "read x", session=session,
                     run_config=RunConfig(call_model_input_filter=tool_output_filter(800)))
    seen = [i for i in model.calls[1].input if i.get("type") == "function_call_output"][0]["output"]
    assert len(seen) <= 800 and "truncated" in seen and seen.endswith("</html>")
    stored = [i for i in await session.get_items() if i.get("type") == "function_call_output"][0]["output"]
    assert 800 < len(stored) <= 1500 and "truncated" in stored


# ---------------------------------------------------------------- trim boundaries

async def test_a_turn_with_two_tool_calls_is_kept_whole():
    state = MemoryState()
    session = TrimmingSession("t", max_turns=2, state=state)
    await session.add_items(tool_turn(1, calls=0) + tool_turn(2, calls=2) + tool_turn(3, calls=0))
    items = await session.get_items()
    assert items == tool_turn(2, calls=2) + tool_turn(3, calls=0)
    assert session.events[-1].dropped_turns == 1 and session.events[-1].dropped_items == 2
    assert state.inject_session_memories_next_turn


async def test_a_turn_with_two_tool_calls_is_dropped_whole():
    session = TrimmingSession("t", max_turns=1)
    await session.add_items(tool_turn(1, calls=0) + tool_turn(2, calls=2) + tool_turn(3, calls=1))
    items = await session.get_items()
    assert items == tool_turn(3, calls=1)
    assert session.events[-1].dropped_items == len(tool_turn(1, calls=0)) + len(tool_turn(2, calls=2))


async def test_no_drop_no_flag_and_limit_returns_the_latest_items():
    state = MemoryState()
    session = TrimmingSession("t", max_turns=3, state=state)
    await session.add_items(tool_turn(1) + tool_turn(2))
    assert len(await session.get_items()) == 2 * len(tool_turn(1))
    assert await session.get_items(limit=2) == tool_turn(2)[-2:]
    assert not state.inject_session_memories_next_turn and session.events == []


async def test_orphan_tool_output_at_the_head_is_dropped_and_flagged():
    state = MemoryState()
    session = TrimmingSession("t", max_turns=5, state=state)
    await session.add_items([output("lost"), reply("stray")] + tool_turn(1))
    items = await session.get_items()
    assert [i for i in items if i.get("call_id") == "lost"] == []
    assert session.events[0].reason.startswith("tool output without")
    assert state.inject_session_memories_next_turn


async def test_pop_and_clear():
    session = TrimmingSession("t", max_turns=2)
    await session.add_items(tool_turn(1, calls=0))
    assert await session.pop_item() == reply("answer 1")
    await session.clear_session()
    assert await session.get_items() == [] and await session.pop_item() is None


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        TrimmingSession("t", max_turns=0)
    with pytest.raises(ValueError):
        CompactingSession("t", model=ScriptedModel([]), max_turns=3, keep_turns=3)


histories = st.lists(st.integers(min_value=0, max_value=3), min_size=0, max_size=8)


@settings(max_examples=60, deadline=None)
@given(calls_per_turn=histories, orphans=st.integers(0, 2), max_turns=st.integers(1, 6))
def test_any_history_trims_to_whole_turns_without_orphans(calls_per_turn, orphans, max_turns):
    turns = [tool_turn(n, calls) for n, calls in enumerate(calls_per_turn)]
    history = [output(f"orphan{k}") for k in range(orphans)] + [i for turn in turns for i in turn]
    session = TrimmingSession("t", max_turns=max_turns)
    asyncio.run(session.add_items(history))
    items = asyncio.run(session.get_items())
    assert items == [i for turn in turns[-max_turns:] for i in turn]
    assert split_turns(items) == ([], turns[-max_turns:])
    assert_pairs_intact(items)
    assert drop_orphan_outputs(items)[1] == 0


# ---------------------------------------------------------------- the flag's lifetime across a turn

@function_tool
def search_hotels(city: str) -> str:
    """Search hotels in a city."""
    return f"3 hotels in {city}"


def trip_state():
    return MemoryState(pinned_now="2026-11-30T09:00:00Z", session_notes=[
        MemoryNote(text="Vegetarian meals on this trip", observed_at="2026-11-30", scope="session")])


async def test_reinjected_notes_reach_every_model_call_of_the_trimmed_turn_then_clear():
    state = trip_state()
    session = TrimmingSession("trip", max_turns=1)  # no state here: the run's context is used
    cities = ["Paris", "Rome", "Oslo"]
    steps = []
    for city in cities:
        steps += [{"tool": "search_hotels", "arguments": {"city": city}}, f"Hotels in {city}."]
    model = ScriptedModel(steps)  # one model for all turns keeps call ids unique
    instructions = MemoryInstructions(policy=Policy(session_notes="after_trim"))
    agent = Agent(name="concierge", instructions=instructions, model=model, tools=[search_hotels])
    capture = PromptCapture()
    for turn, city in enumerate(cities):
        state.turn_index = turn
        await Runner.run(agent, f"Hotels in {city}?", session=session, context=state,
                         hooks=MemoryHooks(capture=capture))
        assert not state.inject_session_memories_next_turn, "the flag must be cleared when the turn ends"
        calls = capture.for_turn(turn)
        assert len(calls) == 2  # tool call, then the answer after the tool result
        trimmed = turn == 2  # history holds 2 user turns only when the third turn starts
        for c in calls:  # both calls, not only the first, carry the notes
            assert ("Vegetarian meals on this trip" in c.sections.get("session_memory", "")) == trimmed
    assert [c.system_prompt for c in capture.calls] == [c.system_instructions for c in model.calls]
    assert len(session.events) == 1 and session.events[0].dropped_turns == 1
    # The trimmed turn's model input starts at the kept turn, never mid-pair.
    assert model.calls[4].input[0] == user("Hotels in Rome?")
    assert_pairs_intact(model.calls[5].input)


async def test_without_the_hooks_the_flag_outlives_the_turn():
    state = trip_state()
    session = TrimmingSession("trip", max_turns=1)
    model = ScriptedModel(["one", "two", "three"])
    agent = Agent(name="a", instructions=MemoryInstructions(policy=Policy(session_notes="after_trim")), model=model)
    for text in ["a", "b", "c"]:
        await Runner.run(agent, text, session=session, context=state)
    assert state.inject_session_memories_next_turn


# ---------------------------------------------------------------- compaction

SUMMARY = {
    "objective": "Plan a 3-night trip to Lisbon in March",
    "confirmed_facts": [{"fact": "User prefers aisle seats", "source": "user, turn 2"},
                        {"fact": "Hotel Alfama has rooms at 180 EUR", "source": "tool search_hotels"}],
    "decisions": ["Stay in Alfama"],
    "completed_work": ["Searched hotels in Lisbon"],
    "open_work": ["Choose a flight"],
    "external_side_effects": ["No booking has been made yet"],
}


def conversation(turns=4, tool="search_hotels"):
    items = []
    for n in range(1, turns + 1):
        items += [user(f"request {n}"), call(f"c{n}", tool, '{"city": "Lisbon"}'),
                  output(f"c{n}", f"result {n}"), reply(f"answer {n}")]
    return items


async def test_compaction_replaces_old_turns_with_the_model_summary():
    state = MemoryState()
    summarizer = ScriptedModel([{"json": SUMMARY}])
    session = CompactingSession("c", model=summarizer, max_turns=3, keep_turns=1, state=state)
    await session.add_items(conversation(4))
    items = await session.get_items()
    assert is_summary_item(items[0]) and items[1:] == conversation(4)[-4:]
    text = items[0]["content"]
    for expected in ["## Objective\nPlan a 3-night trip to Lisbon", "User prefers aisle seats (source: user, turn 2)",
                     "## External side effects\n- No booking has been made yet", "## Open work\n- Choose a flight"]:
        assert expected in text
    assert session.summary_source == "model" and session.compacted_turns == 3
    assert summarizer.calls[0].output_schema is not None  # asked for JSON with a schema
    assert "[turn 3] user: request 3" in summarizer.calls[0].input[0]["content"]
    assert state.inject_session_memories_next_turn and session.events[0].dropped_turns == 3
    assert await session.get_items() == items  # under the threshold: nothing more happens


async def test_a_second_compaction_hands_the_previous_summary_to_the_model():
    summarizer = ScriptedModel([{"json": SUMMARY}, {"json": {**SUMMARY, "open_work": []}}])
    session = CompactingSession("c", model=summarizer, max_turns=2, keep_turns=1)
    await session.add_items(conversation(3))
    await session.get_items()
    await session.add_items([user("request 4"), reply("answer 4"), user("request 5"), reply("answer 5")])
    items = await session.get_items()
    prompt = summarizer.calls[1].input[0]["content"]
    assert "Previous summary" in prompt and "aisle seats" in prompt and "[turn 3] user: request 3" in prompt
    assert sum(is_summary_item(i) for i in items) == 1 and session.compacted_turns == 4
    assert items[1:] == [user("request 5"), reply("answer 5")]


def raise_error(*_):
    raise RuntimeError("model crashed")


class SlowModel(ScriptedModel):
    async def get_response(self, *args, **kwargs):
        await asyncio.sleep(5)


@pytest.mark.parametrize("summarizer, error", [
    (ScriptedModel(["this is not JSON"]), "ModelBehaviorError"),
    (ScriptedModel([{"json": {"objective": "x"}}]), "ModelBehaviorError"),  # schema violation
    (ScriptedModel([{"json": {**SUMMARY, "objective": " "}}]), "ValueError"),  # empty objective
    (ScriptedModel([raise_error]), "RuntimeError"),
    (SlowModel([]), "TimeoutError"),
])
async def test_compaction_falls_back_to_a_deterministic_summary(summarizer, error):
    session = CompactingSession("c", model=summarizer, max_turns=2, keep_turns=1, timeout_s=0.2)
    await session.add_items(conversation(3))
    items = await session.get_items()
    assert session.summary_source == f"fallback: {error}"
    text = items[0]["content"]
    assert is_summary_item(items[0]) and items[1:] == conversation(3)[-4:]
    assert "User said: request 1 (source: user, turn 1)" in text
    assert "search_hotels returned: result 2 (source: tool search_hotels, turn 2)" in text
    assert 'Called search_hotels({"city": "Lisbon"}) in turn 1' in text
    assert "None recorded: no side-effecting tool ran" in text
    assert "fallback" in session.events[0].reason


async def test_the_summary_schema_caps_lists_so_a_repeating_model_cannot_run_away():
    runaway = {**SUMMARY, "decisions": ["Stay in Alfama"] * 40}
    summarizer = ScriptedModel([{"json": runaway}])
    session = CompactingSession("c", model=summarizer, max_turns=2, keep_turns=1)
    await session.add_items(conversation(3))
    await session.get_items()
    schema = summarizer.calls[0].output_schema.json_schema()
    assert schema["properties"]["decisions"]["maxItems"] == 6  # the grammar stops the list here
    assert session.summary_source == "fallback: ModelBehaviorError"  # and a model that ignores it is refused


async def test_fallback_reports_side_effecting_tools_and_keeps_the_previous_summary():
    summarizer = ScriptedModel([{"json": SUMMARY}, "not JSON"])
    session = CompactingSession("c", model=summarizer, max_turns=2, keep_turns=1)
    await session.add_items(conversation(3))
    await session.get_items()
    await session.add_items(conversation(2, tool="book_hotel"))
    text = (await session.get_items())[0]["content"]
    assert session.summary_source == "fallback: ModelBehaviorError"
    assert "User prefers aisle seats" in text and "Plan a 3-night trip to Lisbon" in text
    assert "book_hotel ran in turn 4; result: result 1" in text
    assert "No booking has been made yet" in text  # the earlier statement is kept, with the new evidence after it


async def test_compacted_history_reaches_the_agent_through_the_runner():
    session = CompactingSession("c", model=ScriptedModel([{"json": SUMMARY}]), max_turns=2, keep_turns=1)
    await session.add_items(conversation(3))
    model = ScriptedModel(["Noted."])
    await Runner.run(Agent(name="a", instructions="x", model=model), "next?", session=session)
    sent = model.calls[0].input
    assert is_summary_item(sent[0]) and "<compacted_history>" in sent[0]["content"]
    assert sent[-1] == user("next?")
    assert_pairs_intact(sent)
