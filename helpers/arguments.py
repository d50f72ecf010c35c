"""Stage 5 — the memory policy (notebook 05): memory fills a search's arguments, in code, by precedence.

A 1.5B model proposes a search well but fills it badly: it forgets the remembered aisle seat,
sends `max_price: 0` with a 250 AUD budget in its prompt, invents airlines and cities. So the
model proposes (`given`) and `fill_arguments` decides each argument: what the user said THIS
TURN stands; an argument the message does not give comes from memory in the policy's order
(`Policy.precedence`: message > session notes > global notes, then the profile; within a list
the newest note wins, `Policy.newest_first`), so reversing the order changes the search; a
value the model proposed that the message does not support and no note supplies is dropped,
and an argument with a neutral value ("any" seat, no budget) is sent with that value.

Values are read structurally: seat, cabin, airline, home, diet and hotel budget by
`helpers.attributes.attributes_of` (consolidation's reader), the profile as "field: value"
lines. A note about someone else, or one silent on an argument, gives no value; a refusal
("not a window seat") is no value, and no lower source may supply the refused one. A note that
holds in some circumstances ("on long-haul flights") applies when the message names them; a
one-off ("this trip only") is a session note and wins for this session.
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple, cast

from helpers.attributes import attributes_of, named_subject, qualifiers
from helpers.catalogue import (
    AIRLINES, CABINS, DIETS, FEATURES, SEATS, WEEKDAYS, BadArgument, airports_for, city_for, default_catalogue, parse_date,
)
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.searches import TRAVEL_TOOLS
from helpers.state import MemoryNote, MemoryState, Scope, recency

MESSAGE = "message"
CATALOGUE_CURRENCY = "AUD"  # the catalogue's prices (helpers.catalogue); its tools take no currency


@dataclass(frozen=True)
class Filled:
    """The arguments to send, where each came from, and a short human text for each."""

    arguments: dict[str, Any]  # the arguments to send
    sources: dict[str, str]  # argument name -> "message", a note id, or "profile.<field>"
    explanations: dict[str, str]  # argument name -> "aisle seat, from your note of 2026-11-02"
    dropped: dict[str, Any] = field(default_factory=dict)  # proposed, and nothing supported it


class Reading(NamedTuple):
    """What one text says about one argument: a value, and the values it refuses."""
    value: Any = None
    refused: frozenset[Any] = frozenset()


NOTHING = Reading()

_NEGATION = (r"(?:not|no|never|avoids?|avoiding|hates?|dislikes?|don'?t|doesn'?t|won'?t|"
             r"rather not|no longer|except)")
_ONE_OFF = {"trip", "trips", "journey", "journeys", "itinerary", "itineraries", "only",
            "this week", "this weekend", "this month", "this year", "tomorrow", "tonight"}


def _refused(text: str, words: dict[str, Any]) -> frozenset[Any]:
    """The values whose word follows a negation within three words: "not a window seat"."""
    return frozenset(value for word, value in words.items() if re.search(
        rf"(?i)\b{_NEGATION}\b(?:\W+\w+){{0,3}}?\W+{re.escape(word)}\b", text))


# "Business class, not an aisle seat" reads as two clauses: one's negation hides no other value.
_CLAUSE = re.compile(r"[,;.!?]+|\s+(?:but|and|or)\s+")


def _names_at(words: list[str], names: dict[str, str]) -> list[tuple[int, str]]:
    """(index, name) of the `names` among words, exact or close (difflib >= 0.8): "Tokio"."""
    found = []
    for i in range(len(words)):
        for n in (3, 2, 1):
            phrase = " ".join(words[i:i + n]).casefold().strip(".")
            near = difflib.get_close_matches(phrase, names, 1, 0.8) if len(phrase) >= 5 else []
            shown = names.get(phrase, "")  # "ANA" only in capitals ("Ana": a person)
            exact = bool(shown) and (not shown.isupper() or shown in words[i:i + n])
            if exact or near:
                found.append((i, shown if exact else names[near[0]]))
                break
    return found


_WORD = re.compile(r"[\w'.-]+")


def _attribute_reader(attribute: str, words: dict[str, Any], convert: Callable[[str], Any] = str,
                      names: dict[str, str] | None = None) -> Callable[[str], Reading]:
    """One attributes_of attribute, clause by clause (two values: none), else a close `names`."""
    def read(text: str) -> Reading:
        if named_subject(text):
            return NOTHING  # "Tom prefers window seats": someone else's
        refused = _refused(text, words)
        found = {convert(v) for c in _CLAUSE.split(text) if (v := attributes_of(c).get(attribute))}
        if not found and names:
            found = {n for _, n in _names_at(_WORD.findall(text), names)}
        value = found.pop() if len(found) == 1 else None
        return Reading(None if value in refused else value, refused)
    return read


_AIRLINES = {name.casefold(): name for name, *_ in AIRLINES.values()}
_DIETS = {"vegetarian": "vegetarian", "vegan": "vegan", "halal": "halal", "kosher": "kosher",
          "gluten": "gluten-free", "coeliac": "gluten-free", "celiac": "gluten-free"}
_FEATURES = {"transport": "near transport", "train": "near transport", "metro": "near transport",
             "station": "near transport", "gym": "gym", "fitness": "gym", "pool": "pool",
             "swimming": "pool", "quiet": "quiet"}
# A currency code next to a number: a budget in another currency than the catalogue's is none.
_CURRENCY = re.compile(r"\d\s*([A-Z]{3})\b|\b([A-Z]{3})\s*\d")

read_seat = _attribute_reader("seat", {"aisle": "aisle", "window": "window"})
read_cabin = _attribute_reader("cabin", {"premium economy": "premium economy", "economy": "economy",
                                         "business": "business", "first class": "first"})
read_airline = _attribute_reader("airline", _AIRLINES, lambda v: _AIRLINES[v], _AIRLINES)
_read_amount = _attribute_reader("hotel_budget", {}, lambda v: int(float(v)))


def read_budget(text: str) -> Reading:
    """A nightly hotel budget in the catalogue's currency (or in none named)."""
    codes = {c for m in _CURRENCY.finditer(text) for c in m.groups() if c}
    return NOTHING if codes - {CATALOGUE_CURRENCY} else _read_amount(text)


def read_diet(text: str) -> Reading:
    """A diet the catalogue checks: attributes_of's ("eats meat" -> "any"), gluten-free, halal."""
    refused = _refused(text, _DIETS)
    diet = attributes_of(text).get("diet") or ""
    value = {"eats meat": "any", "vegetarian": "vegetarian", "vegan": "vegan"}.get(diet)
    if value is None and (other := re.search(r"(?i)\b(gluten|coeliac|celiac|halal|kosher)", text)):
        value = _DIETS[other.group(1).lower()]
    return Reading(None if value in refused else value, refused)


def read_cuisine(text: str) -> Reading:
    """A cuisine the catalogue lists, named in the text ("Japanese food", "a steakhouse"); a
    diet's name ("vegetarian") is the diet's, not a cuisine."""
    cuisines = {r["cuisine"] for r in default_catalogue().restaurants} - {d.title() for d in DIETS}
    found = [c for c in sorted(cuisines, key=len, reverse=True) if re.search(rf"(?i)\b{re.escape(c)}\b", text)]
    return Reading(found[0]) if found else NOTHING


def read_features(text: str) -> Reading:
    """Hotel wishes among the catalogue's features ("walking distance of public transport")."""
    if not re.search(r"(?i)\b(?:hotels?|rooms?|stay|accommodation)\b", text):
        return NOTHING
    refused = _refused(text, _FEATURES)
    found = {v for w, v in _FEATURES.items() if re.search(rf"(?i)\b{w}\b", text)} - refused
    return Reading([f for f in FEATURES if f in found] or None, refused)


def _home(text: str, as_city: bool = False) -> Reading:
    """The home airport a text states ("Lives in Sydney" -> SYD); with `as_city`, the city."""
    place = (stated := attributes_of(text)).get("home_airport") or stated.get("home_city")
    if not place:
        return NOTHING
    try:
        codes = airports_for(place, default_catalogue())
    except BadArgument:
        return Reading(place.title())
    city = city_for(codes[0], default_catalogue())
    return Reading(city if as_city or len(codes) > 1 else codes[0])


_STOP = {"to", "on", "in", "for", "next", "this", "at", "with", "and", "or", "via", "by", "the"}
_A_DAY = date(2026, 1, 1)
_DATE = re.compile(
    r"(?i)\b(?:today|tomorrow|(?:next\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]{3,9}|"
    r"[a-z]{3,9}\s+\d{1,2}(?:st|nd|rd|th)?)\b")


def place_mentions(message: str) -> list[str]:
    """The catalogue's cities a message names, in order: by name (or a close spelling) or code."""
    catalogue = default_catalogue()
    codes = {a["code"]: a["city"] for a in catalogue.airports}
    words = _WORD.findall(message)
    found = [(i, codes[w]) for i, w in enumerate(words) if w in codes]
    found += _names_at(words, {c.casefold(): c for c in catalogue.cities})
    return list(dict.fromkeys(city for _, city in sorted(found)))


# A capitalised name after "to", "in", "at" or "around": a place the catalogue may not have ("to New York").
_NAMED_PLACE = re.compile(r"\b(?:to|in|at|around)\s+([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})")
_NOT_PLACES = {"i", "me", "my", "the", "a", "an", "any", "some"}


def named_place(message: str, besides: Any = None) -> str | None:
    """A place the message names that the catalogue lacks: "fly to New York" -> "New York" (not a
    month or weekday, nor `besides`). Its search is then explained, not replaced by memory."""
    for match in _NAMED_PLACE.finditer(message):
        name = match.group(1).strip(".,!?'")
        first = name.split()[0].casefold()
        if first in _NOT_PLACES or first[:3] in _MONTH_AND_DAY_STEMS or name == besides:
            continue
        return name
    return None


_MONTH_AND_DAY_STEMS = {*"jan feb mar apr may jun jul aug sep oct nov dec".split(),
                        *(d.casefold() for d in WEEKDAYS), "tod", "tom", "ton"}


def _is_date(text: str) -> bool:  # any day serves to ask whether a text reads as a date
    with contextlib.suppress(BadArgument):
        return bool(parse_date(text, _A_DAY))
    return False


def date_in(message: str) -> str | None:
    """The first phrase of the message that reads as a date: "on 11 December" -> "11 December"."""
    return next((m.group(0) for m in _DATE.finditer(message) if _is_date(m.group(0))), None)


def read_origin(message: str) -> Reading:
    """Where the message says the user flies from: "from Melbourne", "from SYD", "from Paris"."""
    match = re.search(r"(?i)\bfrom\s+((?:[\w'.-]+\s*){1,3})", message)
    if not match:  # "SYD to NRT", "sydney to wellington": a place's whole name just before "to"
        before = re.search(r"(?:([\w'.-]+)\s+)?([\w'.-]+)\s+to\s", message)
        tails = [" ".join(w for w in before.groups() if w), before.group(2)] if before else []
        whole = [p for t in tails for p in place_mentions(t)
                 if t.isupper() or difflib.get_close_matches(t.lower(), [p.lower()], 1, 0.8)]
        return Reading(whole[0]) if whole else NOTHING
    words = match.group(1).split()
    kept = itertools.takewhile(lambda w: w.casefold() not in _STOP, words)
    said = " ".join(w.strip(".,!?") for w in kept)
    if not said or said.casefold() in ("now", "here", "home") or _is_date(said):
        return NOTHING
    places = place_mentions(said)
    return Reading(places[0]) if places else Reading(said) if said[0].isupper() else NOTHING


def _fold(value: Any) -> str:
    return " ".join(str(value).replace("-", " ").split()).casefold()


def mentions(message: str, value: Any) -> bool:
    """Every word of the value is in the message, exactly or by a close spelling ("Quantas")."""
    words = re.findall(r"[a-z0-9]+", _fold(message))
    wanted = re.findall(r"[a-z0-9]+", _fold(value))
    return bool(wanted) and all(
        w in words or (len(w) >= 4 and difflib.get_close_matches(w, words, 1, 0.8)) for w in wanted)


_UNSET = object()  # no neutral value: an argument nothing supports is left out
MessageReader = Callable[[str, Any], Reading]


def _proposed(value: Any) -> bool:
    """The model proposed a value (not a blank, "any", 0 or [] that asks for nothing)."""
    return value not in (None, []) and _fold(value) not in {"", "any", "none", "no preference", "0"}


def _stated_or_proposed(read: Callable[[str], Reading], noun: str = "", neutral: Any = None,
                        allowed: tuple[str, ...] | None = None) -> MessageReader:
    """The message's reading ("any airline": the neutral value); else the model's value when the
    message names it ("Air France") and, for a closed list (`allowed`), is one of its values (a
    "first" class is no seat)."""
    def from_message(message: str, given: Any) -> Reading:
        if noun and re.search(rf"(?i)\b(?:any|whichever|whatever)\s+(?:{noun})\b", message):
            return Reading(neutral)
        reading = read(message)
        if (reading.value is None and _proposed(given) and given not in reading.refused
                and (allowed is None or _fold(given) in allowed) and mentions(message, given)):
            return Reading(given, reading.refused)
        return reading
    return from_message


def _place(exclude_origin: bool) -> MessageReader:
    """A place the message names: the model's choice among them, else the first one (not the
    "from" place of a flight); a place the catalogue lacks stands if the message names it."""
    def from_message(message: str, given: Any) -> Reading:
        places = place_mentions(message)
        if exclude_origin:
            places = [p for p in places if p != read_origin(message).value]
        if _proposed(given):
            try:
                city: str | None = city_for(str(given), default_catalogue())
            except BadArgument:
                city = None
            folded = {p.casefold(): p for p in places}
            near = difflib.get_close_matches(_fold(given), folded, 1, 0.8)
            if city in places or near:
                return Reading(city if city in places else folded[near[0]])
            if city is None and mentions(message, given):
                return Reading(given)
        if places:
            return Reading(places[0])
        named = named_place(message, besides=read_origin(message).value if exclude_origin else None)
        return Reading(named) if named else NOTHING
    return from_message


def _date(message: str, given: Any) -> Reading:
    """The message's day; the model's words for it when they name the same day ("Dec 11")."""
    said = date_in(message)
    same = said and _proposed(given) and _is_date(str(given)) and (
        parse_date(str(given), _A_DAY) == parse_date(said, _A_DAY))
    return NOTHING if said is None else Reading(given if same else said)


_words = _stated_or_proposed(lambda text: NOTHING)  # free text: the model's, if the message says it


class Slot(NamedTuple):
    """An argument's readers (memory None: the message only), text, and value when none given."""

    from_message: MessageReader
    from_memory: Callable[[str], Reading] | None
    label: Callable[[Any], str]
    neutral: Any = _UNSET


def _slots(tool_name: str, parameters: list[str]) -> dict[str, Slot]:
    """The searches' arguments (helpers.searches' tools); any other argument is free text."""
    table = {
        "search_flights": {
            "origin": Slot(lambda m, g: read_origin(m), _home, lambda v: f"from {v}"),
            "destination": Slot(_place(exclude_origin=True), None, lambda v: f"to {v}"),
            "date": Slot(_date, None, str, ""),
            "seat": Slot(_stated_or_proposed(read_seat, "seat", "any", SEATS), read_seat,
                         lambda v: f"{v} seat", "any"),
            "cabin": Slot(_stated_or_proposed(read_cabin, "cabin|class", "economy", CABINS), read_cabin,
                          lambda v: f"{v} cabin", "economy"),
            "airline": Slot(_stated_or_proposed(read_airline, "airline|carrier", ""), read_airline,
                            lambda v: v or "any airline", ""),
        },
        "search_hotels": {
            "city": Slot(_place(exclude_origin=False), None, lambda v: f"in {v}"),
            "max_price": Slot(_stated_or_proposed(read_budget), read_budget,
                              lambda v: f"under {v} {CATALOGUE_CURRENCY} a night", 0),
            "features": Slot(lambda m, g: read_features(m), read_features, ", ".join, []),
        },
        "search_restaurants": {
            "city": Slot(_place(exclude_origin=False), lambda t: _home(t, as_city=True),
                         lambda v: f"in {v}"),
            "diet": Slot(_stated_or_proposed(read_diet), read_diet, lambda v: f"{v} diet", "any"),
            "cuisine": Slot(_stated_or_proposed(read_cuisine), None, lambda v: f"{v} cuisine", ""),
        },
    }.get(tool_name, {})
    return {name: table.get(name, Slot(_words, None, str)) for name in parameters}


def tool_parameters(tool_name: str) -> list[str]:
    """The argument names of one of the catalogue's search tools, from its JSON schema."""
    schemas = {t.name: t.params_json_schema for t in TRAVEL_TOOLS}
    if tool_name not in schemas:
        raise ValueError(f"unknown search tool {tool_name!r}; expected one of {list(schemas)}")
    return list(schemas[tool_name].get("properties", {}))


class Source(NamedTuple):
    id: str  # "message", a note id or "profile.<field>"
    text: str
    where: str  # what a person is told: "as you asked", "from your note of 2026-11-02"


def _applies(note: MemoryNote, message: str) -> bool:
    """Its circumstances ("on long-haul flights") are in the message; "this trip" is now."""
    said = set(re.findall(r"[a-z0-9]+", _fold(message)))
    return all(set(re.findall(r"[a-z0-9]+", _fold(q))) - _STOP <= said
               for q in qualifiers(note.text) - _ONE_OFF)


def sources(message: str, state: MemoryState, policy: Policy = DEFAULT_POLICY) -> Iterator[Source]:
    """Every source, highest precedence first: the policy's order of message, session and global
    (the global notes, then the profile's fields); within a list of notes, newest first."""
    clock = state.clock
    for tier in policy.precedence:
        if tier == MESSAGE:
            yield Source(MESSAGE, message, "as you asked")
            continue
        notes = [n for n in state.live_notes(clock, cast(Scope, tier)) if _applies(n, message)]
        notes.sort(key=lambda n: recency(n, clock), reverse=policy.newest_first)
        whose = "this session's note" if tier == "session" else "your note"
        yield from (Source(n.id, n.text, f"from {whose} of {n.observed_at[:10]}") for n in notes)
        if tier == "global":
            yield from (Source(f"profile.{k}", f"{k.replace('_', ' ')}: {v}", "from your profile")
                        for k, v in state.profile.items()
                        if isinstance(v, (str, int, float)) and not isinstance(v, bool))


def _decide(slot: Slot, given: Any, message: str, ordered: list[Source]) -> tuple[Any, Any]:
    """The first value down the sources that no higher source refused."""
    refused: set[Any] = set()
    for source in ordered:
        read = slot.from_memory if source.id != MESSAGE else lambda t: slot.from_message(t, given)
        if read is None:
            continue
        reading = read(source.text)
        if isinstance(value := reading.value, list):
            value = [v for v in value if v not in refused] or None
        elif value in refused:
            value = None
        if value is not None:
            return value, source
        refused |= reading.refused
    return None, None


def fill_arguments(tool_name: str, given: dict[str, Any], message: str, state: MemoryState,
                   policy: Policy | None = None) -> Filled:
    """The arguments of one search: the message's, else memory's by `policy`'s precedence, else
    the neutral value; a value the model proposed that nothing supports is dropped."""
    parameters = tool_parameters(tool_name)
    ordered = list(sources(message, state, policy or DEFAULT_POLICY))
    arguments: dict[str, Any] = {}
    where, explanations = dict[str, str](), dict[str, str]()
    dropped = {k: v for k, v in given.items() if k not in parameters}
    for name, slot in _slots(tool_name, parameters).items():
        value, source = _decide(slot, proposed := given.get(name), message, ordered)
        if source is not None:
            arguments[name], where[name] = value, source.id
            explanations[name] = f"{slot.label(value)}, {source.where}"
            continue
        if _proposed(proposed) and proposed != slot.neutral:
            dropped[name] = proposed
        if slot.neutral is not _UNSET:
            arguments[name] = slot.neutral
    return Filled(arguments, where, explanations, dropped)


__all__ = ["Filled", "Reading", "Slot", "Source", "date_in", "fill_arguments", "mentions",
           "place_mentions", "read_origin", "sources", "tool_parameters"]
