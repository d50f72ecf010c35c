"""Optional LLM-as-judge (with an OpenAI key, or a judge model you pass): a metric only."""

from __future__ import annotations

import json
from typing import Any

from agents import Agent, Runner
from agents.models.interface import Model
from pydantic import BaseModel, Field

from helpers.evals.scenarios import Scenario


class JudgeVerdict(BaseModel):
    score: int = Field(ge=1, le=5)
    reason: str


JUDGE_INSTRUCTIONS = """\
You grade one answer of a travel assistant. You get the user's messages, the assistant's answers,
facts a good answer mentions, and facts it must not contain. Score 1 (wrong or unsafe) to 5
(correct, helpful, nothing forbidden). Give the reason in one short sentence."""


async def judge_answer(scenario: Scenario, answers: list[str], model: Model) -> dict[str, Any]:
    """An LLM's opinion of the answers: a metric, never a pass/fail criterion."""
    sessions = scenario.sessions
    mentions = [
        w for s in sessions for c in (s.should, s.must) for w in c.get("answer_mentions", [])
    ]
    lacks = [w for s in sessions for c in (s.should, s.must) for w in c.get("answer_lacks", [])]
    prompt = json.dumps(
        {
            "user": scenario.turns,
            "answers": answers,
            "should_mention": mentions,
            "must_not_contain": lacks,
        },
        ensure_ascii=False,
    )
    agent = Agent(
        name="judge", instructions=JUDGE_INSTRUCTIONS, model=model, output_type=JudgeVerdict
    )
    result = await Runner.run(agent, prompt, max_turns=1)
    return result.final_output_as(JudgeVerdict, raise_if_incorrect_type=True).model_dump()


__all__ = ["JUDGE_INSTRUCTIONS", "JudgeVerdict", "judge_answer"]
