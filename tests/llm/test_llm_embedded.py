"""A few checks against the real embedded model (Qwen2.5-Coder-1.5B, in-process). ~1 minute."""

import pytest
from agents import Agent, Runner
from pydantic import BaseModel

from helpers.concierge import make_concierge, run_turn
from helpers.llm import LocalModel, embedded_llm
from helpers.state import load_example_state
from helpers.notebook import COURSE_NOW

# These run on the embedded model whatever the backend: with OPENAI_API_KEY set they still run.
pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def model():
    return LocalModel(embedded_llm())


async def test_paris_request_produces_an_executed_tool_call_and_a_prose_answer(model):
    state = load_example_state()
    state.pinned_now = COURSE_NOW
    agent = make_concierge(model=model)
    result = await run_turn(agent, state, "I'm vegetarian and I always want an aisle seat. Book me a flight to Paris.")
    calls = [i for i in result.new_items if i.type == "tool_call_item"]
    outputs = [i for i in result.new_items if i.type == "tool_call_output_item"]
    names = [c.raw_item.name for c in calls]
    # Several calls per turn are allowed (save, search...), each executed, within the loop guard's cap.
    assert "save_memory_note" in names and len(outputs) == len(calls), names
    assert len(calls) <= model.max_calls_per_turn, names
    saved = " ".join(n.text.lower() for n in state.session_notes)
    assert "vegetarian" in saved or "aisle" in saved, f"the note should carry a stated preference: {saved!r}"
    answer = result.final_output
    assert isinstance(answer, str) and answer.strip()
    assert not answer.lstrip().startswith(("{", "<", "`")), "the final answer is prose, not a call"


async def test_same_input_gives_the_same_output(model):
    agent = Agent(name="echo", instructions="Answer in one short sentence.", model=model)
    first = await Runner.run(agent, "Name one city in France.")
    second = await Runner.run(agent, "Name one city in France.")
    assert first.final_output == second.final_output


class Preference(BaseModel):
    topic: str
    value: str


async def test_structured_output_on_the_real_model(model):
    agent = Agent(name="extract", instructions="Extract the user's preference.", model=model, output_type=Preference)
    result = await Runner.run(agent, "I always want an aisle seat.")
    assert isinstance(result.final_output, Preference)
    assert "aisle" in result.final_output.value.lower() or "aisle" in result.final_output.topic.lower()


def test_local_tokenizer_counts_tokens():
    count = embedded_llm().count_tokens
    assert count("") == 0
    assert 3 <= count("I always want an aisle seat.") <= 12
    assert count("aisle " * 50) > count("aisle " * 10)
