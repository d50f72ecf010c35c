"""Reading a turn from chat messages: where it starts, which calls it made, what the tools returned.

Used by the SDK adapter (`helpers.llm.adapter`, notebook 00); plain functions over OpenAI-shaped messages.
"""

from __future__ import annotations

import itertools
import json
from typing import Any


def call_key(name: str, arguments: dict[str, Any] | str) -> tuple[str, str]:
    """What makes two calls identical: the name and the arguments, whatever their key order."""
    if isinstance(arguments, str):
        text = arguments
        try:
            arguments = json.loads(text)
        except json.JSONDecodeError:
            return name, text
    return name, json.dumps(arguments, sort_keys=True, ensure_ascii=False)


def last_user_index(messages: list[dict[str, Any]]) -> int:
    """Where the turn starts: the index of the last user message (-1: none)."""
    return max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)


def calls_this_turn(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The tool calls made since the last user message (a turn), as call keys."""
    last_user = last_user_index(messages)
    keys = []
    for message in messages[last_user + 1:]:
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            keys.append(call_key(function.get("name", ""), function.get("arguments", "{}")))
    return keys


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def trailing_results(messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(the assistant message that made the calls, their results) when `messages` end with tool
    results; None otherwise."""
    results = list(itertools.takewhile(lambda m: m.get("role") == "tool", reversed(messages)))[::-1]
    if not results or len(results) == len(messages):
        return None
    return messages[-len(results) - 1], results


SYSTEM_MARK = "@@agent-memory-system-prompt@@"


def stable_first(prompt: str, system: str) -> str:
    """Put what the template appends to the system message (the tool definitions) before it.

    The system message holds the memory, which changes during a session; the tools do not. With
    the tools first, a changed note costs only the tokens after it, not the whole tools block.
    `prompt` was rendered with `SYSTEM_MARK` as the system message's content.
    """
    at = prompt.find(SYSTEM_MARK)
    end = prompt.find("<|im_end|>", at) if at >= 0 else -1  # ChatML; other templates keep their order
    if at < 0:
        return prompt
    if end < 0:
        return prompt.replace(SYSTEM_MARK, system, 1)
    tail = prompt[at + len(SYSTEM_MARK):end].strip("\n")
    if not tail:
        return prompt.replace(SYSTEM_MARK, system, 1)
    return prompt[:at] + tail + "\n\n" + system + prompt[end:]
