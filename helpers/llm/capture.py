"""The capture question: which lasting facts did the user state? Its answers become memory-tool calls.

Taught in notebook 02 (capture) and shown in 00. A small model mid-task rarely stops to call a memory
tool; asked this one question on its own, with worked examples, it lists the facts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from helpers.llm.grammar import COMPACT_JSON
from helpers.llm.turn import last_user_index, text_of, trailing_results


CAPTURE_INSTRUCTIONS = """\
You read one message from a user to their assistant and list what the assistant should remember \
about the user for future conversations: each lasting fact or preference the user states about \
themselves, one short third-person sentence per fact, with one to three lower-case topic keywords \
taken from the message.
Write each fact as it now stands ("Lives in Oslo", not "Moved from Rome to Oslo").
Do not list requests, questions, the places or dates of one trip, or anything the user did not say.
Reply with a JSON list; [] when the message states nothing lasting."""

# Worked examples, in a domain of their own: the model learns the shape, not the answers.
CAPTURE_EXAMPLES: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = (
    ("I'm a nurse and I've just moved from Leeds to York. Can you book a table for two at 8?",
     ({"text": "Works as a nurse", "keywords": ["work"], "kind": "fact"},
      {"text": "Lives in York", "keywords": ["home"], "kind": "fact"})),
    ("What's the weather like in Rome next week?", ()),
    ("Just this once I'd take the train. Oh, and I can't eat dairy, and I like quiet places.",
     ({"text": "Would take the train this time", "keywords": ["train"], "kind": "preference"},
      {"text": "Cannot eat dairy", "keywords": ["dairy"], "kind": "fact"},
      {"text": "Likes quiet places", "keywords": ["quiet"], "kind": "preference"})),
    ("[The assistant read the result of get_opening_hours:]\nCity Library: Mon-Fri 09:00-18:00, Sat 10:00-14:00.",
     ()),
)


@dataclass(frozen=True)
class CaptureQuestion:
    """What `LocalModel` asks the embedded model before a turn's first call: which lasting facts
    did the user state? The answers become calls to the memory tool, so the write policy checks
    each one as it checks any call.

    Why: a 1.5B model in the middle of a task rarely stops to call a memory tool (measured: 32 %
    of stated facts), but asked this one question on its own, with worked examples (three
    messages and a tool result), it lists them. After a tool result it is asked again with what
    the tool returned: a small model falls for planted text there too, and the write policy is
    what stops it.
    """

    instructions: str = CAPTURE_INSTRUCTIONS
    examples: tuple[tuple[str, tuple[dict[str, Any], ...]], ...] = CAPTURE_EXAMPLES
    max_notes: int = 4
    max_document_chars: int = 2000  # of a tool result shown with the question

    def messages(self, said: str, read: Sequence[tuple[str, str]] = ()) -> list[dict[str, Any]]:
        """The question as chat messages: the user's message, then any tool results (name, text)."""
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.instructions}]
        for message, notes in self.examples:
            messages += [{"role": "user", "content": message},
                         {"role": "assistant", "content": json.dumps(list(notes))}]
        if read:  # the user's message was asked about already: now only what the tools returned
            said = "\n\n".join(f"[The assistant read the result of {name}:]\n{text[:self.max_document_chars]}"
                                 for name, text in read)
        return [*messages, {"role": "user", "content": said}]

    def grammar(self, parameters: dict[str, Any]) -> str:
        """A JSON list of up to `max_notes` argument objects for the memory tool."""
        schema = {"type": "array", "items": parameters, "maxItems": self.max_notes, "x-guidance": COMPACT_JSON}
        return "%llguidance {}\nstart: %json " + json.dumps(schema) + "\n"


DEFAULT_CAPTURE = CaptureQuestion()


def capture_stage(messages: list[dict[str, Any]], memory_tool: str) -> tuple[str, list[tuple[str, str]]] | None:
    """When `LocalModel` asks the capture question: (the user's message, tool results to show).

    At a turn's first call (nothing since the user's message), and when the messages end with
    the results of another tool (a document the model just read); never after the memory tool's
    own results, so a turn asks at most once per thing read.
    """
    last_user = last_user_index(messages)
    if last_user < 0:
        return None
    said, turn = text_of(messages[last_user].get("content")), messages[last_user + 1:]
    if not turn:
        return said, []
    if (last := trailing_results(turn)) is None:
        return None
    caller, results = last
    names = {c.get("id"): c.get("function", {}).get("name", "a tool") for c in caller.get("tool_calls") or []}
    read = [(names.get(m.get("tool_call_id"), "a tool"), text_of(m.get("content"))) for m in results
            if names.get(m.get("tool_call_id")) != memory_tool]
    return (said, read) if read else None
