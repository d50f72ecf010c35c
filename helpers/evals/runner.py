"""One scenario: seed a store, run each session through the lifecycle API, read memory back."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from agents import ModelSettings
from agents.models.interface import Model

from helpers.budget import TokenCounter, count_tokens
from helpers.concierge import catalogue_tools
from helpers.evals.agents import ReplayModel
from helpers.evals.guards import RunOptions
from helpers.evals.scenarios import Scenario, SessionSpec, scenario_tool
from helpers.lifecycle import (
    DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    MovableClock,
    SessionReport,
    open_memory,
)
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.state import LedgerEntry, MemoryNote, MemoryState
from helpers.store import MemoryStore, UserMemory
from helpers.travel import SearchOutcome

ANSWER_MAX_TOKENS = 160  # per model response: room for a tool call or a short answer
SHARED_TENANT = "shared"  # where every user lives when the tenant guard is off


@dataclass
class SessionOutcome:
    """What one session did, and what memory held once it ended: the raw material of the checks."""

    spec: SessionSpec
    prompts: list[str] = field(default_factory=list)  # every model call's system prompt
    inputs: list[list[Any]] = field(default_factory=list)  # every model call's input items
    call_turns: list[int] = field(default_factory=list)  # every model call's user turn (1-based)
    answers: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    input_tokens: list[int] = field(default_factory=list)  # per user turn
    model_calls: list[int] = field(default_factory=list)  # per user turn
    seconds: list[float] = field(default_factory=list)  # per user turn
    token_source: str = "model usage"
    state: MemoryState | None = None
    report: SessionReport | None = None
    ledger: list[LedgerEntry] = field(default_factory=list)
    stored: list[MemoryNote] = field(
        default_factory=list
    )  # the user's notes after the session, any status
    staged: list[MemoryNote] = field(default_factory=list)
    live: list[MemoryNote] = field(
        default_factory=list
    )  # what the store serves as live after the session
    profile: dict[str, Any] = field(default_factory=dict)
    captured: list[str] = field(
        default_factory=list
    )  # "scope: text" of the notes the session wrote
    searches: list[tuple[int, SearchOutcome]] = field(
        default_factory=list
    )  # (user turn, what was searched after memory filled it) of every catalogue search
    consolidation: str = ""

    @property
    def tool_outputs(self) -> list[str]:
        return [
            str(i.get("output", ""))
            for items in self.inputs
            for i in items
            if isinstance(i, dict) and str(i.get("type", "")).endswith("_call_output")
        ]


@dataclass
class Outcome:
    """A scenario's run: one SessionOutcome per session, and what checks across sessions need."""

    scenario: Scenario
    sessions: list[SessionOutcome] = field(default_factory=list)
    seeded_ids: set[str] = field(default_factory=set)
    neighbours_changed: list[str] = field(default_factory=list)

    # The whole run at a glance (the last session for memory; every session for the rest).
    prompts = property(lambda self: [p for s in self.sessions for p in s.prompts])
    inputs = property(lambda self: [i for s in self.sessions for i in s.inputs])
    answers = property(lambda self: [a for s in self.sessions for a in s.answers])
    errors = property(lambda self: [e for s in self.sessions for e in s.errors])
    input_tokens = property(lambda self: [t for s in self.sessions for t in s.input_tokens])
    captured = property(lambda self: [c for s in self.sessions for c in s.captured])
    last = property(lambda self: self.sessions[-1])
    stored = property(lambda self: self.last.stored)
    live = property(lambda self: self.last.live)
    state = property(lambda self: self.last.state)
    consolidation = property(lambda self: "; ".join(s.consolidation for s in self.sessions))


def _seed(
    store: MemoryStore, tenant: str, user: str, profile: dict | None, notes: list[dict]
) -> UserMemory:
    handle = store.for_user(tenant, user)
    if profile:
        handle.save_profile(profile)
    handle.add_notes([MemoryNote.from_dict(n) for n in notes])
    return handle


async def _forget(session: Any, matching: str) -> None:
    """What the app does when the user asks to forget: erase from the store AND the session."""
    await session.forget(matching=matching)


def _notes(exported: dict[str, Any]) -> list[MemoryNote]:
    return [
        MemoryNote.from_dict(
            {k: v for k, v in n.items() if k not in ("session_id", "superseded_at")}
        )
        for n in exported["notes"]
    ]


def _error(where: str, error: Exception) -> str:
    return f"{where}: {type(error).__name__}: {str(error)[:200]}"


async def run_scenario(
    scenario: Scenario,
    model: Model | None = None,
    *,
    adversary: bool = False,
    policy: Policy = DEFAULT_POLICY,
    options: RunOptions = RunOptions(),
    counter: TokenCounter = count_tokens,
) -> Outcome:
    """Seed a fresh store, run each session through `helpers.lifecycle`, read back memory.

    model: the agent (a reference agent, or the real model); adversary=True replays each
    session's `adversary` script instead. `options` switches guards off (see guards.py).
    `counter` estimates input tokens when the model reports none (scripted models).
    """
    if (model is None) == (not adversary):
        raise ValueError("pass either a model or adversary=True")
    specs = scenario.sessions
    clock = MovableClock(specs[0].at)
    out = Outcome(scenario, seeded_ids={n.id for n in scenario.notes})
    tenant_of = (lambda tenant: tenant) if options.tenant_keyed else (lambda tenant: SHARED_TENANT)
    tools = [scenario_tool(k, v) for k, v in scenario.data.get("tools", {}).items()]
    if scenario.data.get("catalogue"):  # the notebooks' concierge: recall, and searches memory fills
        tools += catalogue_tools(policy, options.filler)
    max_chars = scenario.data.get("max_tool_output_chars", DEFAULT_MAX_TOOL_OUTPUT_CHARS)
    # Short answers keep the suite fast; the checks are about memory, not prose.
    settings = ModelSettings(
        tool_choice=scenario.data.get("tool_choice"), max_tokens=ANSWER_MAX_TOKENS
    )
    with MemoryStore.open(
        ":memory:", clock=clock, expiry=options.expiry, write_policy=options.write_policy
    ) as store:
        neighbours = {}
        for n in scenario.neighbours:
            handle = _seed(
                store, tenant_of(n["tenant"]), n["user"], n.get("profile"), n.get("notes", [])
            )
            for index in range(1, len(specs) + 1):
                if n.get("staged"):
                    handle.stage_session_notes(
                        scenario.session_id(index),
                        [MemoryNote.from_dict({"scope": "session", **x}) for x in n["staged"]],
                    )
            neighbours[(n["tenant"], n["user"])] = handle.export_json()
        user = _seed(
            store,
            tenant_of(scenario.tenant),
            scenario.user,
            scenario.data.get("profile"),
            scenario.data.get("notes", []),
        )
        for index, spec in enumerate(specs, start=1):
            clock.set(spec.at)
            agent = ReplayModel(spec.adversary) if adversary or model is None else model
            if options.wrap_model is not None:
                agent = options.wrap_model(agent)
            session_id = scenario.session_id(index)
            out.sessions.append(
                await _run_session(
                    scenario,
                    store,
                    user,
                    spec,
                    agent,
                    session_id=session_id,
                    policy=policy,
                    options=options,
                    tools=tools,
                    max_chars=max_chars if options.truncate_tool_output else None,
                    settings=settings,
                    plan_model=agent if scenario.data.get("consolidate") == "model" else None,
                    counter=counter,
                )
            )
        for (tenant, user_id), before in neighbours.items():
            if (tenant, user_id) != (scenario.tenant, scenario.user):
                if store.for_user(tenant_of(tenant), user_id).export_json() != before:
                    out.neighbours_changed.append(f"{tenant}/{user_id}")
    return out


async def _run_session(
    scenario: Scenario,
    store: MemoryStore,
    user: UserMemory,
    spec: SessionSpec,
    model: Model,
    *,
    session_id: str,
    policy: Policy,
    options: RunOptions,
    tools: list[Any],
    max_chars: int | None,
    settings: ModelSettings,
    plan_model: Model | None,
    counter: TokenCounter,
) -> SessionOutcome:
    out = SessionOutcome(spec)
    session = open_memory(
        store,
        user.tenant_id,
        user.user_id,
        model=model,
        write_policy=options.write_policy,
        policy=policy,
        session_id=session_id,
        tools=tools,
        model_settings=settings,
        max_tool_output_chars=max_chars,
        consolidation_model=plan_model,
        recency=options.recency,
        counter=counter,
    )
    if options.rewire is not None:
        options.rewire(session, store, scenario)
    out.state = session.state
    forget = options.forget or _forget
    for number, message in enumerate(spec.turns, start=1):
        started = time.perf_counter()
        calls_before = len(session.capture.calls)
        try:
            turn = await session.run_turn(message)
            out.answers.append(turn.answer)
            out.searches += [
                (turn.turn, c.result) for c in turn.tool_calls if isinstance(c.result, SearchOutcome)
            ]
            out.input_tokens.append(turn.input_tokens)
            if turn.token_source != "model usage":
                out.token_source = turn.token_source
        except Exception as error:  # noqa: BLE001 - a crash is a result to report, not to hide
            out.errors.append(
                _error(f"session {session_id} turn {session.state.turn_index}", error)
            )
            out.answers.append("")
        out.model_calls.append(len(session.capture.calls) - calls_before)
        out.seconds.append(time.perf_counter() - started)
        for asked in spec.forget:
            if asked["after_turn"] == number:
                try:
                    await forget(session, asked["matching"])
                except Exception as error:  # noqa: BLE001 - reported like a crash in a turn
                    out.errors.append(_error(f"forget in session {session_id}", error))
    out.prompts = [c.system_prompt for c in session.capture.calls]
    out.inputs = [c.input_items for c in session.capture.calls]
    out.call_turns = [c.turn for c in session.capture.calls]
    out.ledger = list(session.state.ledger)
    out.captured = [f"{n.scope}: {n.text}" for n in session.state.session_notes]
    try:
        out.report = await session.end_session()
        out.consolidation = out.report.how
    except Exception as error:  # noqa: BLE001 - reported as a failure, like a crash in a turn
        out.errors.append(_error(f"end of session {session_id}", error))
    exported = json.loads(user.export_json())
    out.stored = _notes(exported)
    out.staged = [MemoryNote.from_dict(s["note"]) for s in exported["staged"]]
    out.profile = exported["profile"] or {}
    out.live = user.active_notes()
    return out


__all__ = ["ANSWER_MAX_TOKENS", "Outcome", "SessionOutcome", "run_scenario"]
