import asyncio
import html
import re

import pytest
from agents import set_tracing_disabled

from helpers.budget import ContextBudget, count_tokens
from helpers.concierge import make_concierge, run_turn
from helpers.hooks import PromptCapture, split_sections
from helpers.inspect import (
    ALL_SECTIONS, PolicyEditor, PromptInspector, compare_runs, describe_call, describe_item, load_conversation,
    notes_report, run_conversation,
)
from helpers.policy import DEFAULT_POLICY, MEMORY_POLICY
from helpers.render import EXPIRED, SUPERSEDED
from helpers.state import load_example_state
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)

NOW = "2026-11-30T09:00:00Z"
WINDOW = {"tool": "save_memory_note", "arguments": {"text": "Wants a window seat on this trip", "keywords": ["seat"]}}
FLIPPED = DEFAULT_POLICY.with_text(MEMORY_POLICY.replace("2. SESSION memory wins over GLOBAL memory.",
                                                         "2. GLOBAL memory wins over SESSION memory."))


def fresh_state():
    state = load_example_state()
    state.pinned_now = NOW
    return state


def seat_by_policy(system, _input, _tools):
    """A scripted answer that follows the precedence line it finds in the prompt."""
    return "aisle seat" if "GLOBAL memory wins over SESSION" in system else "window seat"


async def two_turns():
    """Turn 1 saves a session note (tool call, then prose), turn 2 answers: three model calls."""
    model = ScriptedModel([WINDOW, "Window seat it is.", "Return flight: window seat."])
    agent = make_concierge(model=model)
    capture = PromptCapture(agent.instructions)
    state = fresh_state()
    await run_turn(agent, state, "Sydney to Tokyo on Friday, window seat on this trip", capture=capture)
    await run_turn(agent, state, "And the return?", capture=capture)
    return capture


def budget():
    return ContextBudget(model_limit=8192, reserved_output=1024, stable_instructions=400, profile=200, notes=300,
                         tool_definitions=500, recent_turns=4000)


async def test_describe_call_shows_sections_notes_inputs_and_the_diff():
    capture = await two_turns()
    first, after_tool, second_turn = capture.calls
    view = describe_call(after_tool, first)
    assert view.title == "turn 1, call 1: after save_memory_note (Travel Concierge)"
    assert view.sections == split_sections(after_tool.system_prompt)
    assert view.input_items[0] == "user: Sydney to Tokyo on Friday, window seat on this trip"
    assert view.input_items[1].startswith("call save_memory_note({")
    assert view.input_items[2] == "tool result: Saved (this session only): Wants a window seat on this trip"
    # The note the tool saved is the only change to the prompt between the two calls.
    changed = [line for line in view.diff.splitlines() if line[:1] in ("+", "-") and line[:3] not in ("+++", "---")]
    assert changed == ["-- (none)", "+- [2026-11-30] Wants a window seat on this trip (seat)"]
    assert view.diff.endswith("input items: 1 -> 3")
    assert describe_call(first).diff == "(the first call: nothing to compare with)"
    assert "system prompt unchanged" in describe_call(second_turn, after_tool).diff


async def test_notes_report_lists_injected_and_left_out_with_reasons():
    capture = await two_turns()
    report = notes_report(capture.calls[1])
    injected, left_out = report.split("Left out")
    assert "Injected (6):" in injected and "[session] [2026-11-30] Wants a window seat on this trip" in injected
    assert f"Lives in Brisbane (home)  <- {SUPERSEDED}" in left_out
    assert f"Attending a conference in Lisbon in October 2026 (trip, event)  <- {EXPIRED}" in left_out
    capture.calls[1].rendered = None
    assert notes_report(capture.calls[1]).startswith("Not recorded for this call")


async def test_token_table_counts_each_section_and_compares_with_the_budget():
    capture = await two_turns()
    call = capture.calls[0]
    table = describe_call(call, budget=budget()).tokens
    policy_row = next(line for line in table.splitlines() if line.startswith("memory_policy"))
    assert policy_row.split()[1] == str(count_tokens(call.sections["memory_policy"]))
    stable = count_tokens(call.sections["base"] + "\n\n" + call.sections["memory_policy"])
    assert re.search(rf"^stable_instructions\s+{stable}\s+400$", table, re.M)
    turns = count_tokens("user: Sydney to Tokyo on Friday, window seat on this trip")
    assert re.search(rf"^recent_turns\s+{turns}\s+4000$", table, re.M)
    assert re.search(r"^total input\s+\d+\s+7168$", table, re.M)
    words = describe_call(call, counter=lambda text: len(text.split())).tokens
    assert re.search(rf"^memory_policy\s+{len(call.sections['memory_policy'].split())}\s", words, re.M)
    assert "no budget given" in words


def test_describe_item_handles_messages_calls_results_and_content_parts():
    assert describe_item({"role": "user", "content": "hi  there"}) == "user: hi there"
    parts = {"role": "assistant", "content": [{"type": "output_text", "text": "Booked."}]}
    assert describe_item(parts) == "assistant: Booked."
    assert describe_item({"type": "function_call_output", "call_id": "c", "output": "ok"}) == "tool result: ok"
    assert describe_item({"role": "user", "content": "x" * 200}, width=10) == "user: xxx…"


async def test_inspector_follows_the_selection():
    capture = await two_turns()
    inspector = PromptInspector(capture, budget=budget())
    assert [value for _, value in inspector.turn.options] == [1, 2]
    assert [label for label, _ in inspector.call.options] == ["call 0: the user's message",
                                                              "call 1: after save_memory_note"]
    shown = lambda: html.unescape(inspector.prompt.value)  # noqa: E731
    assert "<memory_policy>" in shown() and "<session_memory>" in shown()
    inspector.section.value = "session_memory"
    assert "<memory_policy>" not in shown() and "- (none)" in shown()
    inspector.call.value = 1  # the section choice survives a change of call
    assert inspector.section.value == "session_memory" and "Wants a window seat" in shown()
    assert "stable_instructions" in inspector.tokens.value and "input items: 1 -&gt; 3" in inspector.diff.value
    inspector.turn.value = 2
    assert inspector.title.value == "<b>turn 2, call 0: the user&#x27;s message (Travel Concierge)</b>"


async def test_inspector_starts_empty_and_refresh_picks_up_new_turns():
    model = ScriptedModel(["Hello."])
    agent = make_concierge(model=model)
    capture = PromptCapture(agent.instructions)
    inspector = PromptInspector(capture)
    assert inspector.turn.options == () and "No model calls captured yet" in inspector.title.value
    await run_turn(agent, fresh_state(), "hi", capture=capture)
    inspector.refresh()
    assert inspector.turn.value == 1 and "<user_profile>" in html.unescape(inspector.prompt.value)


async def test_run_conversation_carries_memory_between_turns_on_a_fresh_state():
    made = []

    def factory():
        made.append(fresh_state())
        return made[-1]

    messages = [load_conversation("policy_window_seat").messages[0], "Which seat for the return flight?"]
    model = ScriptedModel([WINDOW, "Window seat on this trip.", seat_by_policy])
    run = await run_conversation(DEFAULT_POLICY, messages, factory, model)
    assert len(made) == 1 and run.state is made[0]
    assert [t.message for t in run.turns] == messages
    assert run.turns[0].tool_calls == [
        'save_memory_note({"text": "Wants a window seat on this trip", "keywords": ["seat"]}) '
        "-> Saved (this session only): Wants a window seat on this trip"]
    assert run.turns[1].answer == "window seat" and run.turns[1].tool_calls == []
    assert run.session_notes() == ["[session] Wants a window seat on this trip"]
    # Turn 2's model call saw the note turn 1 saved, and only turn 2's message.
    assert "Wants a window seat on this trip" in run.turns[1].calls[0].sections["session_memory"]
    assert model.calls[2].input == [{"content": messages[1], "role": "user"}]


async def test_a_turn_that_cannot_finish_is_recorded_and_the_run_goes_on():
    loop = [WINDOW] * 4  # run_turn allows 4 model calls per turn
    run = await run_conversation(DEFAULT_POLICY, ["loop", "then answer"], fresh_state,
                                 ScriptedModel([*loop, "Answered."]))
    assert run.turns[0].error.startswith("MaxTurnsExceeded") and run.turns[0].answer == ""
    assert run.turns[1].answer == "Answered." and run.turns[1].error is None
    with pytest.raises(TypeError, match="list of user messages"):
        await run_conversation(DEFAULT_POLICY, "one string", fresh_state, ScriptedModel([]))


async def test_compare_runs_shows_the_policy_change_and_both_answers():
    messages = ["window on this trip", "return seat?"]
    before = await run_conversation(DEFAULT_POLICY, messages, fresh_state,
                                    ScriptedModel([WINDOW, "ok", seat_by_policy]))
    after = await run_conversation(FLIPPED, messages, fresh_state, ScriptedModel([WINDOW, "ok", seat_by_policy]))
    text = compare_runs(before, after)
    assert "-2. SESSION memory wins over GLOBAL memory.\n+2. GLOBAL memory wins over SESSION memory." in text
    assert "  previous  answer: window seat\n  this run  answer: aisle seat" in text
    assert "Session notes (this run): [session] Wants a window seat on this trip" in text


async def test_policy_editor_reruns_and_shows_both_runs_side_by_side():
    model = ScriptedModel([WINDOW, "ok", seat_by_policy] * 2)
    editor = PolicyEditor(fresh_state, ["window on this trip", "return seat?"], model=model)
    assert "no run yet" in editor.previous_pane.value and "no run yet" in editor.current_pane.value
    await editor.rerun()
    editor.text.value = FLIPPED.text
    await editor.rerun()
    assert [run.policy.text for run in editor.runs] == [DEFAULT_POLICY.text, FLIPPED.text]
    assert "window seat" in editor.previous_pane.value and "aisle seat" in editor.current_pane.value
    assert "GLOBAL memory wins over SESSION memory" in editor.current_pane.value  # the folded prompt
    editor.add_run(editor.runs[0])  # a run made elsewhere becomes the latest
    assert "aisle seat" in editor.previous_pane.value and "window seat" in editor.current_pane.value


async def test_policy_editor_button_reports_a_bad_policy_and_keeps_the_text():
    editor = PolicyEditor(fresh_state, ["hi"], model=ScriptedModel(["Hello."]))
    editor.text.value = "Always pick aisle."  # no <memory_policy> tags
    editor.button.click()
    await editor.task
    assert "wrapped in &lt;memory_policy&gt;" in editor.status.value
    assert editor.text.value == "Always pick aisle." and editor.runs == [] and not editor.button.disabled
    editor.text.value = MEMORY_POLICY
    editor.button.click()
    await asyncio.wait_for(editor.task, 5)
    assert editor.status.value.startswith("done in") and editor.runs[0].turns[0].answer == "Hello."


def test_load_conversation_reads_data_and_names_the_known_ones():
    conversation = load_conversation("policy_window_seat")
    assert conversation.messages and "window seat on this trip" in conversation.messages[0]
    assert "aisle" in conversation.description
    with pytest.raises(FileNotFoundError, match="policy_window_seat"):
        load_conversation("no_such_conversation")
    with pytest.raises(TypeError, match="load_conversation"):
        PolicyEditor(fresh_state, "policy_window_seat")
    assert ALL_SECTIONS == "(all)"


def test_load_conversation_takes_the_user_side_of_a_scripted_session(tmp_path, monkeypatch):
    long_trip = load_conversation("long_trip")  # notebook 06's 21 scripted turns plus the live one
    assert len(long_trip.messages) == 22 and "vegetarian" in long_trip.messages[1]
    (tmp_path / "conversations").mkdir()
    (tmp_path / "conversations" / "broken.json").write_text('{"turns": [{"assistant": "Hi"}]}')
    monkeypatch.setattr("helpers.inspect.data_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="'user' each"):
        load_conversation("broken")


async def test_policy_editor_shows_which_turn_runs_while_it_runs():
    seen = []

    def answer(label):
        return lambda *_: seen.append(editor.status.value) or label

    editor = PolicyEditor(fresh_state, ["hi", "and again", "bye"],
                          model=ScriptedModel([answer("one"), answer("two"), answer("three")]))
    editor.button.click()
    await editor.task
    assert seen[0] == "running turn 1 of 3…"
    assert seen[1].startswith("running turn 2 of 3 (turn 1 took") and seen[2].startswith("running turn 3 of 3")
    assert editor.status.value.startswith("done in")
