from pathlib import Path

import pytest
from agents import Agent, RunContextWrapper, Runner, function_tool, set_tracing_disabled

from helpers.budget import BudgetExceeded, ContextBudget, count_tokens
from helpers.hooks import (
    NOT_REINJECTED, MemoryHooks, MemoryInstructions, PromptCapture, build_instructions, memory_instructions,
    render_prompt, split_sections,
)
from helpers.policy import Policy
from helpers.render import EXPIRED, OVER_BUDGET, SUPERSEDED
from helpers.state import MemoryNote, MemoryState, load_example_state
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)

GOLDEN = Path(__file__).parents[1] / "golden" / "example_prompt.md"
SECTIONS = ["base", "memory_policy", "user_profile", "global_memory", "recent_history", "session_memory"]


def example_state() -> MemoryState:
    state = load_example_state()
    state.pinned_now = "2026-11-30T09:00:00Z"
    return state


def window_note() -> MemoryNote:
    return MemoryNote("Wants a window seat on this trip", "2026-11-30", keywords=["seat"], scope="session",
                      source_ref="session#turn1")


def test_example_prompt_matches_the_reviewed_golden_file():
    # To update after a deliberate change: write build_instructions(example_state()) + "\n" to the file,
    # then read the diff before committing it.
    assert build_instructions(example_state()) + "\n" == GOLDEN.read_text(encoding="utf-8")


def test_sections_run_from_stable_to_volatile_and_split_back():
    rendered = render_prompt(example_state())
    assert list(rendered.sections) == SECTIONS
    assert split_sections(rendered.text) == rendered.sections
    assert "\n\n".join(rendered.sections.values()) == rendered.text
    assert split_sections(None) == {}


def test_dead_notes_never_reach_the_prompt_and_the_reasons_are_kept():
    state = example_state()
    rendered = render_prompt(state)
    assert "Lisbon" not in rendered.text and "Brisbane" not in rendered.text
    assert {(n.id, reason) for n, reason in rendered.left_out} == {
        (state.global_notes[-1].id, EXPIRED), ("mem_brisbane", SUPERSEDED)}
    assert len(rendered.injected) == 5
    # The cookbook's rendered strings on the state are refreshed too.
    assert state.global_memories_md.startswith("- [2026-08-25] Lives in Sydney")
    assert state.system_frontmatter.startswith("---\nname: Maya Chen\n")


def test_session_notes_render_last_and_follow_the_policy_mode():
    state = example_state()
    state.session_notes.append(window_note())
    line = "- [2026-11-30] Wants a window seat on this trip (seat)"
    assert render_prompt(state).sections["session_memory"].splitlines()[2] == line
    assert state.session_memories_md == line

    after_trim = Policy(session_notes="after_trim")
    quiet = render_prompt(state, policy=after_trim)
    assert "session_memory" not in quiet.sections and line not in quiet.text
    assert (state.session_notes[0], NOT_REINJECTED) in quiet.left_out
    state.inject_session_memories_next_turn = True
    assert line in render_prompt(state, policy=after_trim).text


def test_policy_knobs_change_what_is_injected():
    state = example_state()
    flights = render_prompt(state, policy=Policy(keywords=("flight",), k=1))
    assert flights.sections["global_memory"].splitlines()[2:] == [
        "- [2026-06-19] Likes to arrive the evening before a morning meeting (flight, schedule)", "</global_memory>"]
    custom = "<memory_policy>\nAlways follow global memory.\n</memory_policy>"
    assert render_prompt(state, policy=Policy(text=custom)).sections["memory_policy"] == custom


def roomy_budget(**overrides) -> ContextBudget:
    values = dict(model_limit=8192, reserved_output=1024, stable_instructions=400, profile=200, notes=300,
                  tool_definitions=500, recent_turns=4000)
    return ContextBudget(**{**values, **overrides})


def test_a_tight_notes_budget_drops_global_notes_oldest_first():
    state = example_state()
    state.session_notes.append(window_note())
    full = render_prompt(state, budget=roomy_budget())
    assert full.report.fits and not [n for n, r in full.left_out if r == OVER_BUDGET]
    notes_tokens = next(u.tokens for u in full.report.usage if u.name == "notes")
    tight = render_prompt(state, budget=roomy_budget(notes=notes_tokens - 30))
    dropped = [n.text for n, r in tight.left_out if r == OVER_BUDGET]
    assert dropped == ["Usually prefers an aisle seat on flights",
                       "Prefers hotels within walking distance of public transport"]
    assert "Wants a window seat" in tight.text and "aisle seat on flights" not in tight.text
    assert tight.report.fits and [d.note.text for d in tight.report.dropped] == dropped


def test_policy_and_profile_are_never_dropped_a_clear_error_instead():
    with pytest.raises(BudgetExceeded, match=r"stable instructions \(role \+ memory policy\) need \d+ tokens"):
        render_prompt(example_state(), budget=roomy_budget(stable_instructions=100))
    with pytest.raises(BudgetExceeded, match=r"profile \(frontmatter \+ recent history\) need \d+ tokens"):
        render_prompt(example_state(), budget=roomy_budget(profile=50))


def test_a_custom_counter_is_used_for_the_budget():
    calls = []

    def counter(text: str) -> int:
        calls.append(text)
        return count_tokens(text)

    render_prompt(example_state(), budget=roomy_budget(), counter=counter)
    assert any("<memory_policy>" in text for text in calls)


@function_tool
def remember_window_seat(ctx: RunContextWrapper[MemoryState]) -> str:
    """Stand-in for save_memory_note: writes one session note."""
    ctx.context.session_notes.append(window_note())
    return "saved"


@pytest.mark.asyncio
async def test_capture_records_each_model_call_of_a_turn_with_its_exact_prompt():
    state = example_state()
    state.turn_index = 1
    model = ScriptedModel([{"tool": "remember_window_seat", "arguments": {}}, "Window seat it is."])
    instructions = MemoryInstructions()
    capture = PromptCapture(instructions)
    agent = Agent[MemoryState](name="concierge", instructions=instructions, model=model,
                               tools=[remember_window_seat])
    result = await Runner.run(agent, "A window seat this time, please.", context=state,
                              hooks=MemoryHooks(capture=capture))
    assert result.final_output == "Window seat it is."

    assert [(c.turn, c.call_index) for c in capture.calls] == [(1, 0), (1, 1)]
    assert [c.system_prompt for c in capture.calls] == [call.system_instructions for call in model.calls]
    first, second = capture.calls
    assert first.system_prompt == build_instructions(example_state())  # before the note was saved
    assert "window seat" not in first.sections["session_memory"]
    assert "- [2026-11-30] Wants a window seat on this trip (seat)" in second.sections["session_memory"]
    assert [n.text for n in second.rendered.injected][-1] == "Wants a window seat on this trip"
    assert list(second.sections) == SECTIONS
    # Input items: the user message, then also the tool call and its output.
    assert first.input_items[0]["content"] == "A window seat this time, please."
    assert [i.get("type") for i in second.input_items[1:]] == ["function_call", "function_call_output"]
    assert capture.for_turn(1) == capture.calls and capture.turns() == [1]


@pytest.mark.asyncio
async def test_reinjection_flag_holds_for_every_call_of_the_turn_then_is_spent():
    state = example_state()
    state.session_notes.append(window_note())
    state.inject_session_memories_next_turn = True  # as trimming would set it
    model = ScriptedModel([{"tool": "remember_window_seat", "arguments": {}}, "Done."])
    capture = PromptCapture()
    agent = Agent[MemoryState](name="concierge", instructions=MemoryInstructions(Policy(session_notes="after_trim")),
                               model=model, tools=[remember_window_seat])
    await Runner.run(agent, "Book it.", context=state, hooks=MemoryHooks(capture=capture))
    assert len(capture.calls) == 2
    assert all("session_memory" in c.sections for c in capture.calls)
    assert state.inject_session_memories_next_turn is False


@pytest.mark.asyncio
async def test_plain_dynamic_instructions_and_standalone_capture():
    state = example_state()
    model = ScriptedModel(["Hello Maya."])
    capture = PromptCapture()
    agent = Agent[MemoryState](name="concierge", instructions=memory_instructions, model=model)
    await Runner.run(agent, "Hi", context=state, hooks=capture)
    assert capture.calls[0].system_prompt == GOLDEN.read_text(encoding="utf-8").removesuffix("\n")
    assert capture.calls[0].rendered is None  # no MemoryInstructions to ask


def test_only_whole_line_tags_start_a_section():
    prompt = "Read the <notes>\nbelow\n</notes>\ntwice.\n\n<session_memory>\n- (none)\n</session_memory>"
    assert split_sections(prompt) == {"base": "Read the <notes>\nbelow\n</notes>\ntwice.",
                                      "session_memory": "<session_memory>\n- (none)\n</session_memory>"}


@pytest.mark.asyncio
async def test_captured_items_are_a_snapshot():
    capture = PromptCapture()
    items = [{"role": "user", "content": "Hi"}]
    wrapper = RunContextWrapper(context=example_state())
    await capture.on_llm_start(wrapper, Agent(name="a"), "prompt", items)
    items[0]["content"] = "changed"
    items.append({"role": "user", "content": "more"})
    assert capture.calls[0].input_items == [{"role": "user", "content": "Hi"}]
    assert capture.calls[0].turn == 0 and capture.calls[0].agent_name == "a"


@pytest.mark.asyncio
async def test_a_prompt_changed_after_rendering_is_captured_as_sent_without_the_rendering():
    from agents import RunConfig
    from agents.run import ModelInputData

    def add_suffix(data):
        return ModelInputData(input=data.model_data.input,
                              instructions=data.model_data.instructions + "\n\nBe brief.")

    instructions = MemoryInstructions()
    capture = PromptCapture(instructions)
    model = ScriptedModel(["Ok."])
    agent = Agent[MemoryState](name="concierge", instructions=instructions, model=model)
    await Runner.run(agent, "Hi", context=example_state(), hooks=capture,
                     run_config=RunConfig(call_model_input_filter=add_suffix))
    assert capture.calls[0].system_prompt.endswith("Be brief.") and capture.calls[0].rendered is None
    assert list(capture.calls[0].sections) == SECTIONS + ["untagged"]
    assert capture.calls[0].sections["untagged"] == "Be brief."
    assert capture.calls[0].system_prompt == model.calls[0].system_instructions
