import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled

from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


@function_tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.mark.asyncio
async def test_scripted_model_drives_a_real_tool_call():
    model = ScriptedModel([{"tool": "add", "arguments": {"a": 2, "b": 3}}, "The sum is 5."])
    agent = Agent(name="calc", instructions="Add numbers.", model=model, tools=[add])
    result = await Runner.run(agent, "2+3?")
    assert result.final_output == "The sum is 5."
    # The second call saw the tool's real output, so the SDK executed the tool.
    outputs = [i for i in model.calls[1].input if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert outputs and outputs[0]["output"] == "5"
