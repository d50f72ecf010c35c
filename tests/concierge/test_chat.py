"""helpers.chat: one message in, and out the answer, the tool calls, the notes and the exact prompt."""

import asyncio

from helpers.chat import ChatWidget, chat_turn, prompt_tokens
from helpers.concierge import make_concierge
from helpers.hooks import PromptCapture
from helpers.state import load_example_state
from tests.scripted_model import ScriptedModel

NOW = "2026-11-30T09:00:00Z"


def fresh_state():
    state = load_example_state()
    state.pinned_now, state.session_id = NOW, "chat"
    return state


def saving_model(text="Wants a window seat this time"):
    return ScriptedModel([{"tool": "save_memory_note", "arguments": {"text": text, "keywords": ["seat"],
                                                                       "kind": "preference"}},
                          "Noted: a window seat on this trip."])


async def test_chat_turn_reports_answer_tool_calls_saved_notes_and_the_prompts():
    state, model = fresh_state(), saving_model()
    agent = make_concierge(model=model)
    capture = PromptCapture(agent.instructions)
    turn = await chat_turn(agent, state, "This time I'd like a window seat.", capture=capture)

    assert turn.answer == "Noted: a window seat on this trip." and turn.error is None
    assert len(turn.tool_calls) == 1 and turn.tool_calls[0].startswith("save_memory_note(")
    assert "Saved (this session only)" in turn.tool_calls[0]
    assert turn.notes_saved == ["[session] Wants a window seat this time"]
    assert [c.system_prompt for c in turn.calls] == [c.system_instructions for c in model.calls]
    assert "Wants a window seat this time" in turn.calls[1].sections["session_memory"]
    assert turn.prompt_tokens and turn.prompt_tokens > 300  # policy, profile and notes are in it


async def test_prompt_tokens_counts_the_rendered_prompt_and_the_message():
    state = fresh_state()
    agent = make_concierge(model=ScriptedModel([]))
    short = prompt_tokens(agent, state, "hi", counter=len)
    assert prompt_tokens(agent, state, "hi" * 50, counter=len) == short + 98
    # The tool definitions are part of the prompt too (with the concierge's tools, most of it).
    bare = make_concierge(model=ScriptedModel([]), tools=[])
    assert prompt_tokens(bare, state, "hi", counter=len) < short - 1000


async def test_widget_send_shows_the_answer_the_notes_and_selects_the_new_prompt():
    state = fresh_state()
    chat = ChatWidget(state, model=ScriptedModel(["Lisbon."]))
    assert "No messages yet" in chat.transcript.value
    chat2 = await chat.send("What's the capital of Portugal?")
    assert chat2.answer == "Lisbon." and "Lisbon." in chat.transcript.value
    assert "answered in" in chat.status.value and not chat.button.disabled
    assert chat.inspector.turn.value == 1 and "&lt;memory_policy&gt;" in chat.inspector.prompt.value
    assert "Session notes (0)" in chat.notes.value


async def test_widget_second_message_moves_the_inspector_to_the_new_turn_and_lists_the_note():
    state = fresh_state()
    steps = saving_model().steps + ["Window seat it is."]
    chat = ChatWidget(state, model=ScriptedModel(["Hello!", *steps]))
    await chat.send("Hi")
    await chat.send("This time I'd like a window seat.")
    assert chat.inspector.turn.value == 2
    assert "[session] Wants a window seat this time" in chat.notes.value
    assert "🔧" in chat.transcript.value and "Saved (this session only)" in chat.transcript.value


async def test_button_reports_errors_in_the_status_line():
    chat = ChatWidget(fresh_state(), model=ScriptedModel([]))
    chat.input.value = "   "
    chat._on_click(chat.button)
    await chat.task
    assert "type a message first" in chat.status.value


def test_widgets_carry_an_html_snapshot_for_a_notebook_opened_before_it_runs():
    state = fresh_state()
    chat = ChatWidget(state, model=ScriptedModel(["Lisbon."]))
    asyncio.run(chat.send("Capital of Portugal?"))
    bundle = chat._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Lisbon." in bundle["text/html"] and "exact prompt" in bundle["text/html"]
    inspector_html = chat.inspector._repr_mimebundle_()["text/html"]
    assert "&lt;memory_policy&gt;" in inspector_html and "turn 1" in inspector_html


async def test_the_estimate_follows_this_chats_own_measured_turns():
    chat = ChatWidget(fresh_state(), model=ScriptedModel(["One.", "Two."]))
    assert chat.estimate(1000) is None  # no measured speed yet (a scripted model reports none)
    await chat.send("Hello")
    turn = chat.turns[-1]
    turn.seconds, turn.prompt_tokens = 20.0, 1000  # as if this machine took 20 s for 1,000 tokens
    assert chat.estimate(1500) == 30.0  # 20 ms a token, as measured in this chat
    assert chat.estimate(None) is None


def test_the_transcript_is_anchored_at_its_newest_message():
    chat = ChatWidget(fresh_state(), model=ScriptedModel([]))
    layout = chat.transcript.layout
    assert layout.overflow == "auto" and layout.display == "flex" and layout.flex_flow == "column-reverse"
