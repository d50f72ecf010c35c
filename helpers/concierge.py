"""The course's example agent: a travel concierge with memory, and one conversational turn.

Every notebook builds the same agent the same way, so differences you see come from the memory
stage being taught, not from the agent.
"""

from __future__ import annotations

from typing import Any

from agents import Agent, RunConfig, Runner
from agents.memory import Session
from agents.models.interface import Model

from helpers.hooks import MemoryHooks, MemoryInstructions, PromptCapture
from helpers.llm import get_model
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.state import MemoryState
from helpers.tools import save_memory_note


def make_concierge(*, model: Model | None = None, policy: Policy = DEFAULT_POLICY,
                   tools: list[Any] | None = None, **instruction_options: Any) -> Agent[MemoryState]:
    """The travel concierge: memory-aware dynamic instructions plus the capture tool."""
    return Agent[MemoryState](
        name="Travel Concierge",
        instructions=MemoryInstructions(policy=policy, **instruction_options),
        model=model or get_model(),
        tools=[save_memory_note] if tools is None else tools,
    )


async def run_turn(agent: Agent[MemoryState], state: MemoryState, message: str, *,
                   capture: PromptCapture | None = None, session: Session | None = None,
                   run_config: RunConfig | None = None, max_turns: int = 4):
    """One user turn: advance the turn counter (provenance), run the agent with memory hooks."""
    state.turn_index += 1
    return await Runner.run(agent, message, context=state, session=session,
                            hooks=MemoryHooks(capture=capture), run_config=run_config, max_turns=max_turns)
