"""The concierge on the embedded model: memory fills a search's arguments, the answer sums it up.

Two checks, a few minutes on 2 cores. Run under the model lock:
    flock /tmp/embedded-model.lock python -m pytest -m model tests/concierge/test_concierge_embedded.py
"""

import re

import pytest

from helpers import evals
from helpers.concierge import make_concierge, run_turn
from helpers.hooks import PromptCapture
from helpers.llm import LocalModel, active_backend, embedded_llm
from helpers.notebook import COURSE_NOW
from helpers.state import MemoryNote, MemoryState
from helpers.travel import SearchOutcome

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(
        active_backend().kind != "embedded", reason="these tests are about the embedded model"
    ),
]


def remembered_state() -> MemoryState:
    """Home airport and seat come only from memory; the request names neither."""
    state = MemoryState(profile={"name": "Maya Chen", "home_airport": "SYD", "currency": "AUD"})
    state.pinned_now = COURSE_NOW
    state.global_notes = [
        MemoryNote(
            "Lives in Sydney; home airport is Sydney (SYD)",
            "2026-08-25",
            keywords=["home"],
            kind="fact",
        ),
        MemoryNote(
            "Always wants an aisle seat on flights", "2026-03-14", keywords=["seat", "flight"]
        ),
    ]
    return state


async def test_a_flight_request_is_searched_with_the_remembered_home_airport_and_seat():
    state = remembered_state()
    agent = make_concierge(model=LocalModel(embedded_llm()))
    capture = PromptCapture(agent.instructions)
    result = await run_turn(agent, state, "Find me a flight to Tokyo next Friday.", capture=capture)
    calls = [i.raw_item for i in result.new_items if i.type == "tool_call_item"]
    outputs = [str(i.output) for i in result.new_items if i.type == "tool_call_output_item"]
    print("calls:", [(c.name, c.arguments) for c in calls])
    print("tool output:", *outputs, sep="\n")
    print("answer:", result.final_output)
    assert [c.name for c in calls if c.name == "search_flights"], f"no search_flights call: {[c.name for c in calls]}"
    # What was searched: the model writes only the fields code cannot fill; memory fills the rest in code.
    searched = [i.output for i in result.new_items
                if i.type == "tool_call_output_item" and isinstance(i.output, SearchOutcome)]
    assert searched, outputs
    args = searched[0].arguments
    assert args["origin"].strip().upper() in ("SYD", "SYDNEY"), args
    assert args["seat"].strip().lower().startswith("aisle"), args
    assert "tokyo" in args["destination"].lower() or args["destination"].upper() in ("TOK", "TYO",
        "NRT",
        "HND",
    ), args
    # The answer summarises what the search returned: a flight number or a price from its output.
    answer = str(result.final_output)
    returned = set(re.findall(r"\b[A-Z]{2}\d{1,3}\b", outputs[0])) | set(
        re.findall(r"\d[\d,]* AUD", outputs[0])
    )
    assert any(r.split()[0] in answer for r in returned), (answer, returned)


async def test_move_city_supersedes_the_old_city_on_the_embedded_model():
    """The eval scenario end to end: capture the move, consolidate with the model, then rules."""
    outcome = await evals.run_scenario(evals.load_scenarios(["move_city"])[0],
                                       LocalModel(embedded_llm()))
    result = evals.evaluate(outcome)
    print("captured:", outcome.captured, "| consolidation:", outcome.consolidation)
    print("stored:", [(n.text, n.status, n.superseded_by) for n in outcome.stored])
    assert result.passed, result.failures
    assert not [m for m in result.misses if "superseded" in m or "Brisbane" in m], result.misses
