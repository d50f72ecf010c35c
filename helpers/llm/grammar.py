"""Grammars and parsing: what the embedded model may write, and reading what it wrote.

Taught in notebook 00. `build_grammar` turns the offered tools' JSON schemas into one llguidance
grammar (a call to an offered tool, or prose); `parse_output` reads a completion back as calls or text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


COMPACT_JSON = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}

# Prose may not begin with "{", "<" or whitespace, so a call can never hide inside it, and holds
# no "`" or "_": no code block and no tool name, so the answer cannot describe a call instead of
# making it ("use the `search_flights` function with ...", a habit of small coder models).
_PROSE_RULE = r"answer: /[^{<`_\s][^`_]*/"


def tool_call_schema(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool["function"]
    return {
        "type": "object",
        "properties": {"name": {"const": function["name"]}, "arguments": function["parameters"]},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def _repeated(rule: str, times: int) -> str:
    """`rule`, then up to times-1 more, one per line: call ("\\n" call ("\\n" call)?)?"""
    return rule if times <= 1 else f'{rule} ("\\n" {_repeated(rule, times - 1)})?'


def build_grammar(tools: list[dict[str, Any]], output_schema: dict[str, Any] | None, *,
                  allow_calls: bool = True, allow_answer: bool = True, max_calls: int = 1) -> str:
    """An llguidance grammar: up to `max_calls` calls to offered tools, or the answer.

    The answer is prose (never starting with "{", "<", "`" or a space) or, with an output
    schema, one-line JSON matching it. Each call's JSON matches its tool's schema, with the
    tool's name as a constant.
    """
    rules = ["%llguidance {}"]
    choices = []
    if allow_calls and tools:
        schemas = [tool_call_schema(t) for t in tools]
        schema = {"anyOf": schemas} if len(schemas) > 1 else schemas[0]
        # Nested optional repeats: a cap, because small models given room repeat a call.
        rules.append(f"calls: {_repeated('call', max_calls)}")
        # The tags as text, not Qwen's special tokens: naming those in the grammar left the output
        # unconstrained here (fenced, pretty-printed JSON), so a bare JSON call stays allowed too.
        rules.append('call: "<tool_call>\\n" call_json "\\n</tool_call>" | call_json')
        rules.append("call_json: %json " + json.dumps({**schema, "x-guidance": COMPACT_JSON}))
        choices.append("calls")
    if allow_answer or not choices:
        if output_schema is not None:
            # One-line JSON: a pretty-printing model spends much of its token budget on indentation.
            compact = {**output_schema, "x-guidance": COMPACT_JSON}
            rules.append("answer: %json " + json.dumps(compact))
        else:
            rules.append(_PROSE_RULE)
        choices.append("answer")
    rules.insert(1, "start: " + " | ".join(choices))
    return "\n".join(rules) + "\n"


@dataclass
class ParsedOutput:
    kind: str  # "calls", "text" or "invalid_call"
    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    problem: str | None = None


_FUNCTION_STYLE = re.compile(r"^(\w+)\s*\(\s*(\{.*\})\s*\)\s*;?$", re.S)


def schema_problem(arguments: dict[str, Any], schema: dict[str, Any] | None) -> str | None:
    """Why `arguments` do not match a tool's JSON schema, or None when they do."""
    if not schema:
        return None
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(arguments))
    return None if error is None else error.message


def parse_output(text: str, offered: set[str] | dict[str, dict[str, Any] | None], *,
                 answer_is_json: bool = False) -> ParsedOutput:
    """Read what the model wrote: one or more tool calls (tagged or bare JSON) or the answer.

    `offered` maps each offered tool's name to its parameters' JSON schema (a set of names
    skips the check). With `answer_is_json` (an output type), a JSON object that is not a call
    to an offered tool is the answer, not a broken call. Never raises.
    """
    schemas = offered if isinstance(offered, dict) else dict.fromkeys(offered)
    stripped = text.strip()
    # Prose that is really a call written like Python: save_memory_note({"text": ...})
    as_function = _FUNCTION_STYLE.match(stripped)
    if as_function and as_function.group(1) in schemas:
        try:
            arguments = json.loads(as_function.group(2))
        except json.JSONDecodeError:
            arguments = None
        if isinstance(arguments, dict):
            name = as_function.group(1)
            if problem := schema_problem(arguments, schemas[name]):
                return ParsedOutput("invalid_call", stripped,
                                    problem=f"arguments of {name!r} do not match its schema: {problem}")
            return ParsedOutput("calls", stripped, calls=[(name, arguments)])
    body = stripped.replace("<tool_call>", "").replace("</tool_call>", "").strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    if not body.startswith("{"):
        return ParsedOutput("text", stripped)
    decoder, position = json.JSONDecoder(), 0
    calls: list[tuple[str, dict[str, Any]]] = []
    while position < len(body):
        try:
            data, end = decoder.raw_decode(body, position)
        except json.JSONDecodeError as error:
            if answer_is_json and not calls:
                return ParsedOutput("text", stripped)  # the SDK validates the answer itself
            return ParsedOutput("invalid_call", stripped, problem=f"invalid JSON: {error.msg}")
        if answer_is_json and not calls and not (isinstance(data, dict) and data.get("name") in schemas):
            return ParsedOutput("text", stripped)  # the structured answer
        if not isinstance(data, dict) or "name" not in data:
            return ParsedOutput("invalid_call", stripped, problem="JSON without a tool name")
        name, arguments = data["name"], data.get("arguments", {})
        if name not in schemas:
            return ParsedOutput("invalid_call", stripped, problem=f"tool {name!r} was not offered")
        if not isinstance(arguments, dict):
            return ParsedOutput("invalid_call", stripped,
                                problem=f"arguments of {name!r} are not a JSON object")
        if problem := schema_problem(arguments, schemas[name]):
            return ParsedOutput("invalid_call", stripped,
                                problem=f"arguments of {name!r} do not match its schema: {problem}")
        calls.append((name, arguments))
        position = end
        while position < len(body) and body[position].isspace():
            position += 1
    return ParsedOutput("calls", stripped, calls=calls)


def without_titles(schema: Any) -> Any:
    """A JSON schema without its "title" annotations (pydantic adds one per field).

    They change nothing in what the schema admits, and the model would read every one of them
    on every call: about 60 prompt tokens for the concierge's four tools.
    """
    if isinstance(schema, list):
        return [without_titles(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = without_titles(value)
    return out
