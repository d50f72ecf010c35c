"""Stage 4 — injection (notebook 04): the state enters the system prompt on every model call.

The prompt is built from sections ordered from stable to volatile, so a provider's
prompt cache can reuse the long unchanging prefix and only the tail changes:

    base role  ->  <memory_policy>  ->  <user_profile>  ->  <global_memory>
               ->  <recent_history>  ->  <session_memory>   (changes mid-session)

Each section sits between its own tags, so `split_sections` can cut a captured
prompt back into them.

Where the SDK lets us in (openai-agents 0.24): for every model call it first awaits
the agent's `instructions` callable, then fires `on_llm_start` with the finished
prompt. So the rendering lives in the instructions callable (`MemoryInstructions`,
or the plain `memory_instructions`), which runs before every call, including the
call after a tool saved a note; `on_llm_start` is where `PromptCapture` records the
exact prompt and input items the model received. `MemoryHooks` ends the turn: it
clears the "re-inject session notes" flag that trimming sets.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, RunContextWrapper, RunHooks

from helpers.budget import BudgetExceeded, BudgetReport, ContextBudget, TokenCounter, count_tokens, fit_notes, measure
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.render import (
    DATED_AFTER_NOW, LeftOut, NONE_LINE, Selection, format_notes, inline, render_frontmatter, render_note_line,
    select_notes,
)
from helpers.retrieval import (
    LEFT_OUT_NOT_RECALLED, SEARCH_LIMIT, ScoredNote, latest_user_message, render_retrieved_line,
    safety_first, should_retrieve,
)
from helpers.state import Clock, MemoryNote, MemoryState, parse_time
from helpers.tools import MEMORY_TOOL, output_text

BASE_INSTRUCTIONS = """\
You are a concise, reliable travel concierge for flights, hotels and car rentals.
Never invent prices or availability; say when you are not sure."""

GLOBAL_HEADING = "GLOBAL memory (long-term defaults), newest first:"
SESSION_HEADING = "SESSION memory (this conversation), newest first:"
HISTORY_HEADING = "Recent history, oldest first:"
# With retrieval (large memories) the model is told the list is a selection; lines show sources.
RETRIEVED_HEADING = (
    "GLOBAL memory retrieved for this message ({shown} of {total} notes), health and safety first, then newest:")


# Left-out reason for session notes in Policy(session_notes="after_trim") while the flag is off.
NOT_REINJECTED = "session notes only after trimming"


def _block(tag: str, body: str) -> str:
    return f"<{tag}>\n{body}\n</{tag}>"


def _global_lines(notes: list[MemoryNote], retrieved_of: int | None) -> str:
    line = render_note_line if retrieved_of is None else render_retrieved_line
    return "\n".join(line(n) for n in notes) or NONE_LINE


def _notes_blocks(global_notes: list[MemoryNote], session_notes: list[MemoryNote] | None,
                  retrieved_of: int | None = None) -> dict[str, str]:
    """`retrieved_of`: how many live global notes the retrieved ones came from (None: all shown)."""
    heading = GLOBAL_HEADING
    if retrieved_of is not None:
        heading = RETRIEVED_HEADING.format(shown=len(global_notes), total=retrieved_of)
    listed = _global_lines(global_notes, retrieved_of)
    blocks = {"global_memory": _block("global_memory", f"{heading}\n{listed}")}
    if session_notes is not None:
        blocks["session_memory"] = _block("session_memory", f"{SESSION_HEADING}\n{format_notes(session_notes)}")
    return blocks


@dataclass
class RenderedPrompt:
    """One rendered system prompt, with what went into it and what was left out."""

    text: str
    sections: dict[str, str]  # name -> tagged block, in prompt order; "\n\n".join(values) == text
    injected: list[MemoryNote]
    left_out: list[LeftOut]
    report: BudgetReport | None = None  # tokens per section vs budget, when a budget was given
    # When global notes were retrieved for the message: the query, and every recalled note's score.
    query: str | None = None
    scores: dict[str, ScoredNote] = field(default_factory=dict)


def _fit_to_budget(budget: ContextBudget, counter: TokenCounter, stable: dict[str, str], profile: dict[str, str],
                   global_kept: list[MemoryNote], session_kept: list[MemoryNote] | None,
                   keywords: tuple[str, ...] | None, retrieved_of: int | None = None,
                   scores: dict[str, ScoredNote] | None = None, clock: Clock | None = None):
    """Check the parts that are never cut, then drop the lowest-value notes until the notes fit."""
    for name, texts, allowed in [("stable instructions (role + memory policy)", stable, budget.stable_instructions),
                                 ("profile (frontmatter + recent history)", profile, budget.profile)]:
        used = counter("\n\n".join(texts.values()))
        if used > allowed:
            raise BudgetExceeded(f"the {name} need {used} tokens but their budget is {allowed}; "
                                 f"they are never dropped, so raise the budget or shorten them")
    in_session = {id(n) for n in session_kept or []}

    def split(kept: list[MemoryNote]) -> tuple[list[MemoryNote], list[MemoryNote] | None]:
        session = [n for n in kept if id(n) in in_session] if session_kept is not None else None
        return [n for n in kept if id(n) not in in_session], session

    def render_both(kept: list[MemoryNote]) -> str:
        return "\n\n".join(_notes_blocks(*split(kept), retrieved_of).values())

    # Retrieved notes go lowest score first (session notes, never scored, last).
    value = None if scores is None else (
        lambda n: (id(n) in in_session, scores[n.id].score if n.id in scores else 0.0))
    fitted = fit_notes(global_kept + (session_kept or []), budget.notes, counter, keywords=keywords,
                       render=render_both, value=value, clock=clock)
    report = measure(budget, counter, {"stable_instructions": "\n\n".join(stable.values()),
                                       "profile": "\n\n".join(profile.values()),
                                       "notes": render_both(fitted.kept)}, fitted.left_out)
    return (*split(fitted.kept), fitted.left_out, report)


def _retrieve(memory: Any, query: str, policy: Policy, live: list[MemoryNote],
              selected: Selection) -> tuple[Selection, dict[str, ScoredNote]]:
    """The global notes searched for the message (health and safety first, then newest: see
    `helpers.retrieval.safety_first`), and why every other one is out."""
    ranking = memory.search_ranking(query, limit=policy.k if policy.k is not None else SEARCH_LIMIT)
    scores = {s.note.id: s for s in ranking.kept + [s for s, _ in ranking.dropped]}
    # A note dated after now is not shown until its date, however well it scores.
    future = {x.note.id for x in selected.left_out if x.reason == DATED_AFTER_NOW}
    kept = sorted((s.note for s in ranking.kept if s.note.id not in future),
                  key=lambda n: (safety_first(n), parse_time(n.observed_at)), reverse=True)
    left = [LeftOut(s.note, f"{why} (score {s.score:.2f})") for s, why in ranking.dropped]
    left += [LeftOut(n, LEFT_OUT_NOT_RECALLED) for n in live if n.id not in scores]
    live_ids = {n.id for n in live}
    recalled_future = {s.note.id for s in ranking.kept} & future
    left += [x for x in selected.left_out  # expired, superseded, ..., dated after now
             if x.note.id not in live_ids or x.note.id in recalled_future]
    return Selection(kept, left), scores


def render_prompt(state: MemoryState, *, policy: Policy = DEFAULT_POLICY, base: str = BASE_INSTRUCTIONS,
                  budget: ContextBudget | None = None, counter: TokenCounter | None = None,
                  memory: Any = None, query: str = "") -> RenderedPrompt:
    """Render the state into a system prompt and refresh the state's rendered strings.

    With a budget, the notes are fitted to `budget.notes` (lowest value dropped first);
    the role, policy and profile are never cut, so if they exceed their budgets this
    raises BudgetExceeded. `counter` defaults to o200k_base.

    With `memory` (the user's store handle) and the user's message as `query`, a large memory
    (see `helpers.retrieval.should_retrieve`) is searched for the message instead of injected
    whole: the global notes are the retrieved ones, each with its source; small ones are not.
    """
    clock = state.clock
    global_sel = select_notes(state.global_notes, clock, k=policy.k, keywords=policy.keywords)
    retrieved_of, scores = None, None
    if memory is not None and query.strip():
        live = state.live_notes(clock, "global")
        if should_retrieve(live, (counter or count_tokens)(format_notes(live))):
            global_sel, scores = _retrieve(memory, query, policy, live, global_sel)
            retrieved_of = len(live)
    session_sel = select_notes(state.session_notes, clock, k=policy.k, keywords=policy.keywords)
    show_session = policy.session_notes == "always" or state.inject_session_memories_next_turn
    left_out = global_sel.left_out + session_sel.left_out
    if not show_session:
        left_out += [LeftOut(n, NOT_REINJECTED) for n in session_sel.kept]
    global_kept = global_sel.kept
    session_kept = session_sel.kept if show_session else None

    frontmatter = render_frontmatter(state.profile)
    history = "\n".join(f"- {inline(line)}" for line in state.recent_history) or NONE_LINE
    stable = {"base": base.strip(), "memory_policy": policy.text} if base.strip() else {"memory_policy": policy.text}
    profile = {"user_profile": _block("user_profile", frontmatter),
               "recent_history": _block("recent_history", f"{HISTORY_HEADING}\n{history}")}

    report = None
    if budget is not None:
        global_kept, session_kept, dropped, report = _fit_to_budget(
            budget, counter or count_tokens, stable, profile, global_kept, session_kept,
            policy.keywords, retrieved_of, scores, clock=clock)
        left_out += dropped

    notes = _notes_blocks(global_kept, session_kept, retrieved_of)
    sections = {**stable, "user_profile": profile["user_profile"], "global_memory": notes["global_memory"],
                "recent_history": profile["recent_history"]}
    if "session_memory" in notes:
        sections["session_memory"] = notes["session_memory"]

    # The cookbook's rendered strings on the state, for notebooks and the inspector.
    state.system_frontmatter = frontmatter
    state.global_memories_md = _global_lines(global_kept, retrieved_of)
    state.session_memories_md = format_notes(session_kept) if session_kept is not None else ""
    injected = global_kept + (session_kept or [])
    return RenderedPrompt("\n\n".join(sections.values()), sections, injected, left_out, report,
                          query if retrieved_of is not None else None, scores or {})


def build_instructions(state: MemoryState, *, policy: Policy = DEFAULT_POLICY, base: str = BASE_INSTRUCTIONS,
                       budget: ContextBudget | None = None, counter: TokenCounter | None = None) -> str:
    """The system prompt for the current state (see `render_prompt`)."""
    return render_prompt(state, policy=policy, base=base, budget=budget, counter=counter).text


class MemoryInstructions:
    """Dynamic instructions: `Agent(instructions=MemoryInstructions(policy=...))`.

    The SDK calls it before every model call, so a note saved by a tool shows up in the
    very next call. The last rendering is kept in `.last` (notes injected and left out,
    budget report); change `.policy` or `.base` between runs to try another policy.
    """

    def __init__(self, policy: Policy = DEFAULT_POLICY, base: str = BASE_INSTRUCTIONS,
                 budget: ContextBudget | None = None, counter: TokenCounter | None = None,
                 memory: Any = None):
        self.policy, self.base, self.budget, self.counter = policy, base, budget, counter
        self.memory = memory  # the user's store handle: large memories are searched per message
        self.last: RenderedPrompt | None = None

    async def __call__(self, ctx: RunContextWrapper[MemoryState], agent: Agent[MemoryState]) -> str:
        # The SDK sets turn_input before it asks for instructions: the user's message is its last.
        query = latest_user_message(ctx.turn_input) if self.memory is not None else ""
        self.last = render_prompt(ctx.context, policy=self.policy, base=self.base,
                                  budget=self.budget, counter=self.counter,
                                  memory=self.memory, query=query)
        return self.last.text


async def memory_instructions(ctx: RunContextWrapper[MemoryState], agent: Agent[MemoryState]) -> str:
    """Dynamic instructions with the default role and policy: `Agent(instructions=memory_instructions)`."""
    return build_instructions(ctx.context)


_SECTION = re.compile(r"^<(\w+)>\n.*?\n</\1>$", re.S | re.M)


def split_sections(system_prompt: str | None) -> dict[str, str]:
    """Cut a prompt into its tagged sections, in order. Untagged text before the first tag
    (the role) is "base"; untagged text further on (e.g. added by an input filter) is "untagged".

    Values keep their tags, so "\\n\\n".join(values) gives back a prompt built here.
    """
    text = system_prompt or ""
    sections: dict[str, str] = {}

    def add(name: str, chunk: str) -> None:
        sections[name if name not in sections else f"{name}_{len(sections)}"] = chunk

    pos = 0
    for match in _SECTION.finditer(text):
        if loose := text[pos:match.start()].strip():
            add("untagged" if sections else "base", loose)
        add(match.group(1), match.group(0))
        pos = match.end()
    if tail := text[pos:].strip():
        add("untagged" if sections else "base", tail)
    return sections


@dataclass
class CapturedCall:
    """Exactly what one model call received."""

    turn: int  # state.turn_index when the context is a MemoryState, else 0
    call_index: int  # 0, 1, ... within that turn
    agent_name: str
    system_prompt: str
    input_items: list[Any]  # a deep copy: later changes to the conversation do not rewrite it
    sections: dict[str, str] = field(default_factory=dict)
    rendered: RenderedPrompt | None = None  # injected / left-out notes, when MemoryInstructions built it
    usage: Any = None  # the call's SDK Usage once it returned (cached prompt tokens included)


class PromptCapture(RunHooks[Any]):
    """Records every model call's exact system prompt and input items: `Runner.run(..., hooks=capture)`.

    Pass the agent's MemoryInstructions to also keep, per call, which notes were
    injected and which were left out and why.
    """

    def __init__(self, instructions: MemoryInstructions | None = None):
        self.instructions = instructions
        self.calls: list[CapturedCall] = []

    async def on_llm_start(self, context: RunContextWrapper[Any], agent: Agent[Any], system_prompt: str | None,
                           input_items: list[Any]) -> None:
        state = context.context
        turn = state.turn_index if isinstance(state, MemoryState) else 0
        prompt = system_prompt or ""
        last = self.instructions.last if self.instructions else None
        self.calls.append(CapturedCall(
            turn=turn, call_index=len(self.for_turn(turn)), agent_name=agent.name, system_prompt=prompt,
            input_items=copy.deepcopy(list(input_items)), sections=split_sections(prompt),
            # Attach the rendering only if it is the prompt that was sent (an input filter may change it).
            rendered=copy.deepcopy(last) if last is not None and last.text == prompt else None,
        ))

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Agent[Any], response: Any) -> None:
        if self.calls:
            self.calls[-1].usage = response.usage

    def for_turn(self, turn: int) -> list[CapturedCall]:
        return [c for c in self.calls if c.turn == turn]

    def turns(self) -> list[int]:
        return sorted({c.turn for c in self.calls})


def items_this_turn(items: list[Any]) -> list[dict[str, Any]]:
    """The SDK input items (as dicts) after the latest user message: this turn's calls and results."""
    dicts = [i for i in items if isinstance(i, dict)]
    users = [n for n, i in enumerate(dicts) if i.get("role") == "user"]
    return dicts[users[-1] + 1:] if users else dicts


def documents_shown(items: list[Any]) -> int:
    """Results of tools other than the memory tool among input items after the latest user message.

    A tool result is a document: notes written after one must be grounded more strictly. The
    memory tool's results are the policy's own replies, not documents.
    """
    return len(_documents(items))


def _documents(items: list[Any]) -> list[dict[str, Any]]:
    turn = items_this_turn(items)
    memory_calls = {i.get("call_id") for i in turn
                    if i.get("type") == "function_call" and i.get("name") == MEMORY_TOOL}
    return [i for i in turn if i.get("type") == "function_call_output" and i.get("call_id") not in memory_calls]


def documents_text(items: list[Any]) -> str:
    """The text of the documents `documents_shown` counts, one per line: what the write policy
    compares a note with, so a page's words or meaning cannot become the user's."""
    return "\n".join(output_text(i.get("output")) for i in _documents(items))




class MemoryHooks(RunHooks[MemoryState]):
    """Run hooks for the memory lifecycle: `Runner.run(agent, msg, context=state, hooks=MemoryHooks())`.

    At the end of a turn (the agent's final output) it clears
    `state.inject_session_memories_next_turn`: trimming sets that flag when it drops
    history, the flag holds for every model call of the turn that follows, then it is
    spent. Before each model call it sets `state.tool_results_this_turn` to the number of other
    tools' results the model is shown this turn, so the capture tool grounds a note the model
    wrote after reading a web page or search result more strictly. Pass `capture=` to also
    record prompts (the SDK takes one RunHooks per run).
    """

    def __init__(self, capture: PromptCapture | None = None):
        self.capture = capture

    async def on_llm_start(self, context: RunContextWrapper[MemoryState], agent: Agent[MemoryState],
                           system_prompt: str | None, input_items: list[Any]) -> None:
        # Counted from what this call is shown, not as tools finish: the SDK runs one response's
        # calls concurrently, and a save made beside a web read was written before the page arrived.
        if isinstance(context.context, MemoryState):
            context.context.tool_results_this_turn = documents_shown(input_items)
            context.context.documents_this_turn = documents_text(input_items)
        if self.capture is not None:
            await self.capture.on_llm_start(context, agent, system_prompt, input_items)

    async def on_llm_end(self, context: RunContextWrapper[MemoryState], agent: Agent[MemoryState],
                         response: Any) -> None:
        if self.capture is not None:
            await self.capture.on_llm_end(context, agent, response)

    async def on_agent_end(self, context: Any, agent: Agent[MemoryState], output: Any) -> None:
        context.context.inject_session_memories_next_turn = False
        context.context.tool_results_this_turn = 0
        context.context.documents_this_turn = ""


__all__ = [
    "BASE_INSTRUCTIONS", "CapturedCall", "MemoryHooks", "MemoryInstructions", "NOT_REINJECTED", "PromptCapture",
    "RenderedPrompt", "build_instructions", "documents_shown", "documents_text", "items_this_turn", "memory_instructions", "render_prompt", "split_sections",
    "RETRIEVED_HEADING",
]
