"""Erasure reaches everything an open session holds: its history, a compaction summary, the
prompts kept for the inspector, the turn results; and every store change reaches the session."""

import pytest
from agents import set_tracing_disabled

from helpers.lifecycle import MovableClock, open_memory
from helpers.store import MemoryStore
from tests.history_items import reply, user
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


def save(text, keywords=("seat",), kind="preference"):
    return {"tool": "save_memory_note", "arguments": {"text": text, "keywords": list(keywords), "kind": kind}}


@pytest.fixture
def clock():
    return MovableClock("2026-11-02T09:00:00Z")


@pytest.fixture
def store(clock):
    with MemoryStore.open(":memory:", clock=clock) as store:
        yield store


def said(capture):
    """Everything the last captured call was sent, lower-cased."""
    last = capture.calls[-1]
    return (last.system_prompt + str(last.input_items)).lower()


async def test_a_message_sent_in_parts_is_read_as_the_model_reads_it(store):
    # The SDK may send a message as several text parts; the model reads them joined as they are.
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Sure."]), consolidation_model=None)
    await session.session.add_items([
        {"role": "user", "content": [{"type": "input_text", "text": "My partner is Alex Sm"},
                                     {"type": "input_text", "text": "ithers, book us together."}]},
        reply("Noted."),
        user("Hello"), reply("Hi!"),
    ])
    await session.forget(matching="Alex Smithers")
    items = await session.session.get_items()
    assert "ithers" not in str(items) and "Hello" in str(items)
