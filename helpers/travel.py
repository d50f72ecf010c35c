"""Stage 5 — the memory policy (notebook 05): the concierge's searches, arguments filled from notes, structured results.

Taught in notebook 05 (memory fills the action) and used by every notebook's concierge. Each search
tool here wraps a catalogue search (`helpers.searches`) in three steps of plain code:
1. fill: the arguments the model gave, completed from memory by a filler (`helpers.arguments.
   fill_arguments` by default: the precedence policy decides between the message and the notes);
2. search, and when a place or an airline is unknown, repair it ONCE to the catalogue's nearest
   name if it is close (`difflib`, cutoff `CLOSE_NAME`), else explain it in one plain sentence;
3. return a `SearchOutcome`: the rows, what was searched, where each value came from, what the
   catalogue could not check. `helpers.answers` composes the answer from it, in code.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from agents import FunctionTool, RunContextWrapper

from helpers.arguments import fill_arguments
from helpers.catalogue import FEATURES, BadArgument, Catalogue, airports_for, default_catalogue, parse_date
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.searches import (
    TRAVEL_TOOLS,
    find_flights,
    find_hotels,
    find_restaurants,
    flight_results,
    hotel_features,
    hotel_results,
    restaurant_results,
    today_of,
)
from helpers.state import MemoryState
from helpers.tools import latest_user_message

# difflib's ratio above which an unknown place or airline is taken for the catalogue's nearest
# name: "OSAK" -> Osaka, "Sydny" -> Sydney, "Quantas" -> Qantas, but never "Air China" -> Air India.
CLOSE_NAME = 0.8
PLACE_ARGUMENTS = {"search_flights": ("origin", "destination"), "search_hotels": ("city",),
                   "search_restaurants": ("city",)}


class Filled(Protocol):
    """What a filler returns (see `helpers.arguments.fill_arguments`)."""

    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def sources(self) -> dict[str, str]: ...
    @property
    def explanations(self) -> dict[str, str]: ...


Filler = Callable[[str, dict[str, Any], str, MemoryState, Policy | None], Filled]


@dataclass(frozen=True)
class _AsGiven:
    arguments: dict[str, Any]
    sources: dict[str, str]
    explanations: dict[str, str]


def as_given(tool_name: str, given: dict[str, Any], message: str, state: MemoryState,
             policy: Policy | None = None) -> Filled:
    """The filler that fills nothing: every argument is the model's."""
    return _AsGiven(dict(given), {name: "model" for name in given}, {})


@dataclass(frozen=True)
class SearchOutcome:
    """One search as data: what went out, what came back, and why nothing did."""

    tool: str
    arguments: dict[str, Any]  # what was searched, after filling and repair
    rows: tuple[dict[str, str], ...] = ()  # best first
    text: str = ""  # the catalogue's own lines: what a model reads as the tool's result
    sources: dict[str, str] = field(default_factory=dict)  # argument -> "message", "model" or a note id
    explanations: dict[str, str] = field(default_factory=dict)  # argument -> "aisle seat, from your note of ..."
    repairs: dict[str, tuple[str, str]] = field(default_factory=dict)  # argument -> (asked, searched)
    problem: str | None = None  # one plain sentence when the search could not run
    unchecked: tuple[str, ...] = ()  # wishes the catalogue has no data for
    dropped: dict[str, Any] = field(default_factory=dict)  # proposed values nothing supported, not sent
    missing: str | None = None  # the place argument nothing gave (the search did not run for it)

    def __str__(self) -> str:
        return self.problem or self.text


# ---- one search, as rows and text -------------------------------------------------------------

def _flights(a: dict[str, Any], today: date, catalogue: Catalogue) -> tuple[list[dict[str, str]], str, list[str]]:
    args = (a.get("origin", ""), a.get("destination", ""), a.get("date", ""), a.get("seat", "any") or "any",
            a.get("cabin", "economy") or "economy", a.get("airline", ""))
    rows = find_flights(*args, today=today, catalogue=catalogue)
    if parse_date(args[2], today) < today:
        rows = []
    return rows, flight_results(*args, today=today, catalogue=catalogue), []


def _hotels(a: dict[str, Any], today: date, catalogue: Catalogue) -> tuple[list[dict[str, str]], str, list[str]]:
    unknown: list[str] = []
    known = hotel_features(a.get("features") or [], set_aside=unknown)
    price = a.get("max_price", 0) or 0
    rows = find_hotels(a.get("city", ""), price, known, catalogue=catalogue)
    return rows, hotel_results(a.get("city", ""), price, a.get("features") or [], catalogue=catalogue), unknown


def _restaurants(a: dict[str, Any], today: date, catalogue: Catalogue) -> tuple[list[dict[str, str]], str, list[str]]:
    args = (a.get("city", ""), a.get("diet", "any") or "any", a.get("cuisine", ""))
    rows = find_restaurants(*args, catalogue=catalogue)
    return rows, restaurant_results(*args, catalogue=catalogue), []


SEARCHES: dict[str, Callable[[dict[str, Any], date, Catalogue], tuple[list[dict[str, str]], str, list[str]]]] = {
    "search_flights": _flights, "search_hotels": _hotels, "search_restaurants": _restaurants,
}


# ---- repair and explanation -------------------------------------------------------------------

def _airlines(catalogue: Catalogue) -> dict[str, str]:
    """Folded airline names and two-letter codes -> the airline's name."""
    names = {f["airline"].casefold(): f["airline"] for f in catalogue.flights}
    names.update({f["flight"][:2].casefold(): f["airline"] for f in catalogue.flights})
    return names


def _places(catalogue: Catalogue) -> dict[str, str]:
    """Folded city names and airport codes -> the city's name."""
    places = {a["city"].casefold(): a["city"] for a in catalogue.airports}
    places.update({a["code"].casefold(): a["city"] for a in catalogue.airports})
    return places


def closest(value: str, names: dict[str, str], cutoff: float = CLOSE_NAME) -> str | None:
    """The catalogue's name closest to `value` (difflib ratio >= cutoff), or None."""
    found = difflib.get_close_matches(" ".join(str(value).split()).casefold(), list(names), n=1, cutoff=cutoff)
    return names[found[0]] if found else None


def unknown_argument(tool: str, arguments: dict[str, Any], catalogue: Catalogue) -> tuple[str, str] | None:
    """The first place or airline argument the catalogue does not know: (name, value)."""
    for name in PLACE_ARGUMENTS.get(tool, ()):
        value = str(arguments.get(name) or "")
        try:
            airports_for(value, catalogue)
        except BadArgument:
            return name, value
    airline = str(arguments.get("airline") or "").strip()
    if tool == "search_flights" and airline.casefold() not in ("", "any", "none", "no preference"):
        folded = airline.casefold()
        if not any(folded in name for name in _airlines(catalogue)):
            return "airline", airline
    return None


def explain(name: str, value: str, catalogue: Catalogue) -> str:
    """One plain sentence for an argument the catalogue cannot search."""
    if name == "airline":
        airlines = sorted({f["airline"] for f in catalogue.flights})
        return (f"The catalogue has no flights by {value}, so I did not search; "
                f"its airlines are {', '.join(airlines)}.")
    if not value.strip():
        return f"I need {'an' if name[0] in 'aeiou' else 'a'} {name} to search; none was given or remembered."
    return (f"The catalogue has no place called {value}, so I did not search; it covers "
            f"{len(catalogue.cities)} cities, such as {', '.join(catalogue.cities[:6])}.")


def run_search(tool: str, arguments: dict[str, Any], *, today: date, catalogue: Catalogue | None = None,
               sources: dict[str, str] | None = None, explanations: dict[str, str] | None = None,
               dropped: dict[str, Any] | None = None, wishes: list[str] | None = None) -> SearchOutcome:
    """Search with `arguments`; an unknown place or airline is repaired once, or explained.

    `wishes`: hotel features asked for (by the message or the model) that the filler may have left
    out; those the catalogue has no data for are reported as unchecked.
    """
    catalogue = catalogue or default_catalogue()
    arguments, repairs = dict(arguments), {}
    meta: dict[str, Any] = {"sources": dict(sources or {}), "explanations": dict(explanations or {}),
                            "dropped": dict(dropped or {})}
    if (bad := unknown_argument(tool, arguments, catalogue)) is not None:
        name, value = bad
        fixed = closest(value, _airlines(catalogue) if name == "airline" else _places(catalogue)) if value else None
        if fixed is None:
            return SearchOutcome(tool, arguments, problem=explain(name, value, catalogue),
                                 missing=None if value.strip() else name, **meta)
        arguments[name], repairs[name] = fixed, (value, fixed)
        if (again := unknown_argument(tool, arguments, catalogue)) is not None:  # repaired once only
            return SearchOutcome(tool, arguments, repairs=repairs, problem=explain(*again, catalogue), **meta)
    try:
        rows, text, unchecked = SEARCHES[tool](arguments, today, catalogue)
    except BadArgument as error:
        return SearchOutcome(tool, arguments, repairs=repairs, problem=plain_reason(str(error)), **meta)
    if tool == "search_hotels" and wishes:
        hotel_features(wishes, set_aside=unchecked)
    unchecked = list(dict.fromkeys(unchecked))
    return SearchOutcome(tool, arguments, tuple(rows), text, repairs=repairs, unchecked=tuple(unchecked), **meta)


def plain_reason(message: str) -> str:
    """A catalogue refusal as one plain sentence for the user (no advice meant for a model)."""
    reason = message.split(":")[0].rstrip(".")
    return f"I could not run that search: {reason[:1].lower() + reason[1:]}."


# ---- as SDK tools -----------------------------------------------------------------------------

def memory_search_tools(filler: Filler | None = None, policy: Policy = DEFAULT_POLICY,
                        catalogue: Catalogue | None = None) -> list[FunctionTool]:
    """The catalogue's three searches as SDK tools whose arguments memory completes, in code.

    Same names, descriptions and schemas as `helpers.searches.TRAVEL_TOOLS`; each returns a
    `SearchOutcome` (its text is what a model reads). `filler` defaults to `fill_arguments`.
    """
    fill = filler or fill_arguments

    def tool_for(base: FunctionTool) -> FunctionTool:
        async def invoke(ctx: RunContextWrapper[Any], raw: str) -> SearchOutcome:
            given = json.loads(raw or "{}")
            state = ctx.context
            message = latest_user_message(getattr(ctx, "turn_input", []) or [])
            filled = fill(base.name, given, message, state, policy) if isinstance(state, MemoryState) else \
                as_given(base.name, given, message, state)
            wishes = given.get("features") if isinstance(given.get("features"), list) else None
            return run_search(base.name, filled.arguments, today=today_of(ctx), catalogue=catalogue,
                              sources=filled.sources, explanations=filled.explanations,
                              dropped=getattr(filled, "dropped", None), wishes=wishes)

        return FunctionTool(name=base.name, description=base.description,
                            params_json_schema=base.params_json_schema, on_invoke_tool=invoke,
                            strict_json_schema=base.strict_json_schema)

    return [tool_for(t) for t in TRAVEL_TOOLS]


SEARCH_TOOLS = frozenset(t.name for t in TRAVEL_TOOLS)

__all__ = ["CLOSE_NAME", "FEATURES", "Filled", "Filler", "SEARCHES", "SEARCH_TOOLS", "SearchOutcome", "as_given",
           "closest", "explain", "memory_search_tools", "plain_reason", "run_search",
           "unknown_argument"]
