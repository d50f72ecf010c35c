"""Stage 0 — the concierge (notebook 00): talk to it yourself, a chat widget with the prompt inspector.

Type a message and press Send. While the model works, a progress line shows the prompt's size, the
elapsed time and a rough estimate from this machine's measured speed. Then the answer appears with
the tool calls the model made (and what the write gate answered), the notes this session holds, and
in the inspector the exact prompt of every model call.

As with the other widgets, the work is in a plain function, `chat_turn`, that tests and cells can
call without a browser; `await chat.send("...")` does from a cell what the Send button does.
"""

from __future__ import annotations

import asyncio
import html
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
from agents import Agent, FunctionTool
from agents.exceptions import AgentsException
from agents.memory import Session
from agents.models.interface import Model

from helpers.budget import BudgetExceeded, ContextBudget, TokenCounter, count_tokens
from helpers.concierge import make_concierge, run_turn
from helpers.hooks import CapturedCall, MemoryInstructions, PromptCapture, render_prompt
from helpers.inspect import PromptInspector, SnapshotBox, _tool_calls, describe_call
from helpers.notebook import estimate_seconds
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.state import MemoryState


@dataclass
class ChatTurn:
    """One message and everything that came of it."""

    message: str
    answer: str
    tool_calls: list[str]  # "save_memory_note({...}) -> Saved (...): ..."
    notes_saved: list[str]  # session notes this turn added, "[scope] text"
    prompt_tokens: int | None  # the system prompt plus the message, counted before the run
    seconds: float
    calls: list[CapturedCall] = field(repr=False, default_factory=list)  # the exact prompts
    error: str | None = None


def prompt_tokens(agent: Agent[MemoryState], state: MemoryState, message: str,
                  counter: TokenCounter = count_tokens) -> int | None:
    """The size of the first model call's prompt (tool definitions + system prompt + message), before
    it is sent.

    The conversation history a session adds comes on top, and the model's chat template adds a few
    tokens of its own; None when the agent's instructions are not the course's MemoryInstructions,
    or the prompt is over budget.
    """
    instructions = agent.instructions
    if not isinstance(instructions, MemoryInstructions):
        return None
    try:
        rendered = render_prompt(state, policy=instructions.policy, base=instructions.base,
                                 budget=instructions.budget, counter=instructions.counter)
    except BudgetExceeded:
        return None  # the run itself will raise and say why
    tools = [{"name": t.name, "description": t.description, "parameters": t.params_json_schema}
             for t in agent.tools if isinstance(t, FunctionTool)]
    return counter((json.dumps(tools) + "\n" if tools else "") + rendered.text + "\n" + message)


async def chat_turn(agent: Agent[MemoryState], state: MemoryState, message: str, *,
                    capture: PromptCapture, counter: TokenCounter = count_tokens,
                    session: Session | None = None, tokens: int | None = None) -> ChatTurn:
    """Run one user message through the agent on `state`; record what it did.

    A turn the agent cannot finish (e.g. too many tool calls) comes back with its `error`;
    other errors propagate.
    """
    tokens = prompt_tokens(agent, state, message, counter) if tokens is None else tokens
    before = {note.id for note in state.session_notes}
    seen = len(capture.calls)
    started = time.perf_counter()
    try:
        result = await run_turn(agent, state, message, capture=capture, session=session)
        answer, calls, error = str(result.final_output), _tool_calls(result), None
    except AgentsException as err:
        answer, calls, error = "", [], f"{type(err).__name__}: {err}"
    saved = [f"[{n.scope}] {n.text}" for n in state.session_notes if n.id not in before]
    return ChatTurn(message, answer, calls, saved, tokens, time.perf_counter() - started,
                    capture.calls[seen:], error)


# --------------------------------------------------------------------------- as HTML

def _pre(text: str) -> str:
    return f"<pre style='white-space: pre-wrap; margin: 0'>{html.escape(text)}</pre>"


def turn_html(turn: ChatTurn) -> str:
    """One exchange: the message, the tool calls, the answer, the notes it saved."""
    parts = [f"<div class='chat-user'><b>you:</b> {html.escape(turn.message)}</div>"]
    parts += [f"<div class='chat-tool'>🔧 <code>{html.escape(call)}</code></div>" for call in turn.tool_calls]
    if turn.error:
        parts.append(f"<div class='chat-answer' style='color:#b00'>{html.escape(turn.error)}</div>")
    else:
        parts.append(f"<div class='chat-answer'><b>concierge:</b> {html.escape(turn.answer)}</div>")
    size = f"prompt ≈ {turn.prompt_tokens:,} tokens, " if turn.prompt_tokens else ""
    saved = f"; saved {'; '.join(turn.notes_saved)}" if turn.notes_saved else ""
    parts.append(f"<div style='color:#666; font-size: 90%'>({size}{turn.seconds:.0f} s{html.escape(saved)})"
                 "</div>")
    return "<div class='chat-turn' style='margin-bottom: 0.6em'>" + "".join(parts) + "</div>"


def notes_html(state: MemoryState) -> str:
    """The notes the next prompt can draw on: this session's, then long-term memory's live ones."""
    clock = state.clock
    rows = [f"[{n.scope}] {n.text}" + ("" if n.is_live(clock) else f"  ({n.status})")
            for n in state.session_notes]
    lasting = [f"{n.text}" for n in state.live_notes(clock, "global")]
    return (f"<b>Session notes ({len(rows)})</b>, saved in this conversation, scope in brackets:"
            + _pre("\n".join(rows) or "(none yet)")
            + f"<b>Long-term notes ({len(lasting)})</b>, live today:" + _pre("\n".join(lasting) or "(none)"))


# --------------------------------------------------------------------------- the widget

class ChatWidget(SnapshotBox):
    """A chat with the concierge on `state`, with progress, notes and the prompt inspector.

    Pass `agent` to chat with your own agent (its instructions should be MemoryInstructions for
    the inspector to show injected notes), or `model` and `policy` for the course's concierge.
    The state is yours: notes the tool saves land in `state.session_notes` as you chat.
    """

    def __init__(self, state: MemoryState, *, agent: Agent[MemoryState] | None = None,
                 model: Model | None = None, policy: Policy = DEFAULT_POLICY,
                 counter: TokenCounter | None = None, budget: ContextBudget | None = None,
                 session: Session | None = None, tools: Sequence[Any] | None = None):
        self.state, self.session = state, session
        self.agent = agent or make_concierge(model=model, policy=policy)
        self.counter = counter or count_tokens
        instructions = self.agent.instructions
        self.capture = PromptCapture(instructions if isinstance(instructions, MemoryInstructions) else None)
        self.turns: list[ChatTurn] = []
        self.task: asyncio.Future | None = None  # the turn the Send button started
        self._handle: Any = None  # set by show(): lets the saved view follow the chat

        # column-reverse keeps a scrolled box anchored at its end: the newest message shows without scrolling.
        self.transcript = widgets.HTML(layout={"max_height": "24em", "overflow": "auto", "display": "flex",
                                               "flex_flow": "column-reverse"})
        self.transcript.add_class("chat-transcript")
        self.input = widgets.Textarea(placeholder="Message the concierge, e.g. “I always want an aisle seat.”",
                                      layout={"width": "70%", "height": "3.5em"})
        self.input.add_class("chat-input")
        self.button = widgets.Button(description="Send", button_style="primary", icon="paper-plane")
        self.button.add_class("chat-send")
        self.status = widgets.HTML()
        self.status.add_class("chat-status")
        self.notes = widgets.HTML()
        self.notes.add_class("chat-notes")
        self.inspector = PromptInspector(self.capture, budget=budget, counter=counter,
                                         tools=self.agent.tools if tools is None else tools)
        tabs = widgets.Tab(children=[self.notes, self.inspector], titles=["notes", "exact prompt"])
        super().__init__([self.transcript, widgets.HBox([self.input, self.button]), self.status, tabs])
        self.add_class("chat-widget")
        self.button.on_click(self._on_click)
        self._show()

    async def send(self, message: str) -> ChatTurn:
        """What Send does, awaitable from a cell: run the turn with progress, then show it all."""
        message = message.strip()
        if not message:
            raise ValueError("type a message first")
        tokens = prompt_tokens(self.agent, self.state, message, self.counter)
        estimate = self.estimate(tokens)
        started = time.perf_counter()
        ticker = asyncio.ensure_future(self._tick(started, tokens, estimate))
        self.button.disabled = True
        try:
            turn = await chat_turn(self.agent, self.state, message, capture=self.capture,
                                   counter=self.counter, session=self.session, tokens=tokens)
        finally:
            ticker.cancel()
            self.button.disabled = False
        self.turns.append(turn)
        self.status.value = f"<code>answered in {turn.seconds:.0f} s</code>"
        self._show()
        if self._handle is not None:
            self._handle.update(self)  # the saved HTML view now includes this exchange
        return turn

    def estimate(self, tokens: int | None, recent: int = 3) -> float | None:
        """Roughly how long a turn with a `tokens`-token prompt takes, from this chat's own last
        `recent` turns (seconds per prompt token, as measured here: it follows the machine's load
        and the prompt cache); before the first turn, from the model's measured speed."""
        if not tokens:
            return None
        timed = [t for t in self.turns[-recent:] if t.prompt_tokens and t.seconds > 0 and not t.error]
        if timed:
            return tokens * sum(t.seconds for t in timed) / sum(t.prompt_tokens or 0 for t in timed)
        return estimate_seconds(tokens, calls=2 if self.agent.tools else 1)

    def show(self) -> None:
        """Display the chat so that the notebook's saved view keeps up with it (use instead of `chat`)."""
        from IPython.display import display

        self._handle = display(self, display_id=True)

    async def send_and_report(self, message: str) -> None:
        """What the button does: send, and put any error in the status line instead of raising."""
        try:
            await self.send(message)
            self.input.value = ""
        except Exception as err:  # noqa: BLE001 - a widget callback has no caller to raise to
            self.status.value = f"<span style='color:#b00'>{html.escape(f'{type(err).__name__}: {err}')}</span>"

    def _on_click(self, _button: Any) -> None:
        # Widget callbacks are synchronous; the turn runs on the kernel's event loop.
        self.task = asyncio.ensure_future(self.send_and_report(self.input.value))

    async def _tick(self, started: float, tokens: int | None, estimate: float | None) -> None:
        size = f"prompt ≈ {tokens:,} tokens" if tokens else "prompt size unknown"
        while True:
            elapsed = time.perf_counter() - started
            if estimate:
                bar = f"<progress value='{min(0.95, elapsed / estimate):.2f}' max='1'></progress> "
                text = f"the model is working ({size}): {elapsed:.0f} s of roughly {estimate:.0f} s"
            else:
                bar, text = "", f"the model is working ({size}): {elapsed:.0f} s"
            self.status.value = f"{bar}<code>{html.escape(text)}</code>"
            await asyncio.sleep(1.0)

    def _show(self) -> None:
        self.transcript.value = "".join(turn_html(t) for t in self.turns) or (
            "<i>No messages yet. Say something the concierge should remember, or ask it something.</i>")
        self.notes.value = notes_html(self.state)
        self.inspector.refresh()
        turns = self.capture.turns()
        if turns:
            self.inspector.turn.value = turns[-1]  # show the prompt of the message just sent

    def snapshot_html(self) -> str:
        """The chat as static HTML: what a notebook shows before its kernel runs."""
        last = ""
        if self.capture.calls:
            view = describe_call(self.capture.calls[-1], budget=self.inspector.budget,
                                 counter=self.inspector.counter, tools=self.inspector.tools)
            last = (f"<details><summary>exact prompt of the last model call ({html.escape(view.title)})</summary>"
                    f"{_pre(chr(10).join(view.sections.values()))}</details>")
        return (f"<div class='chat-snapshot'><p><i>A saved view of this chat; run the cell to talk to the "
                f"concierge yourself.</i></p>{self.transcript.value}{self.notes.value}{last}</div>")


__all__ = ["ChatTurn", "ChatWidget", "chat_turn", "notes_html", "prompt_tokens", "turn_html"]
