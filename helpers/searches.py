"""Stage 0 — the concierge (notebook 00): the catalogue's three searches (flights, hotels, restaurants), in three layers.

Used by every notebook's concierge; memory fills their arguments in `helpers.travel` (notebook 05).
- `find_flights`, `find_hotels`, `find_restaurants`: plain Python, return rows (tests, notebooks);
  a flight search's words are read once, by `flight_query`, into a `FlightQuery`;
- `flight_results`, `hotel_results`, `restaurant_results`: the same search as a few short lines
  a 1.5B model can summarise, with a clear sentence on no results or a bad argument;
- `search_flights`, `search_hotels`, `search_restaurants` (`TRAVEL_TOOLS`): those as Agents SDK
  function tools; their names, descriptions and schemas are the ones `helpers.travel` offers.
Relative dates ("next Friday") are read against the run's clock (`MemoryState.clock`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from agents import RunContextWrapper, function_tool

from helpers.catalogue import (
    CABINS,
    DIETS,
    FEATURES,
    SEATS,
    WEEKDAYS,
    BadArgument,
    Catalogue,
    airports_for,
    city_for,
    default_catalogue,
    fold_name,
    parse_date,
)
from helpers.state import system_clock

SHOWN = 3  # rows per answer: enough to choose from, short enough for a small model to summarise


def _choice(value: str, allowed: tuple[str, ...], what: str, default: str) -> str:
    folded = fold_name(value)
    for word in ("seat", "seats", "class", "cabin", "food", "diet", "only"):
        folded = re.sub(rf"\b{word}\b", "", folded).strip()
    folded = {
        "": default,
        "no preference": default,
        "none": default,
        "premium": "premium economy",
        "gluten free": "gluten-free",
        "coeliac": "gluten-free",
        "veggie": "vegetarian",
        "middle": "any",
    }.get(folded, folded)
    if folded not in allowed:
        raise BadArgument(f"Unknown {what} {value!r}: use one of {', '.join(allowed)}.")
    return folded


def _yes(value: str) -> bool:
    return value == "1"


# ---- flights ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlightQuery:
    """A flight search read against the catalogue: airport codes, the day, and the catalogue's
    names for seat, cabin and airline ("" for any airline)."""

    origins: list[str]
    destinations: list[str]
    day: date
    seat: str
    cabin: str
    airline: str
    airline_said: str = ""  # the airline as the caller wrote it, for the answer's heading


def flight_query(
    origin: str,
    destination: str,
    when: str = "",
    seat: str = "any",
    cabin: str = "economy",
    airline: str = "",
    *,
    today: date,
    catalogue: Catalogue | None = None,
) -> FlightQuery:
    """The words of a flight search as a `FlightQuery`; `find_flights` and `flight_results` take
    these same arguments. Raises BadArgument for an unknown place, date, seat, cabin or airline."""
    catalogue = catalogue or default_catalogue()
    airline_folded = fold_name(airline)
    if airline_folded in ("any", "none", "no preference"):
        airline_folded = ""
    if airline_folded and not any(
        airline_folded in fold_name(f["airline"]) or fold_name(f["flight"][:2]) == airline_folded
        for f in catalogue.flights
    ):
        names = sorted({f["airline"] for f in catalogue.flights})
        raise BadArgument(
            f"Unknown airline {airline!r}: use '' for any, or one of {', '.join(names)}."
        )
    return FlightQuery(
        airports_for(origin, catalogue),
        airports_for(destination, catalogue),
        parse_date(when, today),
        _choice(seat, SEATS, "seat", "any"),
        _choice(cabin, CABINS, "cabin", "economy"),
        airline_folded,
        airline.strip(),
    )


def _price(flight: dict[str, str], cabin: str) -> int | None:
    value = flight[f"{cabin.replace(' ', '_')}_aud"]
    return int(value) if value else None


def find_flights(
    *search: Any, today: date, catalogue: Catalogue | None = None, **named: Any
) -> list[dict[str, str]]:
    """Flights that fly on that date, in that cabin, with that seat free; cheapest first.

    Takes `flight_query`'s arguments: `find_flights("Sydney", "Tokyo", "next Friday", "aisle",
    today=...)`. Raises BadArgument for an unknown place, date, seat, cabin or airline."""
    catalogue = catalogue or default_catalogue()
    q = flight_query(*search, today=today, catalogue=catalogue, **named)
    return _matching_flights(q, catalogue)[0]


def _route(q: FlightQuery, catalogue: Catalogue) -> list[dict[str, str]]:
    """The flights from one of the query's origins to one of its destinations, any day."""
    return [
        f
        for f in catalogue.flights
        if f["origin"] in q.origins and f["destination"] in q.destinations
    ]


def _matching_flights(
    q: FlightQuery, catalogue: Catalogue
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(matches, flights on the route that day that fail only on cabin, seat or airline)."""
    weekday = str(q.day.isoweekday())
    that_day = [f for f in _route(q, catalogue) if weekday in f["days"]]

    def fits(f: dict[str, str]) -> bool:
        return (
            _price(f, q.cabin) is not None
            and (q.seat == "any" or int(f[f"{q.seat}_left"]) > 0)
            and (
                not q.airline
                or q.airline in fold_name(f["airline"])
                or fold_name(f["flight"][:2]) == q.airline
            )
        )

    matches = sorted(
        (f for f in that_day if fits(f)),
        key=lambda f: (_price(f, q.cabin), f["depart"], f["flight"]),
    )
    return matches, [f for f in that_day if not fits(f)]


def _route_label(codes: list[str], catalogue: Catalogue) -> str:
    if len(codes) == 1:
        return codes[0]
    return f"{city_for(codes[0], catalogue)} ({'/'.join(codes)})"


def _flight_line(f: dict[str, str], q: FlightQuery) -> str:
    hours, minutes = divmod(int(f["minutes"]), 60)
    arrive = f["arrive"] + ("+1" if f["next_day"] == "1" else "")
    via = f" via {f['via']}" if f["via"] else ""
    left = int(f[q.seat + "_left"]) if q.seat != "any" else 0
    seats = f", {left} {q.seat} seat{'s' if left > 1 else ''} left" if left else ""
    return (
        f"- {f['flight']} {f['airline']}: {f['origin']} {f['depart']} -> "
        f"{f['destination']} {arrive}"
        f"{via}, {hours}h{minutes:02d}, {_price(f, q.cabin):,} AUD{seats}"
    )


def flight_results(
    *search: Any, today: date, catalogue: Catalogue | None = None, **named: Any
) -> str:
    """The flight search (`flight_query`'s arguments, as `find_flights`) as a few short lines for
    the model, or one sentence saying why none."""
    catalogue = catalogue or default_catalogue()
    try:
        q = flight_query(*search, today=today, catalogue=catalogue, **named)
    except BadArgument as error:
        return str(error)
    day = f"{WEEKDAYS[q.day.weekday()]} {q.day.isoformat()}"
    if q.day < today:
        return f"{day} is in the past: today is {WEEKDAYS[today.weekday()]} {today.isoformat()}."
    matches, others = _matching_flights(q, catalogue)
    what = " ".join(
        filter(
            None,
            [
                q.cabin,
                f"{q.seat} seat" if q.seat != "any" else "",
                f"on {q.airline_said}" if q.airline else "",
            ],
        )
    )
    origins = _route_label(q.origins, catalogue)
    head = f"{origins} -> {_route_label(q.destinations, catalogue)}, {day}, {what}"
    if not matches:
        route = _route(q, catalogue)
        if not route:
            served = sorted(
                {f["destination"] for f in catalogue.flights if f["origin"] in q.origins}
            )
            served_list = ", ".join(served)
            return f"No flights {head}: no direct route. From {'/'.join(q.origins)}: {served_list}."
        if others:
            return (f"No flights {head}: {len(others)} flight(s) that day, "
                    "none with that cabin, seat or airline.")
        days = sorted({int(d) for f in route for d in f["days"]})
        return f"No flights {head}: this route flies on {', '.join(WEEKDAYS[d - 1] for d in days)}."
    shown = matches[:SHOWN]
    lines = [f"{len(matches)} flights {head}, cheapest first:"] + [
        _flight_line(f, q) for f in shown
    ]
    if len(matches) > SHOWN:
        lines.append(f"({len(matches) - SHOWN} more)")
    return "\n".join(lines)


# ---- hotels ----------------------------------------------------------------------------------


def hotel_features(features: list[str] | None, *, set_aside: list[str] | None = None) -> list[str]:
    """The catalogue's names for the wishes; an unknown one raises, or goes to `set_aside` if given."""
    chosen = []
    for feature in features or []:
        folded = fold_name(feature)
        folded = {
            "public transport": "near transport",
            "transport": "near transport",
            "train": "near transport",
            "walking distance of public transport": "near transport",
            "fitness": "gym",
            "swimming pool": "pool",
            "quiet room": "quiet",
        }.get(folded, folded)
        if folded in ("", "any", "none"):
            continue
        if folded not in FEATURES and set_aside is not None:
            set_aside.append(feature)
            continue
        if folded not in FEATURES:
            raise BadArgument(
                f"Unknown hotel feature {feature!r}: use any of {', '.join(FEATURES)}."
            )
        chosen.append(folded)
    return list(dict.fromkeys(chosen))


def find_hotels(city: str, max_price: int = 0, features: list[str] | None = None,
                area: str = "", *, catalogue: Catalogue | None = None) -> list[dict[str, str]]:
    """Hotels in a city at or under max_price AUD a night (0: no limit) with every feature asked
    for, in that area if given; best rated first. BadArgument on an unknown city or feature."""
    catalogue = catalogue or default_catalogue()
    return _matching_hotels(
        city_for(city, catalogue), max_price, hotel_features(features), area, catalogue
    )


def _matching_hotels(
    city: str, max_price: int, features: list[str], area: str, catalogue: Catalogue
) -> list[dict[str, str]]:
    if not isinstance(max_price, int) or max_price < 0:
        raise BadArgument(
            f"max_price must be a whole number of AUD (0 for no limit), got {max_price!r}."
        )
    rows = [
        h
        for h in catalogue.hotels
        if h["city"] == city
        and (not max_price or int(h["nightly_aud"]) <= max_price)
        and all(_yes(h[f.replace("near ", "near_")]) for f in features)
        and (not fold_name(area) or fold_name(area) in fold_name(h["area"]))
    ]
    return sorted(rows, key=lambda h: (-float(h["rating"]), int(h["nightly_aud"]), h["name"]))


def hotel_results(city: str, max_price: int = 0, features: list[str] | None = None,
                  area: str = "", *, catalogue: Catalogue | None = None) -> str:
    catalogue = catalogue or default_catalogue()
    # A wish the catalogue has no column for ("beach") is set aside and said, not an error: a small
    # model told "Unknown feature" invents hotels; given results and the note, it has something true to say.
    unknown: list[str] = []
    try:
        name, wanted = city_for(city, catalogue), hotel_features(features, set_aside=unknown)
        rows = _matching_hotels(name, max_price, wanted, area, catalogue)
    except BadArgument as error:
        return str(error)
    aside = (f"No data on {', '.join(repr(f) for f in unknown)} (known features: {', '.join(FEATURES)}); "
             "searched without it.\n") if unknown else ""
    return aside + _hotel_lines(rows, name, max_price, wanted, area, catalogue)


def _hotel_lines(rows: list[dict[str, str]], name: str, max_price: int, wanted: list[str], area: str,
                 catalogue: Catalogue) -> str:
    head = " ".join(
        filter(
            None,
            [
                f"in {name}",
                f"({area.strip()})" if fold_name(area) else "",
                f"under {max_price} AUD a night" if max_price else "",
                f"with {', '.join(wanted)}" if wanted else "",
            ],
        )
    )
    if not rows:
        prices = [int(h["nightly_aud"]) for h in catalogue.hotels if h["city"] == name]
        return f"No hotels {head}. Hotels there cost {min(prices)}-{max(prices)} AUD a night."
    lines = [f"{len(rows)} hotels {head}, best rated first:"]
    for h in rows[:SHOWN]:
        has = [f for f in FEATURES if _yes(h[f.replace("near ", "near_")])]
        lines.append(
            f"- {h['name']}, {h['area']}, {h['stars']} stars, {h['nightly_aud']} AUD a night, "
            f"rated {h['rating']}" + (f", {', '.join(has)}" if has else "")
        )
    return "\n".join(lines)


# ---- restaurants -----------------------------------------------------------------------------


def find_restaurants(city: str, diet: str = "any", cuisine: str = "", area: str = "", *,
                     catalogue: Catalogue | None = None) -> list[dict[str, str]]:
    """Restaurants in a city that serve the diet ("any" for none), of that cuisine and area if
    given; best rated first. Raises BadArgument on an unknown city or diet."""
    catalogue = catalogue or default_catalogue()
    return _matching_restaurants(
        city_for(city, catalogue),
        _diet(diet),
        cuisine,
        area,
        catalogue,
    )


def _diet(diet: str) -> str:
    return _choice(diet, DIETS + ("any",), "diet", "any")


def _any_cuisine(cuisine: str) -> str:
    """"any" (what small models write for "no cuisine asked") is no filter, like ""."""
    return "" if fold_name(cuisine) in ("any", "all", "none", "no preference") else cuisine


def _matching_restaurants(
    city: str, diet: str, cuisine: str, area: str, catalogue: Catalogue
) -> list[dict[str, str]]:
    cuisine = _any_cuisine(cuisine)
    rows = [
        r
        for r in catalogue.restaurants
        if r["city"] == city
        and (diet == "any" or diet in r["diets"].split(";"))
        and (not fold_name(cuisine) or fold_name(cuisine) in fold_name(r["cuisine"]))
        and (not fold_name(area) or fold_name(area) in fold_name(r["area"]))
    ]
    return sorted(rows, key=lambda r: (-float(r["rating"]), r["name"]))


def restaurant_results(city: str, diet: str = "any", cuisine: str = "", area: str = "", *,
                       catalogue: Catalogue | None = None) -> str:
    catalogue = catalogue or default_catalogue()
    try:
        name, wanted = city_for(city, catalogue), _diet(diet)
        cuisine = _any_cuisine(cuisine)
        rows = _matching_restaurants(name, wanted, cuisine, area, catalogue)
    except BadArgument as error:
        return str(error)
    head = " ".join(
        filter(
            None,
            [
                f"in {name}",
                f"({area.strip()})" if fold_name(area) else "",
                f"serving {wanted}" if wanted != "any" else "",
                f"{cuisine.strip()} cuisine" if fold_name(cuisine) else "",
            ],
        )
    )
    if not rows:
        cuisines = sorted({r["cuisine"] for r in catalogue.restaurants if r["city"] == name})
        return f"No restaurants {head}. Cuisines there: {', '.join(cuisines)}."
    lines = [f"{len(rows)} restaurants {head}, best rated first:"]
    for r in rows[:SHOWN]:
        diets = r["diets"].replace(";", ", ") or "no special diets"
        lines.append(
            f"- {r['name']}, {r['area']}: {r['cuisine']}, mains about {r['main_aud']} AUD, "
            f"rated {r['rating']} ({diets})"
        )
    return "\n".join(lines)


# ---- the SDK tools ---------------------------------------------------------------------------


def today_of(ctx: RunContextWrapper[Any]) -> date:
    clock = getattr(ctx.context, "clock", None) or system_clock
    now = clock()
    return now.date() if isinstance(now, datetime) else system_clock().date()


@function_tool
def search_flights(
    ctx: RunContextWrapper[Any],
    origin: str,
    destination: str,
    date: str,
    seat: str,
    cabin: str,
    airline: str,
) -> str:
    """Search flights. Arguments the user did not say come from memory and the profile.

    Args:
        origin: City to fly from; if the user did not say, the remembered home airport or city.
        destination: City to fly to, e.g. "Tokyo".
        date: The user's words for the day, e.g. "next Friday" or "4 December".
        seat: The remembered seat preference: "aisle" or "window".
        cabin: "economy", "premium economy", "business" or "first"; economy unless remembered.
        airline: The remembered airline, or "" for any.
    """
    return flight_results(origin, destination, date, seat, cabin, airline, today=today_of(ctx))


@function_tool
def search_hotels(city: str, max_price: int, features: list[str]) -> str:
    """Search hotels. Arguments the user did not say come from memory and the profile.

    Args:
        city: City, e.g. "Tokyo".
        max_price: The remembered nightly budget in AUD; 0 only if memory has none.
        features: Remembered wishes among "near transport", "gym", "pool", "quiet"; [] if none.
    """
    return hotel_results(city, max_price, features)


@function_tool
def search_restaurants(city: str, diet: str, cuisine: str) -> str:
    """Search restaurants. Arguments the user did not say come from memory and the profile.

    Args:
        city: City, e.g. "Melbourne"; if the user did not say, where they are or live.
        diet: The remembered diet: "vegetarian", "vegan", "gluten-free", "halal", "kosher";
            "any" if none.
        cuisine: A cuisine the user named in this conversation; "" if they named none.
    """
    return restaurant_results(city, diet, cuisine)


TRAVEL_TOOLS = [search_flights, search_hotels, search_restaurants]


__all__ = [
    "SHOWN",
    "TRAVEL_TOOLS",
    "FlightQuery",
    "find_flights",
    "find_hotels",
    "find_restaurants",
    "flight_query",
    "flight_results",
    "hotel_features",
    "hotel_results",
    "restaurant_results",
    "search_flights",
    "search_hotels",
    "search_restaurants",
    "today_of",
]
