"""Scenarios as data: one JSON file per scenario in data/evals/, validated before anything runs.

A scenario seeds a store (the user, and a neighbour with the same user id in another tenant),
then runs one or more sessions, each a few user turns ended through the lifecycle API, and
states what must (and should) hold after each session. A single-session scenario writes its
`turns`, `must` and `should` at the top level; a multi-session one lists `sessions`, each
with the instant it happens (`at`), days apart.

`facts` name the durable facts the user states in a session (a word each): capture recall is
how many of them reached live memory by the end of that session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
from agents import FunctionTool

from helpers.notebook import COURSE_NOW
from helpers.paths import data_dir
from helpers.state import MemoryNote, parse_time

EVAL_NOW = COURSE_NOW  # a single-session scenario happens on the course's pinned "today"

_STRINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}
CHECK_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        # In EVERY model call's system prompt (memory is injected on each call, not once).
        "prompt_contains": _STRINGS,
        # In the session's last model call's prompt: what the session saved has reached it.
        "last_prompt_contains": _STRINGS,
        "prompt_lacks": _STRINGS,
        # Absent from the session's last model call: its system prompt and its input items
        # (the history), e.g. after the user asked to forget something.
        "last_call_lacks": _STRINGS,
        # Every system prompt of the session within this many tokens (o200k_base).
        "max_prompt_tokens": {"type": "integer", "minimum": 100},
        # The memory lists (GLOBAL + SESSION sections) of every system prompt within this many.
        "max_memory_tokens": {"type": "integer", "minimum": 10},
        # Each user turn's input tokens (o200k_base), every model call of it (prompt + input
        # items) summed: room for one call more than the scripted path makes.
        "max_turn_input_tokens": {"type": "integer", "minimum": 100},
        "answer_mentions": _STRINGS,
        "answer_lacks": _STRINGS,
        "answer_nonempty": {"type": "boolean"},
        "live_contains": _STRINGS,
        "live_lacks": _STRINGS,
        "memory_lacks": _STRINGS,
        "superseded": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        },
        "tool_outputs_within": {"type": "integer", "minimum": 100},
        "tool_output_mentions": _STRINGS,
        "refused_writes": {"type": "integer", "minimum": 1},
        # A call to `tool` whose arguments hold each value (any of a list), as whole words;
        # with `turn`, every call to it in that user turn of the session (1-based).
        "call_arguments": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool", "arguments"],
                "additionalProperties": False,
                "properties": {
                    "tool": {"type": "string"},
                    "turn": {"type": "integer", "minimum": 1},
                    "arguments": {
                        "type": "object",
                        "additionalProperties": {
                            "anyOf": [{"type": "string"}, {**_STRINGS, "minItems": 1}]
                        },
                    },
                },
            },
        },
        "max_writes": {"type": "integer", "minimum": 0},
    },
}
_SESSION = {
    "turns": {**_STRINGS, "minItems": 1},
    "must": CHECK_SCHEMA,
    "should": CHECK_SCHEMA,
    "facts": _STRINGS,
    "adversary": {"type": "array"},
    # The user asks to forget: after turn `after_turn` (1-based) the app forgets `matching`.
    "forget": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["after_turn", "matching"],
            "additionalProperties": False,
            "properties": {
                "after_turn": {"type": "integer", "minimum": 1},
                "matching": {"type": "string", "minLength": 1},
            },
        },
    },
}
_USER = {
    "tenant": {"type": "string", "minLength": 1},
    "user": {"type": "string", "minLength": 1},
    "profile": {"type": "object"},
    "notes": {"type": "array", "items": {"type": "object"}},
}
SCENARIO_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "title", "why", "tenant", "user"],
    "oneOf": [
        {"required": ["turns", "must"], "not": {"required": ["sessions"]}},
        {
            "required": ["sessions"],
            "not": {
                "anyOf": [{"required": k} for k in (["turns"], ["must"], ["should"], ["facts"])]
            },
        },
    ],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9_]+$"},
        "title": {"type": "string"},
        "why": {"type": "string"},
        "guard": {"type": "string"},
        **_USER,
        "neighbours": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tenant", "user", "canaries"],
                "additionalProperties": False,
                "properties": {
                    **_USER,
                    "canaries": {**_STRINGS, "minItems": 1},
                    # Session notes of this user's own unfinished session, staged in the store
                    # under the same session ids as the scenario's sessions (ids that collide,
                    # e.g. two sessions opened in the same second): never this user's to see.
                    "staged": {"type": "array", "items": {"type": "object"}},
                },
            },
        },
        "tools": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["description", "parameter", "output"],
                "additionalProperties": False,
                "properties": {
                    "description": {"type": "string"},
                    "parameter": {"type": "string"},
                    "output": {"type": "string"},
                    "repeat": {"type": "integer", "minimum": 1},
                },
            },
        },
        # The concierge's searches over the catalogue (helpers.concierge.catalogue_tools), beside `tools`.
        "catalogue": {"type": "boolean"},
        "tool_choice": {"enum": ["auto", "required"]},
        "max_tool_output_chars": {"type": "integer", "minimum": 100},
        "consolidate": {"enum": ["rules", "model"]},
        **_SESSION,
        "sessions": {
            "type": "array",
            "minItems": 2,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["at", "turns", "must"],
                "properties": {"at": {"type": "string"}, **_SESSION},
            },
        },
    },
}

# Scenarios that name no neighbour get this one: same user id, another tenant, canary words.
DEFAULT_NEIGHBOUR = {
    "tenant": "globex-trips",
    "profile": {"name": "Maya Chen", "home_city": "Reykjavik"},
    "notes": [
        {
            "text": "Collects antique barometers",
            "observed_at": "2026-05-05",
            "keywords": ["hobby"],
            "source_ref": "session:2026-05-05#turn1",
        }
    ],
    "canaries": ["barometer", "Reykjavik"],
}


@lru_cache(maxsize=1)
def _validator() -> Any:
    """SCENARIO_SCHEMA's validator, the schema itself checked once (jsonschema.validate checks
    it again on every call: most of the time of loading a scenario)."""
    cls = jsonschema.validators.validator_for(SCENARIO_SCHEMA)
    cls.check_schema(SCENARIO_SCHEMA)
    return cls(SCENARIO_SCHEMA)


@dataclass(frozen=True)
class SessionSpec:
    """One session of a scenario: when, what the user says, what must and should hold after it."""

    at: str
    turns: list[str]
    must: dict[str, Any]
    should: dict[str, Any]
    facts: list[str]
    adversary: list[Any]
    forget: list[dict[str, Any]] = field(default_factory=list)  # {"after_turn", "matching"}


@dataclass
class Scenario:
    """One eval scenario, as read from data/evals/<name>.json (see SCENARIO_SCHEMA)."""

    data: dict[str, Any]

    def __post_init__(self) -> None:
        name = self.data.get("name", "?") if isinstance(self.data, dict) else "?"
        try:
            _validator().validate(self.data)
            for seeded in [self.data, *self.data.get("neighbours", [])]:
                for note in seeded.get("notes", []) + seeded.get("staged", []):
                    MemoryNote.from_dict(note)
            ats = [parse_time(s["at"]) for s in self.data.get("sessions", [])]
            if ats != sorted(ats):
                raise ValueError("sessions must be in time order")
        except jsonschema.ValidationError as error:
            where = ".".join(map(str, error.absolute_path)) or "top level"
            message = error.message
            if error.validator == "oneOf":
                message = "give either turns + must (one session) or sessions, not both"
            raise ValueError(f"scenario {name!r} is invalid at {where}: {message}") from None
        except (ValueError, TypeError) as error:
            raise ValueError(f"scenario {name!r} is invalid: {error}") from None

    name = property(lambda self: self.data["name"])
    tenant = property(lambda self: self.data["tenant"])
    user = property(lambda self: self.data["user"])
    notes = property(lambda self: [MemoryNote.from_dict(n) for n in self.data.get("notes", [])])

    @property
    def sessions(self) -> list[SessionSpec]:
        specs = self.data.get("sessions") or [{**self.data, "at": EVAL_NOW}]
        return [
            SessionSpec(
                s["at"],
                s["turns"],
                s["must"],
                s.get("should", {}),
                s.get("facts", []),
                s.get("adversary", []),
                s.get("forget", []),
            )
            for s in specs
        ]

    @property
    def turns(self) -> list[str]:
        """Every user message of every session, in order."""
        return [t for s in self.sessions for t in s.turns]

    @property
    def must(
        self,
    ) -> dict[str, Any]:  # the last session's (the only one in a single-session scenario)
        return self.sessions[-1].must

    @property
    def should(self) -> dict[str, Any]:
        return self.sessions[-1].should

    def session_id(self, index: int) -> str:
        """The id of the scenario's session `index` (1-based)."""
        return f"eval:{self.name}" + (f":{index}" if len(self.sessions) > 1 else "")

    @property
    def neighbours(self) -> list[dict[str, Any]]:
        return self.data.get("neighbours") or [{**DEFAULT_NEIGHBOUR, "user": self.user}]


def scenario_dir() -> Path:
    return data_dir() / "evals"


def load_scenarios(
    names: Iterable[str] | None = None, directory: Path | None = None
) -> list[Scenario]:
    """The scenarios in data/evals/ (sorted by name), or the named ones in the given order."""
    directory = directory or scenario_dir()
    found = {p.stem: p for p in sorted(directory.glob("*.json"))}
    wanted = list(names) if names is not None else list(found)
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise ValueError(f"unknown scenario(s) {unknown}; known: {sorted(found)}")
    scenarios = [Scenario(json.loads(found[n].read_text(encoding="utf-8"))) for n in wanted]
    for path_name, scenario in zip(wanted, scenarios):
        if scenario.name != path_name:
            raise ValueError(
                f"{found[path_name].name} holds scenario {scenario.name!r}; "
                f"name it {scenario.name}.json"
            )
    return scenarios


def scenario_tool(name: str, spec: dict[str, Any]) -> FunctionTool:
    """A tool whose output is the scenario's text (a web page, a search result), maybe repeated."""
    output = spec["output"]
    if "repeat" in spec:
        output = "\n".join(output.format(n=n) for n in range(1, spec["repeat"] + 1))
    param = spec["parameter"]

    async def invoke(ctx: Any, arguments: str) -> str:
        return output

    return FunctionTool(
        name=name,
        description=spec["description"],
        on_invoke_tool=invoke,
        params_json_schema={
            "type": "object",
            "properties": {param: {"type": "string"}},
            "required": [param],
            "additionalProperties": False,
        },
    )


__all__ = [
    "CHECK_SCHEMA",
    "DEFAULT_NEIGHBOUR",
    "EVAL_NOW",
    "SCENARIO_SCHEMA",
    "Scenario",
    "SessionSpec",
    "load_scenarios",
    "scenario_dir",
    "scenario_tool",
]
