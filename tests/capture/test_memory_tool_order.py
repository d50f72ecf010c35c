"""Two memory saves in one model response are saved in the order the model made them.

The SDK runs a response's tool calls concurrently, and a plain (sync) function tool in a worker
thread each: two saves then race for MemoryState, and the session's order (which the next prompt
shows, newest first) changed from run to run, so a recorded notebook missed its recording at
random (tests/replay.py). The memory tool is a coroutine: it runs on the event loop, in call order.
"""

import threading
from unittest import mock

from helpers import tools
from helpers.concierge import make_concierge, run_turn
from helpers.state import load_example_state
from tests.scripted_model import ScriptedModel

MESSAGE = "I'm vegetarian and I always want an aisle seat."
SAVES = [{"tool": "save_memory_note", "arguments": {"text": "Vegetarian", "keywords": ["diet"]}},
         {"tool": "save_memory_note", "arguments": {"text": "Always wants an aisle seat", "keywords": ["seat"]}}]


async def test_two_saves_in_one_response_run_on_the_event_loop_in_call_order():
    threads: list[int] = []
    real = tools.capture_note

    def capture(*args, **kwargs):
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    state = load_example_state()
    state.pinned_now = "2026-11-30T09:00:00Z"
    agent = make_concierge(model=ScriptedModel([SAVES, "Noted."]), tools=[tools.save_memory_note])
    with mock.patch.object(tools, "capture_note", capture):
        await run_turn(agent, state, MESSAGE)
    assert threads == [threading.get_ident()] * 2, "the memory tool ran outside the event loop's thread"
    assert [n.text for n in state.session_notes] == ["Vegetarian", "Always wants an aisle seat"]
