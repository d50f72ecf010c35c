"""Stage 8 — persistence (notebook 08): the memory lifecycle in three calls, open, run turns, end the session.

    session = open_memory(store, "acme-travel", "maya", model=model)
    turn = await session.run_turn("From now on I want vegetarian meals.")
    report = await session.end_session()   # stage + consolidate + commit, in one call
    print(report.summary())

`open_memory` loads the user's profile and live notes from the store into a `MemoryState`
that shares the store's clock (one "now" for both: no `pinned_now` to keep in step), and
builds the concierge with memory instructions, hooks, prompt capture, trimming and tool-output
truncation. Each `run_turn` stages the notes captured so far in the store, so a crash loses
none. `end_session` consolidates the session into long-term memory, commits the result in one
transaction and reports what changed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import FrozenInstanceError, dataclass, field, fields, is_dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from agents import Agent, ModelSettings, RunConfig
from agents.items import ToolCallItem, ToolCallOutputItem
from agents.models.interface import Model
from openai.types.responses import ResponseFunctionToolCall
from pydantic import BaseModel

from helpers import consolidation
from helpers.budget import TokenCounter, count_tokens
from helpers.concierge import make_concierge, run_turn
from helpers.conversations import Conversations
from helpers.hooks import CapturedCall, MemoryInstructions, PromptCapture
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.state import Clock, LedgerEntry, MemoryNote, MemoryState, parse_time
from helpers.store import MemoryStore, UserMemory
from helpers.caseless import loose
from helpers.store_erasure import Erasure, ErasureNotice
from helpers.tools import save_memory_note
from helpers.trimming import CompactingSession, TrimmingSession, tool_output_filter

DEFAULT_MAX_TOOL_OUTPUT_CHARS = 4000


class MovableClock:
    """A clock an app or an eval moves on between sessions: `clock.advance(days=9)`.

    Open the store with it (`MemoryStore.open(path, clock=clock)`); every state opened through
    `open_memory` then reads the same "now".
    """

    def __init__(self, start: str | datetime):
        self.now = parse_time(start) if isinstance(start, str) else start

    def __call__(self) -> datetime:
        return self.now

    def set(self, instant: str | datetime) -> None:
        self.now = parse_time(instant) if isinstance(instant, str) else instant

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str
    output: str | None = None
    result: Any = field(default=None, repr=False)  # what the tool returned (e.g. a SearchOutcome)


@dataclass
class TurnResult:
    """One user turn: what the agent answered and did, and what it cost."""

    turn: int
    message: str
    answer: str
    tool_calls: list[ToolCall]
    notes_saved: list[MemoryNote]  # captured this turn (session notes, any scope)
    refused: list[LedgerEntry]  # write attempts the write policy refused this turn
    prompts: list[CapturedCall] = field(repr=False)  # every model call of the turn, exactly as sent
    input_tokens: int
    token_source: str  # "model usage", or an estimate when the model reports none
    seconds: float

    @property
    def model_calls(self) -> int:
        return len(self.prompts)


@dataclass
class SessionReport:
    """What ending a session changed in long-term memory."""

    session_id: str
    captured: list[MemoryNote]  # notes the session wrote, before consolidation
    added: list[MemoryNote]  # now in long-term memory
    retired: list[
        consolidation.MergeDecision
    ]  # old notes kept as superseded (duplicate, merged, superseded)
    dropped: list[
        consolidation.MergeDecision
    ]  # session-scoped or refused: not for long-term memory
    needs_user: list[consolidation.Conflict]
    consolidation: consolidation.ConsolidationReport
    seconds: float

    @property
    def how(self) -> str:
        """How consolidation ran: rules only, the model's plan, or why the model was not used."""
        r = self.consolidation
        return (
            f"fallback ({r.fallback_reason})"
            if r.fallback_reason
            else "model plan applied"
            if r.model_used
            else f"rules only (model skipped: {r.model_skipped})"
            if r.model_skipped
            else "rules only"
        )

    def summary(self) -> str:
        lines = [
            f"session {self.session_id}: {len(self.captured)} captured, {len(self.added)} added, "
            f"{len(self.retired)} retired, {len(self.dropped)} dropped; "
            f"{self.how} ({self.seconds:.1f} s)"
        ]
        lines += [f"  + {n.text}" for n in self.added]
        lines += [f"  ~ {d.note_id} {d.outcome} -> {d.target} ({d.reason})" for d in self.retired]
        lines += [f"  - {d.note_id} {d.outcome} ({d.reason})" for d in self.dropped]
        lines += [f"  ? {c.texts[0]!r} vs {c.texts[1]!r}" for c in self.needs_user]
        return "\n".join(lines)


def _estimate(calls: list[CapturedCall], counter: TokenCounter) -> int:
    return sum(
        counter(c.system_prompt)
        + counter(json.dumps(c.input_items, ensure_ascii=False, default=str))
        for c in calls
    )


def _tool_calls(items: list[Any]) -> list[ToolCall]:
    """The function calls of a run, each with the output it got."""
    outputs: dict[Any, Any] = {}
    for item in items:
        if isinstance(item, ToolCallOutputItem):
            raw = item.raw_item
            call_id = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)
            outputs[call_id] = item.output
    return [
        ToolCall(item.raw_item.name, item.raw_item.arguments,
                 None if (got := outputs.get(item.raw_item.call_id)) is None else str(got), got)
        for item in items
        if isinstance(item, ToolCallItem) and isinstance(item.raw_item, ResponseFunctionToolCall)
    ]


ERASED = "[erased]"


class Erased:
    """What an erasure took, as a test on text: `mentions(text)` is True when the text contains
    one of the `words` (`loose`: any case, any accents) or an erased note's text, or when one of
    its lines says all that an erased note says (`consolidation.carries`: "My partner Alex
    travels with me" says "Travels with partner Alex"). `redacted(value)` rewrites what an app
    keeps in memory (prompts captured for the inspector, turn results) with the marker
    "[erased]" in place of each line that mentions it, and an erased note's id as the keyed id
    its audit row keeps; counts, turn numbers and the other lines stay."""

    def __init__(self, words: Iterable[str] = (), texts: Iterable[str] = (), ids: Iterable[str] = (),
                 audit_id: Callable[[str], str] = lambda note_id: ERASED, *, everything: bool = False):
        self.texts = [t for t in texts if t.strip()]
        self.needles = [loose(w) for w in [*words, *self.texts] if w.strip()]
        self.ids, self.audit_id, self.everything = set(ids), audit_id, everything

    def __bool__(self) -> bool:
        return bool(self.needles or self.ids or self.everything)

    def _line(self, line: str) -> bool:
        return bool(line.strip()) and any(consolidation.carries(line, t) for t in self.texts)

    def mentions(self, text: str) -> bool:
        if not text or not self:
            return False
        if self.everything:
            return bool(text.strip())
        folded = loose(text)
        return any(n in folded for n in self.needles) or any(self._line(line) for line in text.splitlines())

    def redact(self, text: str) -> str:
        if text in self.ids:
            return self.audit_id(text)
        if not self.mentions(text):
            return text
        lines = text.split("\n")
        kept = [ERASED if self.mentions(line) else line for line in lines]
        return "\n".join(kept) if kept != lines else ERASED  # else the words run across lines

    def redacted(self, value: Any, memo: dict[int, tuple[Any, Any]] | None = None) -> Any:
        """`value` with what was erased redacted: lists, dicts and dataclasses in place (a frozen
        dataclass or a tuple is copied), a note copied (never the state's own note)."""
        memo = {} if memo is None else memo
        if isinstance(value, str):
            return self.redact(value)
        if id(value) in memo:
            return memo[id(value)][1]
        result = value
        if isinstance(value, MemoryNote):
            said = [value.text, value.source_ref, *value.keywords]
            if value.id in self.ids or any(self.mentions(t) for t in said):
                result = replace(value, text=ERASED, keywords=[], source_ref=self.redact(value.source_ref),
                                 id=self.audit_id(value.id) if value.id in self.ids else value.id,
                                 supersedes=value.supersedes and self.redact(value.supersedes),
                                 superseded_by=value.superseded_by and self.redact(value.superseded_by))
        elif isinstance(value, list):
            memo[id(value)] = (value, value)
            value[:] = [self.redacted(v, memo) for v in value]
        elif isinstance(value, dict):
            memo[id(value)] = (value, value)
            for key in list(value):
                value[key] = self.redacted(value[key], memo)
        elif isinstance(value, tuple):
            parts = [self.redacted(v, memo) for v in value]
            if any(a is not b for a, b in zip(parts, value)):
                result = type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
        elif is_dataclass(value) and not isinstance(value, type):
            memo[id(value)] = (value, value)
            changed = {f.name: new for f in fields(value)
                       if (new := self.redacted(getattr(value, f.name), memo)) is not getattr(value, f.name)}
            try:
                for name, new in changed.items():
                    setattr(value, name, new)
            except FrozenInstanceError:  # raised at the first field: nothing was changed
                result = replace(value, **changed)
        elif isinstance(value, BaseModel):  # an SDK item: its dump, when something in it went
            dumped = value.model_dump()
            if self.redacted(dumped, memo) != value.model_dump():
                result = dumped
        memo[id(value)] = (value, result)  # both kept alive: an id is not reused while memo lives
        return result


class MemorySession:
    """One conversation with one user's memory; made by `open_memory`."""

    def __init__(
        self,
        memory: UserMemory,
        state: MemoryState,
        agent: Agent[MemoryState],
        *,
        capture: PromptCapture,
        session: TrimmingSession | CompactingSession,
        run_config: RunConfig,
        consolidation_model: Model | str | None,
        consolidation_timeout: float,
        recency: bool,
        write_policy: Any,
        counter: TokenCounter,
        max_model_calls: int,
    ):
        self.memory, self.state, self.agent = memory, state, agent
        self.capture, self.session, self.run_config = capture, session, run_config
        self.consolidation_model = consolidation_model
        self.consolidation_timeout, self.recency = consolidation_timeout, recency
        self.write_policy = write_policy
        self.counter, self.max_model_calls = counter, max_model_calls
        self.turns: list[TurnResult] = []
        self.report: SessionReport | None = None
        self.default_profile: dict[str, Any] | None = None  # what open_memory loaded without a stored one
        self.erasure_mark: Any = None  # the store's erasure mark when this session read its memory
        self.conversations: Conversations | None = None  # where the user's conversations are kept

    @property
    def session_id(self) -> str:
        return self.state.session_id

    @property
    def clock(self) -> Clock:
        return self.state.clock

    async def _drop_erased(self, words: Iterable[str] = (), texts: Iterable[str] = ()) -> None:
        """Notes erased from the store since this session loaded or staged them (forget,
        erase_user, an import, through any handle) leave the session too: no later prompt shows
        them, and the store never writes them back. After an erasure the profile and long-term
        notes are read again (a `forget(matching=)` clears profile values too; a note an erasure
        made live again comes back with them), and the turns of history that said an erased note,
        and its lines in the prompts kept for inspection, go as in `forget`. Between erasures
        this is one index lookup (`UserMemory.erasure_mark`), and the profile the app holds is
        its own: a change the app made to `state.profile` is not read over. `words`: what
        `forget(matching=)` asked for, erased from the conversation even if the store held none.
        After `erase_user` the whole conversation goes: its history, and every line of the
        captured prompts and turn results becomes "[erased]" (counts stay). `texts`: what the
        erased notes said, when the caller read it before the erasure."""
        words = [w for w in words if w]
        mark = self.memory.erasure_mark()
        changed = mark != self.erasure_mark
        if not changed and not words:
            return
        gone: set[str] = set()
        held: list[MemoryNote] = []
        if changed:
            self.erasure_mark = mark
            gone = self.memory.erased()
            held = [n for n in self.state.global_notes + self.state.session_notes if n.id in gone]
            fresh = self.memory.load_state(self.default_profile)
            self.state.profile, self.state.global_notes = fresh.profile, fresh.global_notes
            self.state.session_notes = [n for n in self.state.session_notes if n.id not in gone]
        # The whole user erased (erase_user is the newest erasure): the conversation goes too.
        everything = isinstance(mark, tuple) and mark[-1] == "erase_user" and changed
        await self._forget_in_session(Erased(words, [*texts, *(n.text for n in held)], gone,
                                             audit_id=self.memory._store.audit_id, everything=everything))

    async def _forget_in_session(self, erased: Erased) -> None:
        """Erase from this conversation's history (and its compaction summary, if it has one) and
        from what the app keeps of it in memory: the captured prompts, the turn results, the last
        rendered instructions, the report of an ended session."""
        if not erased:
            return
        await self.session.forget(erased.mentions)
        await self._forget_in_stored(erased)
        memo: dict[int, tuple[Any, Any]] = {}
        for kept in (self.capture.calls, self.turns, self.state.ledger, self.report):
            erased.redacted(kept, memo)
        for instructions in {id(i): i for i in (self.capture.instructions, self.agent.instructions)}.values():
            if isinstance(instructions, MemoryInstructions) and instructions.last is not None:
                instructions.last = erased.redacted(copy.deepcopy(instructions.last), memo)

    async def _forget_in_stored(self, erased: Erased) -> None:
        """The user's other stored conversations (ended or not, from any process) lose the same
        turns and summary lines; the store's files are scrubbed (`Conversations`)."""
        if self.conversations is not None:
            await forget_in_conversations(self.conversations, self.memory.tenant_id, self.memory.user_id,
                                          erased, skip={self.session_id})

    async def forget(self, note_id: str | None = None, *, matching: str | None = None,
                     reason: str = "user request") -> Erasure:
        """Erase from the store (`UserMemory.forget`) and from this conversation: the session
        reads its memory again, and drops every turn of its history that mentions what was
        erased (the `matching` words, or an erased note it held: its text, or a line that says
        all it says), tool calls and all, so no later prompt carries it; a compaction summary
        loses the lines that mention it (`trimming.forget_in_summary`).

        What the app keeps in memory goes too: in the prompts captured for inspection
        (`self.capture`), the turn results (`self.turns`) and the last rendered instructions,
        each line that mentions it becomes "[erased]", an erased note's text becomes "[erased]"
        and its id the keyed id of its audit row; turn numbers, call counts and token counts
        stay, so the inspector still shows that a call happened and what it cost."""
        # What the erased notes said, read before they go: the user's other stored conversations
        # (which this session never loaded) are searched for it too.
        before = {n.id: n.text for n in [*self.memory.staged_notes(), *self.memory.active_notes()]}
        erased = self.memory.forget(note_id, matching=matching, reason=reason)
        kept = {n.id for n in [*self.memory.staged_notes(), *self.memory.active_notes()]}
        await self._drop_erased([matching] if matching else [],
                                [text for i, text in before.items() if i not in kept])
        return erased

    async def run_turn(self, message: str) -> TurnResult:
        """Run one user turn; the notes captured so far are staged in the store even if it fails."""
        if self.report is not None:
            raise RuntimeError(
                f"session {self.session_id} has ended; open_memory() starts the next one"
            )
        await self.session.load()  # a stored conversation resumes (its turns and trim state)
        await self._drop_erased()
        started, calls_before = time.perf_counter(), len(self.capture.calls)
        notes_before, ledger_before = len(self.state.session_notes), len(self.state.ledger)
        try:
            result = await run_turn(
                self.agent,
                self.state,
                message,
                capture=self.capture,
                # TrimmingSession keeps the Session protocol with plain-dict items.
                session=self.session,  # type: ignore[arg-type]
                run_config=self.run_config,
                max_turns=self.max_model_calls,
            )
        finally:
            self.memory.stage_session_notes(self.session_id, self.state.session_notes)
        calls = self.capture.calls[calls_before:]
        used, source = result.context_wrapper.usage.input_tokens, "model usage"
        if not used:  # scripted models report no usage: count what they were sent
            used = _estimate(calls, self.counter)
            source = "o200k_base estimate" if self.counter is count_tokens else "counted"
        tool_calls = _tool_calls(result.new_items)
        turn = TurnResult(
            turn=self.state.turn_index,
            message=message,
            answer=str(result.final_output or ""),
            tool_calls=tool_calls,
            notes_saved=self.state.session_notes[notes_before:],
            refused=[e for e in self.state.ledger[ledger_before:] if not e.allowed],
            prompts=calls,
            input_tokens=used,
            token_source=source,
            seconds=time.perf_counter() - started,
        )
        self.turns.append(turn)
        return turn

    async def end_session(self) -> SessionReport:
        """Consolidate the session into long-term memory and commit it in one transaction."""
        if self.report is not None:
            return self.report
        started = time.perf_counter()
        await self._drop_erased()
        state = self.state
        captured = list(state.session_notes)
        before = {n.id: (n.status, n.superseded_by, n.supersedes) for n in state.global_notes}
        self.memory.stage_session_notes(
            self.session_id, captured
        )  # nothing lost if consolidation dies
        # The write policy reaches consolidation only when the app chose one.
        policy = {} if self.write_policy is None else {"write_policy": self.write_policy}
        report = await consolidation.consolidate(
            state,
            self.consolidation_model,
            clock=self.clock,
            timeout=self.consolidation_timeout,
            recency=self.recency,
            **policy,
        )
        changed = [
            n
            for n in state.global_notes
            if before.get(n.id) != (n.status, n.superseded_by, n.supersedes)
        ]
        self.memory.commit_consolidation(self.session_id, changed)
        decisions = report.decisions.values()
        added = [d.note_id for d in decisions if d.outcome == "added"] + report.created
        self.report = SessionReport(
            session_id=self.session_id,
            captured=captured,
            added=[n for i in added if (n := state.find_note(i)) is not None],
            retired=[d for d in decisions if d.outcome in ("duplicate", "merged", "superseded")],
            dropped=report.dropped,
            needs_user=list(report.needs_user),
            consolidation=report,
            seconds=time.perf_counter() - started,
        )
        return self.report


async def forget_in_conversations(conversations: Conversations, tenant_id: str, user_id: str, erased: Erased,
                                  *, skip: Iterable[str] = ()) -> None:
    """Every stored conversation of one user (but the session ids in `skip`) loses the turns and
    summary lines that mention what was erased; the files are scrubbed (`Conversations`)."""
    skip = set(skip)
    for session_id in conversations.session_ids(tenant_id, user_id):
        if session_id not in skip:
            # A session that never cuts (max_turns is out of reach) only loads, forgets, saves.
            stored = CompactingSession(session_id, "unused", max_turns=2**31, keep_turns=1,
                                       max_tool_output_chars=None,
                                       stored=conversations.open(tenant_id, user_id, session_id))
            await stored.forget(erased.mentions)


class ConversationEraser:
    """A store's erasure listener (`StoreBase.erasure_listeners`): the user's stored conversations
    lose what the erasure took as soon as the store commits it, whoever erased (a session, a
    handle from `store.for_user`, an admin script). Runs in a thread of its own, so a caller
    inside a running event loop (a notebook) is no obstacle."""

    def __init__(self, conversations: Conversations, audit_id: Callable[[str], str] = lambda note_id: ERASED):
        self.conversations, self.audit_id = conversations, audit_id

    def __call__(self, notice: ErasureNotice) -> None:
        erased = Erased(notice.words, notice.texts, notice.ids, self.audit_id, everything=notice.everything)
        if not erased:
            return
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, forget_in_conversations(self.conversations, notice.tenant_id,
                                                             notice.user_id, erased)).result()


def watch_conversations(store: Any, conversations: Conversations) -> ConversationEraser:
    """Make every erasure `store` commits reach `conversations` at once (`ConversationEraser`);
    once per place the conversations are kept. `open_memory` calls it; a process that erases
    without opening a session (an admin script) calls it itself."""
    for listener in store.erasure_listeners:
        if isinstance(listener, ConversationEraser) and listener.conversations.same_place(conversations):
            return listener
    eraser = ConversationEraser(conversations, store.audit_id)
    store.erasure_listeners.append(eraser)
    return eraser


def open_memory(
    store: MemoryStore,
    tenant_id: str,
    user_id: str,
    *,
    model: Model | None = None,
    clock: Clock | None = None,
    write_policy: Any = None,
    policy: Policy = DEFAULT_POLICY,
    session_id: str | None = None,
    tools: list[Any] | None = None,
    default_profile: dict[str, Any] | None = None,
    model_settings: ModelSettings | None = None,
    max_tool_output_chars: int | None = DEFAULT_MAX_TOOL_OUTPUT_CHARS,
    max_turns_kept: int = 8,
    compaction_model: Model | None = None,
    consolidation_model: Model | str | bool | None = True,
    consolidation_timeout: float = consolidation.DEFAULT_TIMEOUT,
    recency: bool = True,
    capture: PromptCapture | None = None,
    counter: TokenCounter = count_tokens,
    max_model_calls: int = 6,
    conversations: Conversations | str | None = "beside the store",
) -> MemorySession:
    """Open one user's memory for a new session.

    model: the agent's model (default: `helpers.llm.get_model()`).
    clock: must be the store's (the default): store and state share one "now".
    write_policy: a `helpers.write_policy.WritePolicy` for the capture tool and consolidation;
        None keeps the library's default.
    tools: extra tools beside `save_memory_note`.
    max_tool_output_chars: tool outputs are cut to this before every model call; None: never.
    max_turns_kept: history keeps this many user turns; older ones are dropped, or with
        `compaction_model` folded into a summary that model writes (`CompactingSession`,
        keeping the last three).
    consolidation_model: True (default) consolidates with `model`; None or False, rules only;
        or another model.
    capture: a PromptCapture to continue (turn numbers go on from its last turn).
    max_model_calls: per turn (the SDK's max_turns); a tool call and the answer are two.
    conversations: where the conversation is kept (`helpers.conversations.Conversations`); by
        default an SDK session beside the store (none for a ":memory:" store); None: in memory
        only. Opening a `session_id` again, after a restart too, resumes its conversation, its
        staged notes and its trim state.
    """
    if clock is not None and clock is not store.clock:
        raise ValueError(
            "store and state share one clock: open the store with MemoryStore.open(..., clock=...)"
        )
    if model is None:
        from helpers.llm import get_model  # loads the embedded model only when needed

        model = get_model()
    memory = store.for_user(tenant_id, user_id)
    mark = memory.erasure_mark()  # before loading: an erasure in between is seen at the first turn
    session_id = session_id or f"session:{store.clock().strftime('%Y-%m-%dT%H:%M:%S')}"
    state = memory.load_state(default_profile, session_id=session_id)
    state.clock = store.clock
    if session_id in memory.pending_sessions():  # a session reopened: its staged notes come back
        state.session_notes = memory.staged_notes(session_id)
    if conversations == "beside the store":
        conversations = Conversations.beside(store)
    if isinstance(conversations, str):
        raise ValueError(f"conversations: a Conversations, None or the default, got {conversations!r}")
    if conversations is not None:
        watch_conversations(store, conversations)
    stored = conversations.open(tenant_id, user_id, session_id) if conversations is not None else None
    if write_policy is not None:
        state.write_policy = write_policy  # the capture tool and consolidation read it
    capture = capture if capture is not None else PromptCapture()
    state.turn_index = max(capture.turns(), default=0)
    agent = make_concierge(model=model, policy=policy, tools=[save_memory_note, *(tools or [])])
    if model_settings is not None:
        agent = agent.clone(model_settings=model_settings)
    if isinstance(agent.instructions, MemoryInstructions):  # so the capture keeps each rendering
        capture.instructions = agent.instructions
    session: TrimmingSession | CompactingSession
    if compaction_model is None:
        session = TrimmingSession(
            session_id,
            max_turns=max_turns_kept,
            state=state,
            max_tool_output_chars=max_tool_output_chars,
            stored=stored,
        )
    else:
        session = CompactingSession(
            session_id,
            compaction_model,
            max_turns=max_turns_kept,
            keep_turns=max(1, min(3, max_turns_kept - 1)),
            state=state,
            max_tool_output_chars=max_tool_output_chars,
            stored=stored,
        )
    run_config = RunConfig(
        tracing_disabled=True,
        call_model_input_filter=(
            tool_output_filter(max_tool_output_chars) if max_tool_output_chars is not None else None
        ),
    )
    if consolidation_model is True:
        consolidation_model = model
    opened = MemorySession(
        memory,
        state,
        agent,
        capture=capture,
        session=session,
        run_config=run_config,
        consolidation_model=consolidation_model or None,
        consolidation_timeout=consolidation_timeout,
        recency=recency,
        write_policy=write_policy,
        counter=counter,
        max_model_calls=max_model_calls,
    )
    opened.default_profile, opened.erasure_mark = default_profile, mark
    opened.conversations = conversations
    return opened


__all__ = [
    "ConversationEraser",
    "MemorySession",
    "MovableClock",
    "SessionReport",
    "ToolCall",
    "TurnResult",
    "forget_in_conversations",
    "open_memory",
    "watch_conversations",
]
