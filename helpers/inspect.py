"""Stage 4 — injection (notebook 04): widgets that show what memory did to each model call.

`PromptInspector` reads a `PromptCapture`: pick a turn and a model call and see the
exact system prompt cut into its sections, the tokens of each section against the
context budget, which notes were injected and which were left out and why, the input
items, and a diff against the previous call.

`PolicyEditor` lets you edit the memory-policy text, rerun a scripted conversation
from data/conversations/ with it on a fresh state, and compare prompts and answers
with the previous run side by side.

The widgets are thin: everything they show comes from plain functions
(`describe_call`, `run_conversation`, `compare_runs`) that tests and notebooks can
call without a browser.
"""

from __future__ import annotations

import asyncio
import difflib
import html
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets
from agents.exceptions import AgentsException
from agents.models.interface import Model

from helpers.budget import ContextBudget, TokenCounter, count_tokens, measure, tool_definitions_text
from helpers.concierge import make_concierge, run_turn
from helpers.hooks import CapturedCall, PromptCapture
from helpers.paths import data_dir
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.render import render_note_line
from helpers.state import MemoryState

# Which budget line pays for each prompt section (see helpers.budget.ContextBudget).
BUDGET_OF_SECTION = {
    "base": "stable_instructions", "memory_policy": "stable_instructions",
    "user_profile": "profile", "recent_history": "profile",
    "global_memory": "notes", "session_memory": "notes",
}
ALL_SECTIONS = "(all)"


# --------------------------------------------------------------------------- one model call, as text

def describe_item(item: Any, width: int | None = 120) -> str:
    """One input item as a line: "user: ...", "call save_memory_note({...})", "tool result: ..."."""
    data = item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else item
    if not isinstance(data, dict):
        text = str(data)
    elif data.get("type") == "function_call":
        text = f"call {data.get('name')}({data.get('arguments', '')})"
    elif data.get("type") == "function_call_output":
        text = f"tool result: {data.get('output', '')}"
    elif "role" in data:
        content = data.get("content", "")
        if isinstance(content, list):  # content parts, e.g. [{"type": "output_text", "text": ...}]
            content = " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
        text = f"{data['role']}: {content}"
    else:
        text = json.dumps(data, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


def call_label(call: CapturedCall) -> str:
    """A Dropdown label that says what the call answered: "call 1: after save_memory_note"."""
    last = call.input_items[-1] if call.input_items else {}
    last = last.model_dump() if hasattr(last, "model_dump") else last
    if isinstance(last, dict) and last.get("type") == "function_call_output":
        names = {i.get("call_id"): i.get("name") for i in call.input_items
                 if isinstance(i, dict) and i.get("type") == "function_call"}
        return f"call {call.call_index}: after {names.get(last.get('call_id'), 'a tool')}"
    return f"call {call.call_index}: the user's message"


def token_table(call: CapturedCall, counter: TokenCounter = count_tokens, budget: ContextBudget | None = None,
                tools: Sequence[Any] = ()) -> str:
    """Tokens per prompt section, then (with a budget) each budget line's use against its limit."""
    rows = [f"{'prompt section':<20} {'tokens':>7}  budget line"]
    for name, text in call.sections.items():
        rows.append(f"{name:<20} {counter(text):>7}  {BUDGET_OF_SECTION.get(name, '(none)')}")
    items = "\n".join(describe_item(i, width=None) for i in call.input_items)
    rows.append(f"{f'input items ({len(call.input_items)})':<20} {counter(items):>7}  recent_turns (approx.)")
    if call.usage is not None:  # what the model reported: the embedded model's prompt cache at work
        cached = call.usage.input_tokens_details.cached_tokens or 0
        rows.append(f"model reported: {call.usage.input_tokens} prompt tokens, {cached} from the cache")
    if budget is None:
        return "\n".join(rows + ["", "(no budget given: pass budget= to compare with a ContextBudget)"])
    # The budget counts each line's sections joined, as render_prompt does when it fits notes.
    texts: dict[str, list[str]] = {}
    for name, text in call.sections.items():
        if name in BUDGET_OF_SECTION:
            texts.setdefault(BUDGET_OF_SECTION[name], []).append(text)
    joined = {line: "\n\n".join(parts) for line, parts in texts.items()}
    joined["recent_turns"] = items
    if tools:
        joined["tool_definitions"] = tool_definitions_text(tools)
    dropped = call.rendered.report.dropped if call.rendered and call.rendered.report else ()
    return "\n".join(rows) + "\n\n" + str(measure(budget, counter, joined, dropped))


def notes_report(call: CapturedCall) -> str:
    """Which notes reached this prompt and which were left out, each with its reason."""
    if call.rendered is None:
        return ("Not recorded for this call: pass the agent's MemoryInstructions to PromptCapture "
                "(and note that an input filter that rewrites the prompt hides it).")
    scores = call.rendered.scores

    def why_picked(note: Any) -> str:  # the score parts, when the note was retrieved
        return f"  <- score {scores[note.id].explain()}" if note.id in scores else ""

    injected = [f"  [{n.scope}] {render_note_line(n)[2:]}{why_picked(n)}"
                for n in call.rendered.injected] or ["  (none)"]
    left_out = [f"  [{n.scope}] {render_note_line(n)[2:]}  <- {why}" for n, why in call.rendered.left_out]
    header = [f"Retrieved for the message: {call.rendered.query!r}"] if call.rendered.query else []
    return "\n".join([*header, f"Injected ({len(call.rendered.injected)}):", *injected,
                      f"Left out ({len(left_out)}):", *(left_out or ["  (none)"])])


def prompt_diff(call: CapturedCall, previous: CapturedCall | None) -> str:
    """A unified diff of the system prompt against the previous call, and how the input grew."""
    if previous is None:
        return "(the first call: nothing to compare with)"
    name = lambda c: f"turn {c.turn} call {c.call_index}"  # noqa: E731
    lines = list(difflib.unified_diff(previous.system_prompt.splitlines(), call.system_prompt.splitlines(),
                                      fromfile=name(previous), tofile=name(call), lineterm="", n=1))
    diff = "\n".join(lines) if lines else f"(system prompt unchanged since {name(previous)})"
    before, after = len(previous.input_items), len(call.input_items)
    return f"{diff}\n\ninput items: {before} -> {after}"


@dataclass
class CallView:
    """Everything the inspector shows for one model call, as plain strings."""

    title: str
    sections: dict[str, str]
    tokens: str
    notes: str
    input_items: list[str]
    diff: str


def describe_call(call: CapturedCall, previous: CapturedCall | None = None, *,
                  budget: ContextBudget | None = None, counter: TokenCounter | None = None,
                  tools: Sequence[Any] = ()) -> CallView:
    """What the inspector shows for `call`; `previous` is the model call before it, if any."""
    return CallView(
        title=f"turn {call.turn}, {call_label(call)} ({call.agent_name})",
        sections=dict(call.sections),
        tokens=token_table(call, counter or count_tokens, budget, tools),
        notes=notes_report(call),
        input_items=[describe_item(i) for i in call.input_items],
        diff=prompt_diff(call, previous),
    )


def _pre(text: str) -> str:
    return f"<pre style='white-space: pre-wrap; margin: 0'>{html.escape(text)}</pre>"


class SnapshotBox(widgets.VBox):
    """A widget box that also renders as static HTML (`snapshot_html`): what a notebook shows
    where the live widget cannot be, e.g. before its kernel runs."""

    def snapshot_html(self) -> str:
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = self.snapshot_html()  # shown where the live widget cannot be
        return bundle


class PromptInspector(SnapshotBox):
    """Pick a turn and a model call of a PromptCapture; see what that call received.

    Call `refresh()` (or press ↻) after running more turns with the same capture.
    """

    def __init__(self, capture: PromptCapture, budget: ContextBudget | None = None,
                 counter: TokenCounter | None = None, tools: Sequence[Any] = ()):
        self.capture, self.budget, self.counter, self.tools = capture, budget, counter, tuple(tools)
        self.turn = widgets.Dropdown(description="turn")
        self.call = widgets.Dropdown(description="model call", style={"description_width": "initial"})
        self.section = widgets.Dropdown(description="section")
        reload = widgets.Button(description="↻", tooltip="re-read the capture", layout={"width": "3em"})
        self.title = widgets.HTML()
        self.prompt, self.tokens, self.notes, self.inputs, self.diff = (widgets.HTML() for _ in range(5))
        self.title.add_class("inspector-title")
        self.prompt.add_class("inspector-prompt")
        self.tokens.add_class("inspector-tokens")
        tabs = widgets.Tab(children=[self.prompt, self.tokens, self.notes, self.inputs, self.diff],
                           titles=["prompt", "tokens", "notes", "input items", "diff"])
        super().__init__([widgets.HBox([self.turn, self.call, self.section, reload]), self.title, tabs])
        self.add_class("prompt-inspector")
        self.view: CallView | None = None
        self.turn.observe(lambda _: self._fill_calls(), "value")
        self.call.observe(lambda _: self._show_call(), "value")
        self.section.observe(lambda _: self._show_section(), "value")
        reload.on_click(lambda _: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Re-read the capture (it grows as turns run), keeping the current turn if it still exists."""
        turns = self.capture.turns()
        keep = self.turn.value if self.turn.value in turns else (turns[0] if turns else None)
        self.turn.options = [(f"turn {t}", t) for t in turns]
        self.turn.value = keep
        self._fill_calls()

    def _fill_calls(self) -> None:
        positions = [i for i, c in enumerate(self.capture.calls) if c.turn == self.turn.value]
        self.call.options = [(call_label(self.capture.calls[i]), i) for i in positions]
        self.call.value = positions[0] if positions else None
        self._show_call()

    def _show_call(self) -> None:
        if self.call.value is None:
            self.view = None
            self.title.value = "<i>No model calls captured yet: run a turn with hooks=MemoryHooks(capture=...).</i>"
            for pane in (self.prompt, self.tokens, self.notes, self.inputs, self.diff):
                pane.value = ""
            self.section.options = [ALL_SECTIONS]
            return
        position = self.call.value
        previous = self.capture.calls[position - 1] if position > 0 else None
        self.view = describe_call(self.capture.calls[position], previous, budget=self.budget,
                                  counter=self.counter, tools=self.tools)
        self.title.value = f"<b>{html.escape(self.view.title)}</b>"
        keep = self.section.value
        self.section.options = [ALL_SECTIONS, *self.view.sections]
        self.section.value = keep if keep in self.section.options else ALL_SECTIONS
        self.tokens.value = _pre(self.view.tokens)
        self.notes.value = _pre(self.view.notes)
        self.inputs.value = _pre("\n".join(f"{n}. {line}" for n, line in enumerate(self.view.input_items, 1)))
        self.diff.value = _pre(self.view.diff)
        self._show_section()

    def _show_section(self) -> None:
        if self.view is None:
            return
        name = self.section.value
        text = "\n\n".join(self.view.sections.values()) if name == ALL_SECTIONS else self.view.sections[name]
        self.prompt.value = _pre(text)

    def snapshot_html(self) -> str:
        """The selected call as static HTML: what a notebook shows before its kernel runs."""
        if self.view is None:
            return "<i>PromptInspector: no model calls captured.</i>"
        prompt = "\n\n".join(self.view.sections.values())
        return (f"<div class='inspector-snapshot'><p><i>A saved view of the prompt inspector "
                f"({len(self.capture.calls)} model calls); run the notebook to explore every call.</i></p>"
                f"<b>{html.escape(self.view.title)}</b>"
                f"<details><summary>exact system prompt</summary>{_pre(prompt)}</details>"
                f"<details><summary>tokens</summary>{_pre(self.view.tokens)}</details>"
                f"<details open><summary>notes</summary>{_pre(self.view.notes)}</details></div>")


# --------------------------------------------------------------------------- scripted conversations

@dataclass
class Conversation:
    """A scripted conversation from data/conversations/<name>.json: user messages, one per turn."""

    name: str
    description: str
    messages: list[str]


def load_conversation(name: str) -> Conversation:
    path = data_dir() / "conversations" / f"{name}.json"
    if not path.exists():
        known = sorted(p.stem for p in path.parent.glob("*.json"))
        raise FileNotFoundError(f"no conversation {name!r} in data/conversations; known: {known}")
    data = json.loads(path.read_text(encoding="utf-8"))
    messages = data.get("messages")
    if messages is None and isinstance(data.get("turns"), list):
        # A scripted session (notebook 06): replay what the user said; the model writes its own answers.
        messages = [t.get("user") if isinstance(t, dict) else None for t in data["turns"]]
        messages += [data["live_turn"]] if "live_turn" in data else []
    if not isinstance(messages, list) or not messages or not all(isinstance(m, str) and m.strip() for m in messages):
        raise ValueError(f"{path.name}: 'messages' (or 'turns' with a 'user' each) must be a non-empty list of "
                         "non-empty strings")
    return Conversation(name, data.get("description", ""), messages)


@dataclass
class TurnRecord:
    message: str
    answer: str
    tool_calls: list[str]  # "save_memory_note({...}) -> Saved (this session only): ..."
    calls: list[CapturedCall]  # the model calls of this turn, with their exact prompts
    error: str | None = None


@dataclass
class RunRecord:
    """One run of a scripted conversation under one policy, on a fresh state."""

    policy: Policy
    turns: list[TurnRecord]
    state: MemoryState  # after the run: session notes and ledger included
    seconds: float
    capture: PromptCapture = field(repr=False, default_factory=PromptCapture)

    def session_notes(self) -> list[str]:
        return [f"[{n.scope}] {n.text}" for n in self.state.session_notes]


def _tool_calls(result: Any) -> list[str]:
    calls, outputs = {}, {}
    for item in result.new_items:
        raw = item.raw_item
        if item.type == "tool_call_item":
            calls[raw.call_id] = f"{raw.name}({raw.arguments})"
        elif item.type == "tool_call_output_item":
            outputs[raw["call_id"] if isinstance(raw, dict) else raw.call_id] = str(item.output)
    return [f"{call} -> {outputs.get(call_id, '(no result)')}" for call_id, call in calls.items()]


async def run_conversation(policy: Policy, messages: Sequence[str], state_factory: Callable[[], MemoryState],
                           model: Model | None = None,
                           on_turn: Callable[[int, int, TurnRecord | None], None] | None = None) -> RunRecord:
    """Run the concierge (helpers.concierge) through `messages`, one turn each, on `state_factory()`.

    Turns share only the state, so memory is what carries the conversation from turn to
    turn. A turn the agent cannot finish (e.g. too many tool calls) is recorded with its
    error and the run goes on; other errors propagate. `on_turn(n, total, turn)` is called
    as turn n (from 1) starts (`turn` None) and as it ends: what a progress line shows.
    """
    if isinstance(messages, str):
        raise TypeError("messages must be a list of user messages, not one string")
    state = state_factory()
    agent = make_concierge(model=model, policy=policy)
    # make_concierge's instructions are a MemoryInstructions; Agent types them more loosely.
    capture = PromptCapture(agent.instructions)  # type: ignore[arg-type]
    started = time.perf_counter()
    turns: list[TurnRecord] = []
    for n, message in enumerate(messages, 1):
        if on_turn is not None:
            on_turn(n, len(messages), None)
        seen = len(capture.calls)
        try:
            result = await run_turn(agent, state, message, capture=capture)
            turn = TurnRecord(message, str(result.final_output), _tool_calls(result), capture.calls[seen:])
        except AgentsException as err:
            turn = TurnRecord(message, "", [], capture.calls[seen:], error=f"{type(err).__name__}: {err}")
        turns.append(turn)
        if on_turn is not None:
            on_turn(n, len(messages), turn)
    return RunRecord(policy, turns, state, time.perf_counter() - started, capture)


def policy_diff(before: Policy, after: Policy) -> str:
    """A unified diff of two policies' texts (no context lines)."""
    lines = difflib.unified_diff(before.text.splitlines(), after.text.splitlines(),
                                 fromfile="previous policy", tofile="this policy", lineterm="", n=0)
    return "\n".join(lines) or "(same policy text)"


def compare_runs(before: RunRecord, after: RunRecord) -> str:
    """The two runs as text: the policy diff, then per turn the message and both answers."""
    out = ["Policy change:", policy_diff(before.policy, after.policy), ""]
    for n, (old, new) in enumerate(zip(before.turns, after.turns), 1):
        out.append(f"Turn {n}. user: {new.message}")
        for label, turn in (("previous", old), ("this run", new)):
            for call in turn.tool_calls:
                out.append(f"  {label:<9} tool: {call}")
            out.append(f"  {label:<9} answer: {turn.error or turn.answer}")
        out.append("")
    for label, run in (("previous", before), ("this run", after)):
        out.append(f"Session notes ({label}): {'; '.join(run.session_notes()) or '(none)'}")
    return "\n".join(out)


def run_html(run: RunRecord | None, heading: str) -> str:
    """One pane of the editor: per turn the message, the first call's prompt (folded), tools, answer."""
    if run is None:
        return f"<h4>{heading}</h4><i>no run yet</i>"
    parts = [f"<h4>{heading} ({run.seconds:.0f} s)</h4>"]
    for n, turn in enumerate(run.turns, 1):
        prompt = turn.calls[0].system_prompt if turn.calls else "(no model call)"
        parts.append(f"<p><b>Turn {n}. user:</b> {html.escape(turn.message)}</p>"
                     f"<details><summary>system prompt</summary>{_pre(prompt)}</details>")
        parts += [f"<div>🔧 <code>{html.escape(call)}</code></div>" for call in turn.tool_calls]
        answer = html.escape(turn.answer)
        if turn.error:
            answer = f"<span style='color:#b00'>{html.escape(turn.error)}</span>"
        parts.append(f"<p><b>answer:</b> {answer}</p>")
    parts.append(f"<p><b>session notes:</b> {html.escape('; '.join(run.session_notes()) or '(none)')}</p>")
    return "".join(parts)


class PolicyEditor(SnapshotBox):
    """Edit the memory policy, rerun a scripted conversation with it, compare with the previous run.

    `conversation` is a Conversation (see `load_conversation`) or a list of user messages.
    Press "Rerun", or `await editor.rerun()` from a cell.
    """

    def __init__(self, state_factory: Callable[[], MemoryState], conversation: Conversation | Sequence[str],
                 model: Model | None = None, policy: Policy = DEFAULT_POLICY):
        if isinstance(conversation, str):
            raise TypeError("conversation must be a Conversation or a list of messages; "
                            "use load_conversation(name) to read one from data/conversations")
        self.messages = list(conversation.messages if isinstance(conversation, Conversation) else conversation)
        self.state_factory, self.model, self.base_policy = state_factory, model, policy
        self.runs: list[RunRecord] = []
        self.text = widgets.Textarea(value=policy.text, layout={"width": "100%", "height": "16em"})
        self.button = widgets.Button(description="Rerun", button_style="primary", icon="play")
        self.status = widgets.HTML()
        self.previous_pane, self.current_pane = widgets.HTML(), widgets.HTML()
        for pane in (self.previous_pane, self.current_pane):
            pane.layout = widgets.Layout(width="50%", padding="0 8px")
        self.button.on_click(self._on_click)
        self.task: asyncio.Future | None = None  # the run the button started
        self._turn_started = time.perf_counter()
        super().__init__([self.text, widgets.HBox([self.button, self.status]),
                          widgets.HBox([self.previous_pane, self.current_pane])])
        self.add_class("policy-editor")
        self._show()

    def policy(self) -> Policy:
        """The policy in the text box (raises ValueError when the text is not a valid policy)."""
        return self.base_policy.with_text(self.text.value)

    async def rerun(self) -> RunRecord:
        """Run the conversation with the edited policy on a fresh state and show it next to the last run."""
        run = await run_conversation(self.policy(), self.messages, self.state_factory, self.model,
                                     on_turn=self._progress)
        self.add_run(run)
        return run

    def _progress(self, n: int, total: int, turn: TurnRecord | None) -> None:
        """The status line per turn: which turn runs, and how long the last one took."""
        now = time.perf_counter()
        if turn is None:
            done = f" (turn {n - 1} took {now - self._turn_started:.0f} s)" if n > 1 else ""
            self._turn_started = now
            self.status.value = f"running turn {n} of {total}{done}…"
        elif n == total:
            self.status.value = f"turn {n} of {total} done in {now - self._turn_started:.0f} s"

    def add_run(self, run: RunRecord) -> None:
        """Show a run made elsewhere (e.g. by run_conversation) as the latest one."""
        self.runs.append(run)
        self._show()

    def _show(self) -> None:
        previous = self.runs[-2] if len(self.runs) > 1 else None
        current = self.runs[-1] if self.runs else None
        self.previous_pane.value = run_html(previous, "previous run")
        self.current_pane.value = run_html(current, "this run")

    def snapshot_html(self) -> str:
        """The two panes as static HTML: what a notebook shows before its kernel runs."""
        return ("<div class='policy-editor-snapshot'><p><i>A saved view of the policy editor; run the notebook "
                "to edit the policy and rerun.</i></p><div style='display: flex'>"
                f"<div style='width: 50%; padding: 0 8px'>{self.previous_pane.value}</div>"
                f"<div style='width: 50%; padding: 0 8px'>{self.current_pane.value}</div></div></div>")

    def _on_click(self, _button: Any) -> None:
        # Widget callbacks are synchronous; the run goes on the kernel's event loop.
        self.task = asyncio.ensure_future(self.rerun_and_report())

    async def rerun_and_report(self) -> None:
        """What the button does: rerun, and put any error in the status line instead of raising."""
        self.button.disabled = True
        self.status.value = f"running turn 1 of {len(self.messages)}…"
        try:
            run = await self.rerun()
            self.status.value = f"done in {run.seconds:.0f} s"
        except ValueError as err:  # a policy the editor cannot use: say why, keep the text as typed
            self.status.value = f"<span style='color:#b00'>{html.escape(str(err))}</span>"
        except Exception as err:  # noqa: BLE001 - a widget callback has no caller to raise to
            self.status.value = f"<span style='color:#b00'>{html.escape(f'{type(err).__name__}: {err}')}</span>"
        finally:
            self.button.disabled = False


__all__ = [
    "CallView", "Conversation", "PolicyEditor", "PromptInspector", "RunRecord", "SnapshotBox", "TurnRecord",
    "call_label", "compare_runs", "describe_call", "describe_item", "load_conversation", "notes_report",
    "policy_diff", "prompt_diff", "run_conversation", "run_html", "token_table",
]
