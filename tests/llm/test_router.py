"""Decide, then act: the embedded concierge's turn with a scripted engine (no model).

The engine (`tests.fake_llm.FakeLLM`) returns scripted completions, so these tests check which
completions `LocalModel` asks for, under which grammar, what the tools receive and what the
answer, composed in code, says.
"""

import json

import pytest
from agents import set_tracing_disabled

from helpers.concierge import make_concierge, run_turn
from helpers.llm import LocalModel
from helpers.llm.router import OTHER, RECALL, Router
from helpers.state import load_example_state
from helpers.travel import as_given
from tests.fake_llm import FakeLLM

set_tracing_disabled(True)

TODAY = "2026-11-30T09:00:00Z"  # a Monday: "next Friday" is 2026-12-04


def flight(**given):
    """The arguments step's completion: the arguments object (the call's opening is in the prompt)."""
    arguments = {"origin": "SYD", "destination": "Tokyo", "date": "next Friday", "seat": "aisle",
                 "cabin": "economy", "airline": ""}
    return json.dumps({**arguments, **given})


async def turn(outputs, message, **concierge):
    state = load_example_state()
    state.pinned_now = TODAY
    fake = FakeLLM(outputs)
    model = LocalModel(fake)
    result = await run_turn(make_concierge(model=model, **concierge), state, message)
    calls = [(i.raw_item.name, json.loads(i.raw_item.arguments)) for i in result.new_items
             if i.type == "tool_call_item"]
    return result, calls, fake, model, state


async def test_a_search_turn_routes_fills_the_arguments_and_answers_from_the_rows_in_code():
    result, calls, fake, model, _ = await turn(["[]", "search_flights", flight()],
                                               "Find me a flight to Tokyo next Friday.")
    assert [r.kind for r in model.routes] == ["search_flights"]
    assert [r.step for r in fake.history] == ["capture", "route", "arguments"]  # no prose completion
    route_grammar, arguments_grammar = fake.history[1].grammar, fake.history[2].grammar
    assert '"search_flights" | "search_hotels" | "search_restaurants" | "recall" | "remember" | "other"' in route_grammar
    assert "answer" not in arguments_grammar and '"destination"' in arguments_grammar
    assert "search_hotels" not in arguments_grammar  # only the chosen tool's schema
    assert fake.history[2].prompt.endswith('<tool_call>\n{"name": "search_flights", "arguments": ')
    assert calls == [("search_flights", json.loads(flight()))]
    answer = result.final_output
    assert answer.startswith("Best of") and "Fri 2026-12-04" in answer and "AUD" in answer


async def test_a_general_question_gets_prose_and_no_search():
    result, calls, fake, model, _ = await turn(["[]", "other", "Lisbon is the capital of Portugal."],
                                               "What's the capital of Portugal?")
    assert calls == [] and model.routes[-1].kind == OTHER
    assert [r.step for r in fake.history] == ["capture", "route", "prose"]
    assert result.final_output == "Lisbon is the capital of Portugal."
    assert "call_json" not in fake.history[-1].grammar  # the prose step can call nothing


async def test_a_question_about_memory_is_answered_by_quoting_the_notes_without_another_completion():
    result, calls, fake, model, _ = await turn(["[]", "recall"],
                                               "What seat do I usually like, and what is my hotel budget?")
    assert model.routes[-1].kind == RECALL and len(fake.history) == 2
    assert calls == [("recall_notes", {"question": "What seat do I usually like, and what is my hotel budget?"})]
    answer = result.final_output
    assert answer.startswith("From your notes:")
    assert "Usually prefers an aisle seat on flights" in answer and "under 250 AUD" in answer
    assert "window" not in answer and "Lives in" not in answer  # only the notes on those topics


async def test_a_request_to_remember_is_acknowledged_from_the_save_results():
    save = json.dumps([{"text": "Is vegetarian", "keywords": ["diet"], "kind": "fact"}])
    result, calls, fake, _, state = await turn([save, "remember"], "I'm vegetarian.")
    assert calls == [("save_memory_note", {"text": "Is vegetarian", "keywords": ["diet"], "kind": "fact"})]
    assert [n.text for n in state.session_notes] == ["Is vegetarian"]
    assert result.final_output == "I'll remember that: Is vegetarian." and len(fake.history) == 2


async def test_a_misspelled_place_is_repaired_once_and_the_answer_says_so():
    result, calls, *_ = await turn(["[]", "search_flights", flight(destination="OSAK")],
                                   "Find me a flight to OSAK next Friday.", filler=as_given)
    answer = result.final_output
    assert answer.startswith("I searched for 'OSAK' as Osaka.")
    assert "KIX" in answer and "Unknown" not in answer and "Cities:" not in answer


@pytest.mark.parametrize("given, said", [
    ({"destination": "Paris"}, "The catalogue has no place called Paris, so I did not search"),
    ({"airline": "Air France"}, "The catalogue has no flights by Air France, so I did not search"),
])
async def test_a_search_the_catalogue_cannot_run_is_one_plain_sentence(given, said):
    message = f"Find me a flight {' and '.join(given.values())} next Friday."
    result, *_ = await turn(["[]", "search_flights", flight(**given)], message, filler=as_given)
    answer = result.final_output
    assert answer.startswith(said) and answer.count(". ") + answer.count(".\n") <= 1
    assert "use ''" not in answer and "Unknown" not in answer and "AUD" not in answer


async def test_values_from_memory_are_named_in_the_answer_with_their_note():
    class Filled:
        def __init__(self, given):
            self.arguments = {**given, "seat": "window"}
            self.sources = {**{k: "message" for k in given}, "seat": "mem_x"}
            self.explanations = {"seat": "window seat, from your note of 2026-11-02"}

    seen = []

    def filler(tool, given, message, state, policy=None):
        seen.append((tool, message))
        return Filled(given)

    result, *_ = await turn(["[]", "search_flights", flight()], "Find me a flight to Tokyo next Friday.",
                            filler=filler)
    assert seen == [("search_flights", "Find me a flight to Tokyo next Friday.")]
    assert "window seat" in result.final_output.split("\n")[0]  # the search went out with the filled seat
    assert "From memory: window seat, from your note of 2026-11-02." in result.final_output


async def test_a_hotel_wish_the_catalogue_has_no_data_for_is_said_not_invented():
    hotel = json.dumps({"city": "Tokyo", "max_price": 250, "features": ["beach"]})
    result, *_ = await turn(["[]", "search_hotels", hotel], "A hotel near the beach in Tokyo, please.")
    assert "The catalogue has no data on beach, so that was not checked." in result.final_output
    assert "under 250 AUD" in result.final_output


def test_the_router_reads_only_its_own_words():
    tools = [{"function": {"name": "search_flights", "description": "Search flights. More."}}]
    router = Router()
    assert router.read(" search_flights", tools).kind == "search_flights"
    assert router.read("book_flight", tools).kind == OTHER
    messages = router.messages("Any trains?", tools)
    assert "search_flights if the user asks you to search flights" in messages[0]["content"]
    assert {"role": "user", "content": "Can you search flights for me?"} in messages  # a worked example per search
    assert messages[-1] == {"role": "user", "content": "Any trains?"}  # the message, after the examples


async def test_without_a_router_the_model_chooses_its_own_calls():
    state = load_example_state()
    state.pinned_now = TODAY
    fake = FakeLLM(["[]", json.dumps({"name": "search_flights", "arguments": json.loads(flight())})])
    model = LocalModel(fake, router=None)
    result = await run_turn(make_concierge(model=model), state, "Find me a flight to Tokyo next Friday.")
    assert model.routes == [] and len(fake.history) == 2  # capture, then the model's own call
    assert result.final_output.startswith("Best of")


async def test_the_default_filler_completes_a_search_from_memory_and_drops_what_nothing_supports():
    proposed = flight(destination="Osaka", seat="window", cabin="premium economy")
    result, calls, *_ = await turn(["[]", "search_flights", proposed], "Find me a flight to Osaka next Friday.")
    answer = result.final_output
    assert calls[-1][1]["cabin"] == "premium economy"  # what the model proposed ...
    assert "economy aisle seat" in answer.split("\n")[0]  # ... and what was searched: the remembered seat
    assert "aisle seat, from your note of 2026-03-14" in answer
    assert "premium" not in answer  # the dropped proposal is not named: nobody asked for it, no result gave it


async def test_an_empty_place_is_one_plain_sentence():
    result, *_ = await turn(["[]", "search_flights", flight(destination="")], "Find me a flight next Friday.")
    assert result.final_output == "I need a destination to search; none was given or remembered."


@pytest.mark.parametrize("route, then", [("search_flights", [flight()]), ("other", ["Enjoy Tokyo."]),
                                         ("recall", [])])
async def test_the_capture_questions_notes_are_saved_whatever_the_route(route, then):
    save = json.dumps([{"text": "Is vegetarian", "keywords": ["diet"], "kind": "fact"}])
    _, calls, _, model, state = await turn([save, route, *then], "I'm vegetarian. Find me a flight to Tokyo.")
    assert model.routes[-1].kind == route
    assert calls[0][0] == "save_memory_note" and [n.text for n in state.session_notes] == ["Is vegetarian"]


async def test_the_model_writes_only_the_arguments_code_cannot_fill_and_the_rest_go_out_blank():
    result, calls, fake, *_ = await turn(["[]", "search_flights", json.dumps({"destination": "Tokyo", "airline": ""})],
                                         "Find me a flight to Tokyo next Friday.", filler=as_given)
    grammar = fake.history[2].grammar
    assert '"destination"' in grammar and '"airline"' in grammar
    assert '"seat"' not in grammar and '"origin"' not in grammar and '"date"' not in grammar
    assert '"maxLength": 40' in grammar and fake.options[2]["max_tokens"] == 64  # a runaway value is cut short
    assert calls == [("search_flights", {"origin": "", "destination": "Tokyo", "date": "", "seat": "",
                                         "cabin": "", "airline": ""})]


async def test_arguments_that_are_not_an_object_get_prose_instead_of_a_search():
    result, calls, fake, model, _ = await turn(["[]", "search_flights", "[1, 2]", "Sorry, say that again?"],
                                               "Find me a flight to Tokyo next Friday.")
    assert calls == [] and [r.step for r in fake.history] == ["capture", "route", "arguments", "prose"]
    assert "could not be read (not an object)" in model.problems[-1]


def test_a_tool_without_listed_fields_gets_all_its_arguments_from_the_model():
    from helpers.llm.adapter import blank_arguments, model_part
    parameters = {"type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "integer"},
                                                   "xs": {"type": "array"}}, "required": ["a", "n", "xs"]}
    assert model_part(parameters, None) == parameters
    assert model_part(parameters, ("n",))["properties"] == {"n": {"type": "integer"}}
    assert model_part(parameters, ("n",))["required"] == ["n"]
    assert model_part(parameters, ("a",))["properties"]["a"]["maxLength"] == 40  # a bounded string
    assert blank_arguments(parameters) == {"a": "", "n": 0, "xs": []}
