"""The concierge's wiring: memory tool plus the searches, memory in their arguments."""

from helpers.answers import answer_from_results
from helpers.searches import flight_results, search_flights, search_hotels, search_restaurants
from helpers.concierge import CONCIERGE_ROLE, make_concierge, run_turn
from helpers.hooks import BASE_INSTRUCTIONS, PromptCapture
from helpers.state import load_example_state
from helpers.tools import save_memory_note
from tests.scripted_model import ScriptedModel


def test_by_default_the_concierge_offers_memory_and_the_three_searches():
    agent = make_concierge(model=ScriptedModel([]))
    assert [t.name for t in agent.tools] == [save_memory_note.name, "recall_notes", search_flights.name,
                                             search_hotels.name, search_restaurants.name]
    assert agent.tools[2].params_json_schema == search_flights.params_json_schema
    assert agent.instructions.base == CONCIERGE_ROLE
    assert agent.tool_use_behavior is answer_from_results
    assert "memory" not in BASE_INSTRUCTIONS.split("\n")[0] and "recall_notes" in CONCIERGE_ROLE


def test_without_a_search_the_role_does_not_mention_one():
    assert make_concierge(model=ScriptedModel([]), tools=[]).instructions.base == BASE_INSTRUCTIONS
    assert (
        make_concierge(model=ScriptedModel([]), tools=[save_memory_note]).instructions.base
        == BASE_INSTRUCTIONS
    )
    mine = make_concierge(model=ScriptedModel([]), base="Be brief.")
    assert mine.instructions.base == "Be brief."


async def test_a_search_turn_sees_memory_runs_the_tool_with_the_pinned_date_and_answers_from_it():
    state = load_example_state()
    state.pinned_now = "2026-11-30T09:00:00Z"
    arguments = {
        "origin": "SYD",
        "destination": "Tokyo",
        "date": "next Friday",
        "seat": "aisle",
        "cabin": "economy",
        "airline": "",
    }
    model = ScriptedModel(
        [
            {"tool": "search_flights", "arguments": arguments},
            "NH831 at 11:55 for 830 AUD, with your usual aisle seat.",
        ]
    )
    agent = make_concierge(model=model)
    capture = PromptCapture(agent.instructions)
    result = await run_turn(agent, state, "Find me a flight to Tokyo next Friday.", capture=capture)

    first = model.calls[0]
    assert first.system_instructions.startswith(CONCIERGE_ROLE)
    assert (
        "home_airport: SYD" in first.system_instructions
        and "aisle seat" in first.system_instructions
    )
    assert first.tool_names == [
        "save_memory_note",
        "recall_notes",
        "search_flights",
        "search_hotels",
        "search_restaurants",
    ]
    [output] = [str(i.output) for i in result.new_items if i.type == "tool_call_output_item"]
    assert output == flight_results(
        "SYD", "Tokyo", "2026-12-04", "aisle", "economy", "", today=state.clock().date()
    )
    assert "Fri 2026-12-04" in output and "NH831" in output
    # The answer is composed in code from the results: the model is not asked again.
    assert len(model.calls) == 1 and model.steps  # the scripted prose answer was never used
    assert result.final_output.startswith("Best of") and "NH831" in result.final_output
    assert state.session_notes == []  # a search is not a memory
