"""helpers.arguments: memory fills a search's arguments by the precedence policy, in code."""

import importlib.util
import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from helpers.arguments import (
    fill_arguments, mentions, named_place, place_mentions, read_cuisine, tool_parameters,
)
from helpers.paths import data_dir
from helpers.policy import DEFAULT_POLICY, PRECEDENCE, Policy
from helpers.state import MemoryNote, MemoryState, load_example_state
from tests.conftest import notes_dated

NOW = "2026-12-01T09:00:00Z"
FLIGHT = "Find me a flight to Tokyo on 11 December."
REVERSED = Policy(precedence=tuple(reversed(PRECEDENCE)))


def state(*notes: MemoryNote, profile: dict | None = None) -> MemoryState:
    s = MemoryState(profile=profile or {}, pinned_now=NOW)
    for n in notes:
        (s.session_notes if n.scope == "session" else s.global_notes).append(n)
    return s


note = notes_dated("2026-09-20")


AISLE = note("Prefers aisle seats on flights", "2026-03-14")
WINDOW_NOW = note("Wants a window seat this time", "2026-12-01", scope="session")


def flights(message: str, s: MemoryState, policy: Policy | None = None, **given):
    return fill_arguments("search_flights", {"destination": "Tokyo", **given}, message, s, policy)


def test_message_beats_session_beats_global():
    s = state(AISLE, WINDOW_NOW)
    by_session = flights(FLIGHT, s)
    assert (by_session.arguments["seat"], by_session.sources["seat"]) == ("window", WINDOW_NOW.id)
    by_message = flights("A flight to Tokyo on 11 December, aisle seat please.", s)
    assert (by_message.arguments["seat"], by_message.sources["seat"]) == ("aisle", "message")
    by_global = flights(FLIGHT, state(AISLE))
    assert (by_global.arguments["seat"], by_global.sources["seat"]) == ("aisle", AISLE.id)


def test_within_a_list_the_newest_note_wins_and_the_policy_can_say_oldest():
    older, newer = (
        note("Flies economy to keep costs down", "2025-05-01"),
        note("Flies business class", "2026-10-05"),
    )
    s = state(newer, older)
    assert flights(FLIGHT, s).arguments["cabin"] == "business"
    oldest = flights(FLIGHT, s, replace(DEFAULT_POLICY, newest_first=False))
    assert (oldest.arguments["cabin"], oldest.sources["cabin"]) == ("economy", older.id)


def test_the_reversed_policy_changes_the_search():
    s = state(AISLE, WINDOW_NOW)
    message = "A flight to Tokyo on 11 December, in a window seat."
    assert flights(message, s).arguments["seat"] == "window"
    reversed_ = flights(message, s, REVERSED)
    assert (reversed_.arguments["seat"], reversed_.sources["seat"]) == ("aisle", AISLE.id)
    # Only the remembered arguments change: the destination still comes from the message.
    assert reversed_.arguments["destination"] == "Tokyo"


def test_the_policy_rejects_an_order_that_leaves_a_source_out():
    with pytest.raises(ValueError, match="precedence"):
        Policy(precedence=("message", "global"))
    with pytest.raises(ValueError, match="precedence"):
        Policy(precedence="message")  # type: ignore[arg-type]


def test_inventions_the_message_does_not_support_are_dropped():
    budget = note("Keeps the nightly hotel budget under 250 AUD", "2026-08-07")
    hotel = fill_arguments(
        "search_hotels",
        {"city": "Tokyo", "max_price": 0, "features": ["beach"]},
        "Please keep my card on file",
        state(budget),
    )
    assert "city" not in hotel.arguments and hotel.dropped["city"] == "Tokyo"
    assert (hotel.arguments["max_price"], hotel.sources["max_price"]) == (250, budget.id)
    flight = flights(
        FLIGHT, state(), airline="Air France", seat="window", origin="Tokyo", cabin="first"
    )
    assert flight.arguments["airline"] == "" and flight.arguments["seat"] == "any"
    assert flight.arguments["cabin"] == "economy" and "origin" not in flight.arguments
    assert set(flight.dropped) == {"airline", "seat", "origin", "cabin"}
    eat = fill_arguments(
        "search_restaurants",
        {"city": "Lisbon", "diet": "any", "cuisine": "Thai"},
        "Somewhere to eat in Lisbon?",
        state(),
    )
    assert eat.arguments == {"city": "Lisbon", "diet": "any", "cuisine": ""} and eat.dropped == {
        "cuisine": "Thai"
    }


def test_a_value_the_message_names_stands_even_when_the_catalogue_lacks_it():
    paris = flights(
        "Fly me from Sydney to Paris on Air France",
        state(),
        destination="Paris",
        airline="Air France",
    )
    assert paris.arguments["destination"] == "Paris" and paris.arguments["airline"] == "Air France"
    assert paris.arguments["origin"] == "Sydney" and paris.sources["origin"] == "message"


def test_a_refusal_gives_no_value_and_no_lower_source_may_supply_the_refused_one():
    window = note("Prefers window seats", "2026-10-01")
    said = flights("A flight to Tokyo on 11 December, but not a window seat", state(window))
    assert said.arguments["seat"] == "any" and "seat" not in said.sources
    hates = note("Hates the window seat now", "2026-11-01")
    assert flights(FLIGHT, state(window, hates)).arguments["seat"] == "any"
    avoid = flights(
        FLIGHT, state(note("Avoids Jetstar"), note("Flies Jetstar to save money", "2025-01-01"))
    )
    assert avoid.arguments["airline"] == ""
    # One clause's negation does not hide another clause's value.
    both = flights("flights to Tokyo in business class, not an aisle seat", state(AISLE))
    assert (both.arguments["cabin"], both.arguments["seat"]) == ("business", "any")


def test_a_one_off_is_a_session_note_and_wins_for_this_session_only():
    one_off = note("For this trip only, wants a window seat", "2026-12-01", scope="session")
    assert flights(FLIGHT, state(AISLE, one_off)).arguments["seat"] == "window"
    assert (
        flights(FLIGHT, state(AISLE)).arguments["seat"] == "aisle"
    )  # the next session: no session note


def test_a_note_that_holds_in_some_circumstances_applies_only_when_the_message_names_them():
    long_haul = note("Prefers window seats on long-haul flights", "2026-11-01")
    s = state(AISLE, long_haul)
    assert flights(FLIGHT, s).arguments["seat"] == "aisle"
    assert flights("A long-haul flight to Tokyo on 11 December", s).arguments["seat"] == "window"


def test_no_memory_at_all_sends_neutral_values_and_claims_no_source():
    filled = flights(FLIGHT, state())
    assert filled.arguments == {
        "destination": "Tokyo",
        "date": "11 December",
        "seat": "any",
        "cabin": "economy",
        "airline": "",
    }
    assert set(filled.sources) == {"destination", "date"} == set(filled.explanations)


def test_notes_that_say_nothing_about_an_argument_or_are_someone_elses_supply_nothing():
    quiet = state(
        note("Likes to arrive the evening before a morning meeting"),
        note("Travels with Ana, a colleague"),
        note("Sister prefers window seats"),
        note("Tom flies business class"),
    )
    filled = flights(FLIGHT, quiet)
    assert (filled.arguments["seat"], filled.arguments["cabin"]) == ("any", "economy")
    assert "seat" not in filled.sources and "cabin" not in filled.sources
    # A person called Ana is not the airline ANA, in a note or in the profile's name.
    assert filled.arguments["airline"] == "" and "airline" not in filled.sources
    named = flights(FLIGHT, state(profile={"name": "Ana Lima"}))
    assert named.arguments["airline"] == "" and "airline" not in named.sources


def test_expired_and_superseded_notes_never_fill_an_argument():
    s = load_example_state()
    s.pinned_now = NOW
    s.global_notes.append(
        note("Wants window seats until November", "2026-11-20", expires_at="2026-11-30")
    )
    filled = flights(FLIGHT, s)
    assert filled.arguments["seat"] == "aisle" and filled.arguments["origin"] == "SYD"
    assert filled.sources["origin"] == "mem_sydney"  # not the superseded Brisbane note


def test_the_profile_fills_what_no_note_gives_after_the_global_notes():
    profile = {
        "home_airport": "MEL",
        "seat_preference": "window",
        "meal_preference": "no preference on file",
    }
    filled = flights(FLIGHT, state(profile=profile))
    assert (
        filled.sources["origin"] == "profile.home_airport" and filled.arguments["origin"] == "MEL"
    )
    assert (
        filled.arguments["seat"] == "window"
        and filled.explanations["seat"] == "window seat, from your profile"
    )
    assert flights(FLIGHT, state(AISLE, profile=profile)).arguments["seat"] == "aisle"
    eat = fill_arguments("search_restaurants", {}, "Find me dinner", state(profile=profile))
    assert eat.arguments["diet"] == "any" and eat.arguments["city"] == "Melbourne"


def test_hotel_budget_and_features_come_from_memory_and_the_message_overrides_them():
    s = load_example_state()
    s.pinned_now = NOW
    remembered = fill_arguments(
        "search_hotels",
        {"city": "Tokyo", "max_price": 0, "features": []},
        "Find me a hotel in Tokyo",
        s,
    )
    assert remembered.arguments == {
        "city": "Tokyo",
        "max_price": 250,
        "features": ["near transport"],
    }
    assert "2026-08-07" in remembered.explanations["max_price"]
    said = fill_arguments(
        "search_hotels", {"city": "Tokyo"}, "A hotel in Tokyo under 180 a night with a pool", s
    )
    assert said.arguments == {"city": "Tokyo", "max_price": 180, "features": ["pool"]}
    foreign = fill_arguments(
        "search_hotels",
        {"city": "Tokyo"},
        "A hotel in Tokyo",
        state(note("Keeps the hotel budget under 200 USD a night")),
    )
    assert (
        foreign.arguments["max_price"] == 0
    )  # the catalogue prices in AUD and the tool takes no currency


def test_diets_the_catalogue_serves_and_a_newer_meat_eater_note():
    veg = note("Is vegetarian", "2025-02-01")
    assert (
        fill_arguments("search_restaurants", {}, "Dinner in Tokyo?", state(veg)).arguments["diet"]
        == "vegetarian"
    )
    later = state(veg, note("No longer vegetarian, eats meat again", "2026-06-01"))
    assert (
        fill_arguments("search_restaurants", {}, "Dinner in Tokyo?", later).arguments["diet"]
        == "any"
    )
    halal = fill_arguments(
        "search_restaurants", {"diet": "any"}, "Halal food in Kuala Lumpur", state(veg)
    )
    assert (halal.arguments["diet"], halal.sources["diet"]) == ("halal", "message")


def test_misspelled_places_and_airlines_are_read_as_the_catalogue_names_them():
    filled = flights(
        "flights from Melborne to Tokio on Friday with Quantas", state(), destination="Tokio"
    )
    assert (
        filled.arguments["origin"],
        filled.arguments["destination"],
        filled.arguments["airline"],
    ) == ("Melbourne", "Tokyo", "Qantas")
    assert place_mentions("soul food in Perth, then HKG") == ["Perth", "Hong Kong"]
    assert mentions("book me on Quantas", "Qantas") and not mentions("book me a seat", "Qantas")


def test_the_message_day_stands_and_the_models_words_for_it_are_kept():
    assert flights(FLIGHT, state(), date="next Friday").arguments["date"] == "11 December"
    assert flights(FLIGHT, state(), date="Dec 11").arguments["date"] == "Dec 11"
    assert flights("A flight to Tokyo", state(), date="next Friday").arguments["date"] == ""


def test_the_precedence_eval_scenario_gets_the_arguments_it_checks():
    scenario = json.loads((data_dir() / "evals" / "precedence_in_the_search.json").read_text())
    notes = [MemoryNote.from_dict({**n, "scope": "global"}) for n in scenario["notes"]]
    s = state(*notes, profile=scenario["profile"])
    s.session_notes.append(
        note("Wants a window seat for this trip only", "2026-12-01", scope="session")
    )
    want = scenario["sessions"][0]["must"]["call_arguments"][0]["arguments"]
    got = flights(scenario["sessions"][0]["turns"][1], s).arguments
    assert (
        got["origin"] in want["origin"]
        and got["seat"] == want["seat"]
        and got["cabin"] == want["cabin"]
    )
    s.session_notes.clear()  # the next session
    second = scenario["sessions"][1]
    got = flights(second["turns"][0], s).arguments
    assert got["seat"] == second["must"]["call_arguments"][0]["arguments"]["seat"] == "aisle"
    assert got["cabin"] == "premium economy"


def test_the_searches_arguments_come_from_their_schemas_and_an_unknown_tool_fails():
    assert tool_parameters("search_flights") == [
        "origin",
        "destination",
        "date",
        "seat",
        "cabin",
        "airline",
    ]
    with pytest.raises(ValueError, match="unknown search tool"):
        fill_arguments("search_trains", {}, "a train", state())


def _request_set():
    spec = importlib.util.spec_from_file_location(
        "concierge_requests", Path(__file__).parents[2] / "benchmarks" / "concierge_requests.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, module.load_requests()


BENCH, REQUESTS = _request_set()
SEARCH_REQUESTS = [r for r in REQUESTS["requests"] if r["search"]]


def test_the_request_set_is_large_varied_and_licensed():
    requests = REQUESTS["requests"]
    assert len(requests) >= 60 and len({r["id"] for r in requests}) == len(requests)
    kinds = {r["kind"] for r in requests}
    assert {"missing_city", "misspelled", "memory_question", "general", "one_off"} <= kinds
    assert {"this_time_only", "remember", "search_remembered", "search_plain"} <= kinds
    assert REQUESTS["licence"] == "CC0-1.0" and REQUESTS["source"]
    assert all(r["fixture"] in REQUESTS["fixtures"] for r in requests)
    assert sum(a["from"] == "memory" for r in requests for a in r["arguments"].values()) >= 40


@pytest.mark.parametrize("request_", SEARCH_REQUESTS, ids=[r["id"] for r in SEARCH_REQUESTS])
def test_every_search_request_gets_its_arguments_and_sources(request_):
    """The model proposes what the user said (and 0 or "" for the rest, as the 1.5B model does);
    the filler must give every expected value from the expected source."""
    state_ = BENCH.state_for(REQUESTS, request_["fixture"])
    given = {n: (w["value"][0] if isinstance(w.get("value"), list) and n != "features" else w.get("value"))
             for n, w in request_["arguments"].items() if w["from"] == "message"}
    filled = fill_arguments(request_["search"], given, request_["message"], state_)
    call = [{"name": request_["search"], "arguments": filled.arguments, "output": ""}]
    for name, want in request_["arguments"].items():
        assert BENCH.check_argument(name, want, call)[0], (name, want, filled.arguments)
        source = filled.sources.get(name)
        if want["from"] == "message" and "value" in want:
            assert source == "message", (name, filled.sources)
        elif want["from"] == "memory" and "value" in want:
            assert source not in (None, "message"), (name, filled.sources)
        elif want["from"] == "neutral":
            assert source is None, (name, filled.sources)
        if "note" in want:
            assert source == want["note"], (name, filled.sources)
    reverse = fill_arguments(request_["search"], given, request_["message"], state_, REVERSED)
    for name, value in request_.get("reversed", {}).items():
        assert BENCH.same_value(name, value, reverse.arguments.get(name)), (name, reverse.arguments)


def test_the_invention_checker_reads_the_catalogues_names_and_prices():
    names, kinds = BENCH.catalogue_names(), BENCH._name_kinds()
    results = "2 hotels in Tokyo, best rated first:\n- Lantern Shinjuku Suites, Shinjuku, 4 stars, 240 AUD"
    assert BENCH.invented("Lantern Shinjuku Suites at 240 AUD in Tokyo.", results, names, kinds) == []
    found = BENCH.invented("Try the Shinjuku Hotel, 200-290 AUD, or QF25 to Osaka.", "No hotels.", names, kinds)
    assert {"Shinjuku Hotel", "200 (price)", "290 (price)", "QF25", "Osaka"} <= set(found)


def test_a_raw_message_is_the_catalogues_error_or_the_memory_tools_reply_shown_verbatim():
    today = date(2026, 12, 1)
    args = {"origin": "SYD", "destination": "Tokyo", "date": "Friday", "airline": "Air France"}
    call = {"name": "search_flights", "proposed": args, "arguments": args, "output": "", "text": ""}
    error = BENCH.catalogue_error("search_flights", args, today)
    assert error.startswith("Unknown airline 'Air France'")
    assert BENCH.raw_messages(f"Sorry. {error}", [call], today)
    assert not BENCH.raw_messages("Air France is not in the catalogue; any airline?", [call], today)
    # A no-result sentence is a fact of the search, not a raw message.
    found = {**args, "airline": ""}
    assert BENCH.catalogue_error("search_hotels", {"city": "Tokyo", "max_price": 50}, today) == ""
    assert not BENCH.raw_messages("No flights that day.", [{**call, "proposed": found, "arguments": found}], today)
    saved = {"name": "save_memory_note", "proposed": {}, "arguments": {}, "text": "",
             "output": "Not saved: the user asked about this, they did not state it."}
    assert BENCH.raw_messages("Not saved: the user asked about this, they did not state it.", [saved], today)


def test_the_runner_reads_a_turns_calls_and_flags_inventions_and_raw_messages():
    """One request through helpers.concierge with a scripted model that invents a seat and a
    hotel and shows the tool's message: every flag the table counts is raised."""
    import asyncio

    from tests.scripted_model import ScriptedModel

    request = next(r for r in REQUESTS["requests"] if r["id"] == "missing-paris-flight")
    call = {"destination": "Paris", "origin": "SYD", "date": "Friday", "seat": "window",
            "cabin": "economy", "airline": ""}
    names, kinds = BENCH.catalogue_names(), BENCH._name_kinds()
    # A turn as a concierge whose model answers after the search wrote it (main's): checked as saved.
    error = BENCH.catalogue_error("search_flights", call, date(2026, 11, 30))
    turn = {"id": request["id"], "order": list(DEFAULT_POLICY.precedence), "seconds": 1.0, "error": None,
            "calls": [{"name": "search_flights", "arguments": call, "output": error}],
            "answer": f"{error.split(' Cities')[0]} Try the Paris Grand Hotel at 199 AUD."}
    row = BENCH.check(REQUESTS, request, turn, names, kinds)
    assert row["search_ok"] and row["searches"] == ["search_flights"]
    met = {a["name"]: a["met"] for a in row["arguments"]}
    assert met == {"destination": True, "seat": False, "origin": True, "cabin": True, "airline": True}
    assert "Paris Grand Hotel" in row["invented"] and "199 (price)" in row["invented"]
    assert row["raw"] == ["No airport or city matches 'Paris'."]  # the catalogue's error, verbatim
    assert "seat" in BENCH.table([row], "t") and "1/1" in BENCH.table([row], "t")
    # The same model through this branch's concierge: memory fills the seat, code writes the answer.
    model = ScriptedModel([{"tool": "search_flights", "arguments": call},
                           "No airport or city matches 'Paris'. Try the Paris Grand Hotel at 199 AUD."])
    ours = asyncio.run(BENCH.run_request(REQUESTS, request, DEFAULT_POLICY, names, kinds, model))
    assert {a["name"]: a["met"] for a in ours["arguments"]}["seat"] and not ours["invented"] and not ours["raw"]


def test_a_saved_run_is_read_back_and_checked_again(tmp_path, capsys):
    """--report recomputes every verdict from saved turns: a turn of main's concierge (the
    model's arguments are what went out) and its reversed twin, with the changed argument."""
    call = {"name": "search_flights", "output": "1 flights SYD -> NRT\n- NH831 ANA: 830 AUD",
            "arguments": {"origin": "SYD", "destination": "Tokyo", "date": "11 December",
                          "seat": "window", "cabin": "economy", "airline": ""}}
    turn = {"id": "flight-tokyo", "order": list(PRECEDENCE), "seconds": 12.5, "error": None,
            "calls": [call], "answer": "NH831 at 830 AUD, or the Harbour Grand Hotel."}
    twin = {**turn, "order": list(reversed(PRECEDENCE)),
            "calls": [{**call, "arguments": {**call["arguments"], "seat": "aisle"}}]}
    saved = tmp_path / "run.partial.jsonl"
    saved.write_text("\n".join(json.dumps(t) for t in (turn, twin)) + "\n")
    assert BENCH.main(["--report", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "remembered preference in the arguments  1/2 (50 %)" in out  # origin yes, seat no
    assert "answers naming what no result gave      1/1" in out  # the hotel no result gave
    assert "flight-tokyo" in out and "seat 'window' -> 'aisle'" in out


def test_a_place_the_catalogue_lacks_is_read_from_the_message_and_never_replaced_by_home():
    assert named_place("I want to fly to New York on 9 January") == "New York"
    assert named_place("A hotel in December, please") is None  # a month, not a place
    assert named_place("Flights from Paris to Rome", besides="Paris") == "Rome"
    home = state(note("Lives in Melbourne"))
    searched = fill_arguments("search_restaurants", {}, "Any good restaurants in Rome?", home)
    assert searched.arguments["city"] == "Rome" and searched.sources["city"] == "message"
    paris = fill_arguments("search_flights", {}, "Find me a flight to Paris on Friday.", home)
    assert paris.arguments["destination"] == "Paris"
    # Reversed, memory comes first: the remembered home is searched instead (what the order says).
    reversed_ = Policy(precedence=tuple(reversed(PRECEDENCE)))
    assert fill_arguments("search_restaurants", {}, "Any good restaurants in Rome?", home,
                          reversed_).arguments["city"] == "Melbourne"


def test_a_cuisine_the_catalogue_lists_is_read_from_the_message_and_a_diet_is_not_a_cuisine():
    assert read_cuisine("Japanese food in Tokyo?").value == "Japanese"
    assert read_cuisine("Find me a steakhouse in Perth").value == "Steakhouse"
    assert read_cuisine("A vegetarian place in Perth").value is None
    filled = fill_arguments("search_restaurants", {"city": "Sydney"}, "Good Thai place in Sydney?", state())
    assert filled.arguments["cuisine"] == "Thai"
    # A cuisine the model made up, that the message does not name, does not go out.
    assert fill_arguments("search_restaurants", {"city": "Sydney", "cuisine": "Italian"},
                          "Dinner in Sydney?", state()).arguments["cuisine"] == ""


def test_a_cabin_word_the_model_put_in_the_seat_is_no_seat_and_memory_fills_it():
    message = "Is there a first class seat to Dubai on Thursday?"
    filled = flights(message, state(AISLE), destination="Dubai", seat="first", cabin="first")
    assert (filled.arguments["seat"], filled.arguments["cabin"]) == ("aisle", "first")
