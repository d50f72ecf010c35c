"""The offline catalogue and its three searches: reproducible data, short answers."""

import filecmp
import json
from datetime import date

import pytest
from agents import Agent, Runner
from agents.tool_context import ToolContext

from helpers.catalogue import BadArgument, Catalogue, airports_for, catalogue_dir, default_catalogue, parse_date
from helpers.catalogue_build import main, write_catalogue
from helpers.searches import (
    SHOWN,
    FlightQuery,
    find_flights,
    find_hotels,
    find_restaurants,
    flight_query,
    flight_results,
    hotel_results,
    restaurant_results,
    search_flights,
    search_hotels,
    search_restaurants,
)
from helpers.state import MemoryState
from tests.scripted_model import ScriptedModel

MONDAY = date(2026, 11, 30)  # the course's pinned "today"


def test_the_committed_catalogue_is_what_the_seeded_generator_writes(tmp_path):
    counts = write_catalogue(tmp_path)
    assert 200 <= sum(counts.values()) <= 1000, counts
    for table in counts:
        assert filecmp.cmp(
            tmp_path / f"{table}.csv", catalogue_dir() / f"{table}.csv", shallow=False
        ), table


def test_the_generator_has_a_command_line(tmp_path, capsys):
    assert main(["--generate", "--out", str(tmp_path)]) == 0
    assert "flights" in capsys.readouterr().out and (tmp_path / "hotels.csv").is_file()


def test_the_catalogue_covers_the_region_and_every_diet():
    catalogue = default_catalogue()
    assert {"Sydney", "Melbourne", "Auckland", "Tokyo", "Singapore", "Lisbon"} <= set(
        catalogue.cities
    )
    diets = {d for r in catalogue.restaurants for d in r["diets"].split(";") if d}
    assert diets == {"vegetarian", "vegan", "gluten-free", "halal", "kosher"}
    assert any(f["aisle_left"] == "0" for f in catalogue.flights), "a full aisle must be reachable"


def test_a_missing_catalogue_says_how_to_make_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="--generate"):
        Catalogue.load(tmp_path)


@pytest.mark.parametrize(
    "place, codes",
    [
        ("SYD", ["SYD"]),
        ("sydney", ["SYD"]),
        ("Tokyo", ["NRT", "HND"]),
        ("Sydney (SYD)", ["SYD"]),
        ("Melbourne airport", ["MEL"]),
    ],
)
def test_places_are_read_as_codes_or_city_names(place, codes):
    assert airports_for(place, default_catalogue()) == codes


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-12-04", date(2026, 12, 4)),
        ("next Friday", date(2026, 12, 4)),
        ("friday", date(2026, 12, 4)),
        ("Monday", date(2026, 12, 7)),
        ("tomorrow", date(2026, 12, 1)),
        ("4 December", date(2026, 12, 4)),
        ("Jan 9", date(2027, 1, 9)),
        ("", date(2026, 12, 1)),
    ],
)
def test_dates_are_read_against_today(text, expected):
    assert parse_date(text, MONDAY) == expected


def test_a_flight_search_keeps_only_flights_that_day_with_the_seat_free_cheapest_first():
    flights = find_flights("Sydney", "Tokyo", "next Friday", "aisle", "economy", today=MONDAY)
    assert flights and all(
        f["origin"] == "SYD" and f["destination"] in ("NRT", "HND") for f in flights
    )
    assert all("5" in f["days"] and int(f["aisle_left"]) > 0 for f in flights)
    prices = [int(f["economy_aud"]) for f in flights]
    assert prices == sorted(prices)
    every = find_flights("Sydney", "Tokyo", "next Friday", "any", "economy", today=MONDAY)
    assert len(every) >= len(flights)


def test_the_flight_answer_is_a_few_short_lines_and_the_same_every_time():
    text = flight_results("SYD", "Tokyo", "next Friday", "aisle seat", "Economy", "", today=MONDAY)
    lines = text.splitlines()
    assert lines[0].startswith(
        f"{len(find_flights('SYD', 'Tokyo', 'friday', 'aisle', today=MONDAY))} flights"
    )
    assert "Fri 2026-12-04" in lines[0] and "aisle" in lines[0]
    assert 2 <= len(lines) <= SHOWN + 2 and all(len(line) < 120 for line in lines)
    assert all("AUD" in line and "aisle seat" in line for line in lines[1 : SHOWN + 1])
    assert text == flight_results(
        "SYD", "Tokyo", "next Friday", "aisle seat", "Economy", "", today=MONDAY
    )


def test_a_flight_search_is_read_once_and_both_layers_take_its_arguments():
    q = flight_query("Sydney", "Tokyo", "next Friday", "Aisle seat", "Economy", "qantas", today=MONDAY)
    assert q == FlightQuery(["SYD"], ["NRT", "HND"], date(2026, 12, 4), "aisle", "economy",
                            "qantas", "qantas")
    by_name = {"origin": "Sydney", "destination": "Tokyo", "when": "next Friday", "seat": "aisle"}
    assert find_flights(**by_name, today=MONDAY) == find_flights("Sydney", "Tokyo", "next Friday", "aisle",
                                                                 today=MONDAY)
    assert flight_results(**by_name, today=MONDAY) == flight_results("Sydney", "Tokyo", "next Friday", "aisle",
                                                                     today=MONDAY)
    with pytest.raises(BadArgument, match="Unknown seat"):
        flight_query("SYD", "Tokyo", seat="standing", today=MONDAY)


def test_an_airline_narrows_the_flights():
    text = flight_results(
        "Melbourne", "Perth", "tomorrow", "any", "economy", "Qantas", today=MONDAY
    )
    assert "on Qantas" in text.splitlines()[0]
    assert all("Qantas" in line for line in text.splitlines()[1:] if line.startswith("-"))


@pytest.mark.parametrize(
    "args, says",
    [
        (
            ("SYD", "Atlantis", "friday", "aisle", "economy", ""),
            "No airport or city matches 'Atlantis'",
        ),
        (("SYD", "MEL", "someday soonish", "aisle", "economy", ""), "Cannot read the date"),
        (
            ("SYD", "MEL", "friday", "standing", "economy", ""),
            "Unknown seat 'standing': use one of aisle, window, any",
        ),
        (("SYD", "MEL", "friday", "aisle", "luxury", ""), "Unknown cabin 'luxury'"),
        (("SYD", "MEL", "friday", "aisle", "economy", "Pan Am"), "Unknown airline 'Pan Am'"),
        (("SYD", "Lisbon", "2026-12-04", "any", "economy", ""), "this route flies on"),
        (
            ("SYD", "MEL", "friday", "any", "first", "Jetstar"),
            "none with that cabin, seat or airline",
        ),
        (("HBA", "Tokyo", "friday", "any", "economy", ""), "no direct route. From HBA:"),
        (
            ("SYD", "Tokyo", "2026-08-29", "aisle", "economy", ""),
            "Sat 2026-08-29 is in the past: today is Mon 2026-11-30",
        ),
    ],
)
def test_no_results_and_bad_arguments_get_one_clear_sentence(args, says):
    text = flight_results(*args, today=MONDAY)
    assert (
        says in text and text.startswith(("No ", "Unknown", "Cannot", "Sat")) and "\n" not in text
    )


def test_plain_functions_raise_on_bad_arguments():
    with pytest.raises(BadArgument, match="Unknown diet 'paleo'"):
        find_restaurants("Tokyo", "paleo")
    with pytest.raises(BadArgument, match="Unknown hotel feature 'spa'"):
        find_hotels("Tokyo", 300, ["spa"])
    with pytest.raises(BadArgument, match="max_price"):
        find_hotels("Tokyo", -5)


def test_hotels_respect_the_budget_and_every_feature_best_rated_first():
    rows = find_hotels("SYD", 250, ["near transport"])
    assert rows and all(int(h["nightly_aud"]) <= 250 and h["near_transport"] == "1" for h in rows)
    assert [float(h["rating"]) for h in rows] == sorted(
        (float(h["rating"]) for h in rows), reverse=True
    )
    assert "under 250 AUD a night with near transport" in hotel_results(
        "Sydney", 250, ["public transport"]
    )
    none = hotel_results("Melbourne", 100, ["gym"])
    assert none.startswith("No hotels in Melbourne under 100 AUD") and "cost" in none


def test_a_hotel_wish_the_catalogue_cannot_check_is_set_aside_and_said():
    text = hotel_results("Tokyo", 250, ["beach", "gym"])
    first, rest = text.split("\n", 1)
    assert "'beach'" in first and "searched without it" in first
    assert rest == hotel_results("Tokyo", 250, ["gym"])  # the search the known wishes make


def test_restaurants_serve_the_diet():
    rows = find_restaurants("Melbourne", "vegetarian")
    assert rows and all("vegetarian" in r["diets"].split(";") for r in rows)
    text = restaurant_results("Melbourne", "Vegetarian food", "")
    assert (
        text.splitlines()[0]
        == f"{len(rows)} restaurants in Melbourne serving vegetarian, best rated first:"
    )
    assert restaurant_results("Tokyo", "halal", "Italian").startswith(
        "No restaurants in Tokyo serving halal"
    )


def test_the_tools_offer_short_schemas_a_small_model_can_fill():
    for tool, params in [
        (search_flights, ["origin", "destination", "date", "seat", "cabin", "airline"]),
        (search_hotels, ["city", "max_price", "features"]),
        (search_restaurants, ["city", "diet", "cuisine"]),
    ]:
        assert list(tool.params_json_schema["properties"]) == params
        assert (
            "memory" in tool.description
        )  # the tool itself says where missing arguments come from


async def test_the_flight_tool_reads_relative_dates_with_the_runs_clock():
    state = MemoryState(pinned_now="2026-11-30T09:00:00Z")
    arguments = {
        "origin": "SYD",
        "destination": "Tokyo",
        "date": "next Friday",
        "seat": "aisle",
        "cabin": "economy",
        "airline": "",
    }
    ctx = ToolContext(
        context=state,
        tool_name="search_flights",
        tool_call_id="c1",
        tool_arguments=json.dumps(arguments),
    )
    out = await search_flights.on_invoke_tool(ctx, json.dumps(arguments))
    assert "Fri 2026-12-04" in out
    state.pinned_now = "2026-12-07T09:00:00Z"
    assert "Fri 2026-12-11" in await search_flights.on_invoke_tool(ctx, json.dumps(arguments))


async def test_an_agent_runs_the_hotel_and_restaurant_tools():
    model = ScriptedModel(
        [
            {
                "tool": "search_hotels",
                "arguments": {"city": "Sydney", "max_price": 250, "features": ["near transport"]},
            },
            {
                "tool": "search_restaurants",
                "arguments": {"city": "Sydney", "diet": "vegan", "cuisine": ""},
            },
            "Done.",
        ]
    )
    agent = Agent(name="t", model=model, tools=[search_hotels, search_restaurants])
    result = await Runner.run(agent, "hotel and dinner in Sydney", context=MemoryState())
    outputs = [str(i.output) for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs == [
        hotel_results("Sydney", 250, ["near transport"]),
        restaurant_results("Sydney", "vegan", ""),
    ]
