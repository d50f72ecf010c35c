"""The course's example agent: a travel concierge with memory, and one conversational turn.

Every notebook builds the same agent the same way, so differences you see come from the memory
stage being taught, not from the agent.

By default the concierge has the memory tool and three searches over the offline catalogue
(`helpers.catalogue`). Its role text tells the model to fill the search arguments it was not
given from memory (home airport, seat, cabin, airline, hotel budget, diet) and to answer by
summarising what the search returned, so memory visibly changes what the agent does.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunConfig, Runner
from agents.memory import Session
from agents.models.interface import Model

from helpers.catalogue import TRAVEL_TOOLS
from helpers.hooks import BASE_INSTRUCTIONS, MemoryHooks, MemoryInstructions, PromptCapture
from helpers.llm import get_model
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.state import MemoryState
from helpers.tools import save_memory_note

# The role when the searches are offered. Short: a 1.5B model reads it on every call.
CONCIERGE_ROLE = """\
You are a concise travel concierge. Find flights, hotels and restaurants with the search tools;
never invent them, their prices or their availability. Save each lasting fact the user states
with its own save_memory_note call.
Memory fills every search argument the user did not give: origin = the home airport, seat = the
remembered seat (aisle or window), then cabin, airline, nightly hotel budget and diet.
After a search, answer in one or two sentences: the best result (flight or name, time, price)
and the remembered preference you used. If it found nothing, say so."""

DEFAULT_TOOLS = [save_memory_note, *TRAVEL_TOOLS]


def make_concierge(
    *,
    model: Model | None = None,
    policy: Policy = DEFAULT_POLICY,
    tools: list[Any] | None = None,
    **instruction_options: Any,
) -> Agent[MemoryState]:
    """The travel concierge: memory-aware dynamic instructions, the capture tool and the searches.

    `tools=None` offers save_memory_note and the three catalogue searches; pass a list to choose.
    The role text (`base`) is CONCIERGE_ROLE when a search is offered, else the plain
    BASE_INSTRUCTIONS, so the model is never told about tools it does not have.
    """
    tools = list(DEFAULT_TOOLS) if tools is None else tools
    if "base" not in instruction_options:
        searches = any(t in TRAVEL_TOOLS for t in tools)
        instruction_options["base"] = CONCIERGE_ROLE if searches else BASE_INSTRUCTIONS
    return Agent[MemoryState](
        name="Travel Concierge",
        instructions=MemoryInstructions(policy=policy, **instruction_options),
        model=model or get_model(),
        tools=tools,
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


__all__ = ["CONCIERGE_ROLE", "DEFAULT_TOOLS", "make_concierge", "run_turn"]
