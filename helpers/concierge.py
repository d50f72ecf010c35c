"""Stage 0 — the concierge (notebook 00): the course's example agent, a travel concierge with memory.

Every notebook builds the same agent the same way, so differences you see come from the memory
stage being taught, not from the agent.

By default the concierge has the memory tool, `recall_notes` and three searches over the offline
catalogue whose missing arguments memory fills in code by the precedence policy (`helpers.travel`),
so memory visibly changes what the agent does. A turn that searched or recalled ends with an answer
composed in code from the results (`helpers.answers`, the SDK's `tool_use_behavior`); on the embedded
model a router first decides whether the turn is a search at all (`helpers.llm.router`).
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunConfig, Runner
from agents.memory import Session
from agents.models.interface import Model

from helpers.answers import answer_from_results
from helpers.hooks import BASE_INSTRUCTIONS, MemoryHooks, MemoryInstructions, PromptCapture
from helpers.llm import get_model
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.recall import RECALL_TOOL, recall_notes
from helpers.state import MemoryState
from helpers.tools import save_memory_note
from helpers.travel import SEARCH_TOOLS, Filler, memory_search_tools

# The role when the searches are offered. Short: a 1.5B model reads it on every call.
CONCIERGE_ROLE = """\
You are a concise travel concierge. Find flights, hotels and restaurants with the search tools;
never invent them, their prices or their availability. Save each lasting fact the user states
with its own save_memory_note call.
Search only when the user asks for a search; fill its arguments from the user's message (memory
fills the rest). For a question about what you remember, call recall_notes."""


def catalogue_tools(policy: Policy = DEFAULT_POLICY, filler: Filler | None = None) -> list[Any]:
    """recall_notes and the three searches whose arguments memory completes (no memory tool)."""
    return [recall_notes, *memory_search_tools(filler, policy)]


def default_tools(policy: Policy = DEFAULT_POLICY, filler: Filler | None = None) -> list[Any]:
    """The memory tool, recall_notes, and the three searches whose arguments memory completes."""
    return [save_memory_note, *catalogue_tools(policy, filler)]


def make_concierge(
    *,
    model: Model | None = None,
    policy: Policy = DEFAULT_POLICY,
    tools: list[Any] | None = None,
    filler: Filler | None = None,
    **instruction_options: Any,
) -> Agent[MemoryState]:
    """The travel concierge: memory-aware dynamic instructions, the capture tool and the searches.

    `tools=None` offers `default_tools(policy, filler)`; pass a list to choose. `filler` completes a
    search's arguments from memory (default `helpers.arguments.fill_arguments`). The role text
    (`base`) is CONCIERGE_ROLE when a search is offered, else the plain BASE_INSTRUCTIONS, so the
    model is never told about tools it does not have. With a search or recall_notes offered, their
    results end the turn with an answer composed in code (`answer_from_results`).
    """
    tools = default_tools(policy, filler) if tools is None else tools
    names = {getattr(t, "name", None) for t in tools}
    searches = bool(names & SEARCH_TOOLS)
    if "base" not in instruction_options:
        instruction_options["base"] = CONCIERGE_ROLE if searches else BASE_INSTRUCTIONS
    composed = searches or RECALL_TOOL in names
    return Agent[MemoryState](
        name="Travel Concierge",
        instructions=MemoryInstructions(policy=policy, **instruction_options),
        model=model or get_model(),
        tools=tools,
        tool_use_behavior=answer_from_results if composed else "run_llm_again",
    )


async def run_turn(
    agent: Agent[MemoryState],
    state: MemoryState,
    message: str,
    *,
    capture: PromptCapture | None = None,
    session: Session | None = None,
    run_config: RunConfig | None = None,
    max_turns: int = 4,
):
    """One user turn: advance the turn counter (provenance), run the agent with memory hooks."""
    state.turn_index += 1
    return await Runner.run(
        agent,
        message,
        context=state,
        session=session,
        hooks=MemoryHooks(capture=capture),
        run_config=run_config,
        max_turns=max_turns,
    )


__all__ = ["CONCIERGE_ROLE", "catalogue_tools", "default_tools", "make_concierge", "run_turn"]
