"""A scripted Agents SDK `Model` for unit tests only (notebooks run the real model).

Each scripted step is one of:
    "some text"                          -> a final assistant message
    {"tool": "name", "arguments": {...}} -> a function tool call
    [{"tool": ...}, {"tool": ...}]       -> several calls in one response
    {"json": {...}}                      -> a message whose text is that JSON (structured output)
    callable(system_instructions, input, tools) -> any of the above, decided at call time
Every call is recorded in `.calls` so tests can assert on the exact prompt.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText


@dataclass
class RecordedCall:
    system_instructions: str | None
    input: Any
    tool_names: list[str]
    output_schema: Any


def _call(n: str, step: dict[str, Any]) -> ResponseFunctionToolCall:
    arguments = step.get("arguments", {})
    return ResponseFunctionToolCall(
        type="function_call", id=f"fc_{n}", call_id=f"call_{n}", name=step["tool"],
        arguments=arguments if isinstance(arguments, str) else json.dumps(arguments),
    )


class ScriptedModel(Model):
    def __init__(self, steps: list[Any]):
        self.steps = list(steps)
        self.calls: list[RecordedCall] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None) -> ModelResponse:
        self.calls.append(RecordedCall(system_instructions, input, [t.name for t in tools], output_schema))
        if not self.steps:
            raise AssertionError("ScriptedModel ran out of steps")
        step = self.steps.pop(0)
        if callable(step):
            step = step(system_instructions, input, tools)
        n = len(self.calls)
        if isinstance(step, list):  # several calls in one response; the SDK runs them concurrently
            output: list[Any] = [_call(f"{n}_{k}", call) for k, call in enumerate(step)]
            return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)
        if isinstance(step, dict) and "tool" in step:
            item = _call(str(n), step)
        else:
            text = json.dumps(step["json"]) if isinstance(step, dict) else str(step)
            item = ResponseOutputMessage(
                type="message", id=f"msg_{n}", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
            )
        return ModelResponse(output=[item], usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args, **kwargs) -> AsyncIterator[Any]:
        raise NotImplementedError("ScriptedModel does not stream")
