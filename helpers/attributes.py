"""Stage 7 — consolidation (notebook 07): a note that changes a one-value attribute supersedes the old one.

A small model reading "Lives in Sydney" and "Moved to Melbourne" often answers "keep" for both,
and both stay in memory as if both were true. Some facts have one value at a time: home city,
home airport, diet, seat, cabin, airline, nightly hotel budget. `attributes_of` reads them from a
note's text with a few rules ("Lives in X", "Moved to X", "based in X" -> home_city; "vegetarian",
"eats meat" -> diet; "aisle", "window" -> seat ...). `propose_changes` pairs each new note with
the older live notes that give the same attribute another value.

`confirm_attribute_changes` runs in the rules-only merge (`consolidation.rules_only_merge`, which
is also every fallback) and after the consolidator's plan was applied: for every proposed pair
nothing else resolved, the rules confirm it, and consolidation's own recency rule decides
which note wins (the older one is marked superseded, never deleted; a same-day pair goes to the
user). A pair is only confirmed when both notes hold in the same circumstances (no "on night
flights" on one side only) and the older note says nothing else the newer one would hide
("Lives in Brisbane with two cats"); otherwise the user is asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from helpers.catalogue import AIRLINES, BadArgument, airports_for, default_catalogue
from helpers.consolidation_report import Conflict, MergeDecision, resolve_conflict
from helpers.state import Clock, MemoryNote, parse_time
from helpers.text import NEGATIONS, STOPWORDS, stem, topic_words

CITY = r"([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})"  # one to three capitalised words
# Between "moved" and "to": only words that say how the user moved ("moved back to", "relocated
# from Hobart to"), never an object: "Moved the meeting to Brisbane", "Moved my mother to Adelaide"
# say nothing of the user's home.
_HOW_MOVED = (r"(?:\s+(?i:back|just|recently|finally|permanently|house|home|over|out|here|"
              r"from\s+(?-i:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,2})|last\s+(?:week|month|year)))*")
_HOME_CITY = [
    re.compile(
        r"(?i:\b(?:moved|moving|moves|relocated|relocating|relocates)\b)" + _HOW_MOVED + r"\s+(?i:to)\s+"
        + CITY
    ),
    re.compile(
        r"(?i:\b(?:lives|living|based|resides|residing|settled)\s+(?:now\s+)?(?:in|at|out\s+of))\s+" + CITY
    ),
    re.compile(r"(?i:\bhome(?:\s+(?:city|town|base))?\s*(?:is|:)\s+(?:now\s+)?(?:in\s+)?)" + CITY),
    re.compile(CITY + r"(?i:\s+is\s+(?:now\s+)?(?:my|his|her|their|the\s+user's)\s+home)"),
    re.compile(r"(?i:\bcalls\s+)" + CITY + r"(?i:\s+home)"),
    # What the embedded model wrote for the move_city eval: "Prefers Melbourne as home city".
    re.compile(r"(?:(?i:prefers|wants|keeps|has)\s+)?" + CITY
               + r"(?i:\s+as\s+(?:(?:my|their|the)\s+)?home(?:\s+(?:city|town|base))?\b)"),
]
_HOME_AIRPORT = re.compile(
    r"(?i:\bhome\s+airport\s*(?:is\s+|:\s*)?(?:now\s+)?)([A-Z]{3}\b|" + CITY[1:-1] + ")"
)
# Words before a match that make it a past or denied fact: "used to live in", "no longer based in".
_NOT_NOW = re.compile(
    r"(?i)\b(?:used to|formerly|previously|no longer|not|never|was)\s+(?:\w+\s+)?$"
)

_DIETS = [  # first match wins: "no longer vegetarian" is checked before "vegetarian"
    # "No longer pescatarian" says what the diet is not, not what it is: no value.
    ("", r"\b(?:no longer|not|stopped being|gave up being)\s+(?:a\s+)?pesc[ae]tarian\b"),
    (
        "eats meat",
        r"\b(?:no longer|not|stopped being|gave up being)\s+(?:a\s+)?(?:vegetarian|vegan)\b"
        r"|\b(?:eats|eating|loves|likes|enjoys)\s+(?:meat|steak|beef|chicken|pork|lamb)\b"
        r"|\bmeat[- ]eater\b",
    ),
    ("vegan", r"\bvegan\b"),
    ("vegetarian", r"\bvegetarian\b|\bveggie\b"),
    ("pescatarian", r"\bpesc[ae]tarian\b"),
]
_RELATIONS = (
    r"(?:wife|husband|partner|spouse|fianc[eé]e?|girlfriend|boyfriend|friends?|sons?|daughters?|"
    r"kids?|children|child|colleagues?|co-?workers?|boss|manager|assistant|guests?|mother|father|"
    r"mum|mom|dad|parents?|sisters?|brothers?|siblings?|grand(?:mother|father|ma|pa|parents?)|"
    r"aunt|uncle|cousins?|niece|nephew|in-laws|family|flatmates?|roommates?|housemates?|"
    r"neighbou?rs?)"
)
# A relation word anywhere in a note ("with my sister", "for the kids"): someone else is involved.
SOMEONE_ELSE = re.compile(r"(?i)\b" + _RELATIONS + r"\b")
# A note whose subject is someone else ("Sister lives in Perth", "Maya's partner prefers window
# seats") states none of the user's attributes: it must never retire the user's own note.
_ABOUT_SOMEONE_ELSE = re.compile(
    r"(?i)^\W*(?:(?:my|his|her|their|the\s+user['’]s|[\w-]+['’]s)\s+)?" + _RELATIONS + r"\b"
)
_SEATS = [("aisle", r"\baisle\b"), ("window", r"\bwindow\b")]
_CABINS = [
    ("premium economy", r"\bpremium economy\b"),
    ("business", r"\bbusiness\s+(?:class|cabin)\b"),
    ("first", r"\bfirst\s+class\b"),
    ("economy", r"(?<!premium )\beconomy\b"),
]
# The catalogue's airlines: a note can only prefer an airline the concierge can search.
_AIRLINES = [name for name, *_ in AIRLINES.values()]
_AIRLINE = re.compile(r"\b(" + "|".join(re.escape(a) for a in _AIRLINES) + r")\b")
_AVOIDS = re.compile(r"(?i)\b(?:avoids?|never|not|doesn't|don't|won't|dislikes?|hates?|no longer|rather not)\b")
_BUDGET = re.compile(
    r"(?i)\b(?:budget|under|below|max(?:imum)?|at most|up to|less than)\D{0,20}?(\d(?:[\d,.]*\d)?)"
    # "under 2 km from the venue", "up to 3 nights", "at most 4 stars": not money
    r"(?!\s*(?:km|kilomet(?:er|re)s?|mi|miles?|m|met(?:er|re)s?|min(?:ute)?s?|h|hrs?|hours?|stars?|"
    r"nights?|days?|people|guests|persons?|rooms?|floors?|blocks?|stops?|kg|%)\b)"
)
_HOTEL = re.compile(r"(?i)\b(?:hotels?|rooms?|accommodation|nightly|a night|per night)\b")

# "On night flights", "for work": a preference that holds in some circumstances only. Two notes
# with different circumstances can both be true, so the rules never pair them.
_QUALIFIER = re.compile(
    r"(?i)\b(?:when|if|unless|except|only|long[- ]haul|short[- ]haul|overnight|red[- ]eye|"
    r"weekends?|"
    r"on\s+(?:long|short|night|international|domestic|business|work)\w*|"
    r"for\s+(?:work|business|long|short|family|holidays?|leisure)\w*|with\s+(?:kids|children|family|partner)|"
    # One leg, trip or date: "on the Osaka leg", "on the flight to Osaka", "on 12 March".
    r"legs?|trips?|journeys?|itinerar(?:y|ies)|tomorrow|tonight|"
    r"(?:flights?|trains?)\s+(?:to|from)\s+(?-i:[A-Z])\w*|on\s+\d{1,2}(?:st|nd|rd|th)?\s+\w+|\d{4}-\d{2}-\d{2}|"
    # An occasion: "on Tuesday's flight", "during the retreat", "for the Lisbon conference",
    # "on the way back", "next week". The gate may keep such a note global; it is no new default.
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:['’]s)?|during|next\s+(?:week|month|year)|"
    r"this\s+(?:week|month|weekend|year)|outbound|inbound|return|way\s+(?:back|out|there|home)|"
    r"conferences?|meetings?|retreats?|weddings?|summits?|events?|hop|for\s+the\s+(?-i:[A-Z])\w*)\b"
)

# Words that only say how an attribute is stated; left over in the older note, anything else
# is a fact the newer note does not carry.
STATING_WORDS = {
    stem(w)
    for w in """
lives living lived moved moving relocated home city town base based resides settled there currently
recently just since airport seat seats flight flights flying flies fly diet meals meal food eats
eating vegetarian vegan pescatarian meat cabin class hotel hotels budget nightly night aud under
room rooms
keeps stays airline airlines books booking follows following sticks sticking january february march april may june july august
september october november december
""".split()
}

ATTRIBUTES = ("home_city", "home_airport", "diet", "seat", "cabin", "airline", "hotel_budget")


def _one(found: list[str]) -> str | None:
    """The value if the note gives exactly one (two different values: ambiguous, no value)."""
    values = list(dict.fromkeys(found))
    return values[0] if len(values) == 1 else None


def _home_city(text: str) -> str | None:
    for pattern in _HOME_CITY:  # in order: "moved ... to X" beats "lives in X"
        found = [
            m.group(1) for m in pattern.finditer(text) if not _NOT_NOW.search(text[: m.start()])
        ]
        if found:
            return _one([f.casefold() for f in found])
    return None


def _airport_code(place: str) -> str:
    """"Sydney" and "SYD" are one home airport."""
    try:
        return airports_for(place, default_catalogue())[0]
    except BadArgument:
        return place.casefold()


# "Tom eats meat", "Maya Lee prefers window seats": a note that opens with a name and a verb in
# the third person is about that person. The user's own notes have no subject ("Eats meat").
_NAMED_SUBJECT = re.compile(r"^\W*([A-Z][\w'’-]*\.?(?:\s+[A-Z][\w'’-]*)?)\s+([a-z][\w'’-]*)")
# "Dr. Okafor moved to Lagos", "Mrs Tanaka lives in Kyoto": a title opens someone else's name.
_TITLES = {"mr", "mrs", "ms", "mx", "miss", "dr", "prof", "sir", "dame", "lady", "lord"}
_THIRD_PERSON = re.compile(r"(?:is|was|has|does|[a-z]{2,}(?:s|ed))$")


def named_subject(text: str) -> str | None:
    """The name a note opens with when it is about that person ("Tom eats meat" -> "Tom"), else None.

    A first word that reads as a verb or an adverb ("Prefers", "Moved", "Usually") is the user's
    note, not a name, and so is a name that is the value the note states ("Qantas is preferred",
    "Melbourne is now home")."""
    match = _NAMED_SUBJECT.match(text)
    if not match or not _THIRD_PERSON.fullmatch(match.group(2)):
        return None
    name = match.group(1)
    first = name.split()[0].lower()
    if first.rstrip(".") in _TITLES and len(name.split()) > 1:
        return name
    if (first in STOPWORDS | NEGATIONS or stem(first) in STATING_WORDS or re.search(r"(?:s|ed|ing|ly)$", first)
            or first in {"always", "often", "now", "still"}):
        return None  # "Never books...", "Budget is...", "Home airport is...": the user's own note
    values = " ".join(_attributes(text).values())
    return None if name.casefold() in values or any(w.casefold() in values for w in name.split()) else name


def attributes_of(text: str) -> dict[str, str]:
    """The one-value attributes a note states: "Moved to Perth" -> {"home_city": "perth"}.
    A note about someone else ("Sister lives in Perth", "Tom eats meat") states none."""
    return {} if named_subject(text) else _attributes(text)


def _attributes(text: str) -> dict[str, str]:
    if _ABOUT_SOMEONE_ELSE.search(text):
        return {}
    found: dict[str, str | None] = {"home_city": _home_city(text)}
    if airport := _HOME_AIRPORT.search(text):
        found["home_airport"] = _airport_code(airport.group(1))
    lower = text.lower()
    if not SOMEONE_ELSE.search(text):
        found["diet"] = next((value for value, rule in _DIETS if re.search(rule, lower)), None)
    # "Hates the window seat", "Avoids economy": what the user does not want is not the value.
    avoids = bool(_AVOIDS.search(text))
    found["seat"] = None if avoids else _one([value for value, rule in _SEATS if re.search(rule, lower)])
    found["cabin"] = None if avoids else _one([value for value, rule in _CABINS if re.search(rule, lower)])
    airlines = [m.group(1) for m in _AIRLINE.finditer(text)]
    if airlines and not _AVOIDS.search(text):
        found["airline"] = _one([a.casefold() for a in airlines])
    if _HOTEL.search(text) and (budget := _BUDGET.search(text)):
        found["hotel_budget"] = budget.group(1).replace(",", "")
    return {k: v for k, v in found.items() if v}


def others_in(text: str) -> set[str]:
    """Who else a note involves: its relation words ("sister", "kids") and the name it opens with
    ("Tom eats meat" -> "tom"), lower case; empty for a note only about the user."""
    return {m.group(0).lower() for m in SOMEONE_ELSE.finditer(text)} | {(named_subject(text) or "").lower()} - {""}


def qualifiers(text: str) -> set[str]:
    return {" ".join(m.group(0).lower().split()) for m in _QUALIFIER.finditer(text)}


def unshared_facts(older: MemoryNote, newer: MemoryNote) -> set[str]:
    """Words of the older note that are not in the newer note nor part of stating an attribute."""
    values = {stem(w) for v in attributes_of(older.text).values() for w in re.findall(r"[a-z]+", v)}
    return topic_words(older.text) - topic_words(newer.text) - STATING_WORDS - values


def contradicts(a: MemoryNote, b: MemoryNote) -> bool:
    """Two notes of one list (same scope) that give a one-value attribute (seat, home city,
    diet...) two values in the same circumstances: only the newer one may stand for it, in a
    prompt cut by a filter, a top-k or a budget as much as in consolidation."""
    if a.scope != b.scope or qualifiers(a.text) != qualifiers(b.text):
        return False
    stated_a, stated_b = attributes_of(a.text), attributes_of(b.text)
    return any(stated_a[k] != stated_b[k] for k in stated_a.keys() & stated_b.keys())


@dataclass(frozen=True)
class AttributeChange:
    """A new note gives an attribute another value than an older live note."""

    attribute: str
    older_id: str
    newer_id: str
    old_value: str
    new_value: str
    confirmed: bool  # the rules alone may supersede the older note
    reason: str


def propose_changes(
    notes: list[MemoryNote], new_ids: set[str], *, clock: Clock
) -> list[AttributeChange]:
    """Pairs (older live note, new note) that give one attribute two values, oldest pair first."""
    live = sorted(
        (n for n in notes if n.is_live(clock)), key=lambda n: (parse_time(n.observed_at), n.id)
    )
    stated = {n.id: attributes_of(n.text) for n in live}
    changes: list[AttributeChange] = []
    seen: set[tuple[str, str]] = set()
    for new in (n for n in live if n.id in new_ids):
        for old in live:
            if old.id == new.id or (old.id, new.id) in seen or (new.id, old.id) in seen:
                continue
            if old.id in new_ids and parse_time(old.observed_at) > parse_time(new.observed_at):
                continue  # that pair is met the other way round
            differing = [
                a
                for a in ATTRIBUTES
                if a in stated[old.id]
                and a in stated[new.id]
                and stated[old.id][a] != stated[new.id][a]
            ]
            if not differing or qualifiers(old.text) != qualifiers(new.text):
                continue
            seen.add((old.id, new.id))
            attribute = differing[0]
            extra = unshared_facts(old, new)
            reason = (
                f"{attribute.replace('_', ' ')} changed: {stated[old.id][attribute]} -> "
                f"{stated[new.id][attribute]}"
            )
            if extra:
                reason += f"; the older note also says {', '.join(sorted(extra))}"
            changes.append(
                AttributeChange(
                    attribute,
                    old.id,
                    new.id,
                    stated[old.id][attribute],
                    stated[new.id][attribute],
                    not extra,
                    reason,
                )
            )
    return changes


def confirm_attribute_changes(notes: list[MemoryNote], report, *, clock: Clock, recency: bool = True):
    """Confirm, by rules, the attribute changes the consolidator's plan left alone (see module doc).

    `notes` and `report` are a merge result (they are changed in place and returned). The new
    notes are the session's added notes and the notes the model wrote. A pair the plan already
    resolved, or sent to the user, is left as it is.
    """
    new_ids = {d.note_id for d in report.decisions.values() if d.outcome == "added"} | set(
        report.created
    )
    by_id = {n.id: n for n in notes}
    asked = {frozenset(c.note_ids) for c in report.needs_user}
    for change in propose_changes(notes, new_ids, clock=clock):
        older, newer = by_id[change.older_id], by_id[change.newer_id]
        if frozenset((older.id, newer.id)) in asked or not (
            older.is_live(clock) and newer.is_live(clock)
        ):
            continue
        if change.confirmed:
            # Named new-first, as a model might: the recency rule, not this pass, orders them.
            resolve_conflict(newer, older, "supersede", change.reason, report, recency=recency)
            continue
        report.needs_user.append(
            Conflict((older.id, newer.id), (older.text, newer.text), change.reason)
        )
        for n, other in ((older, newer), (newer, older)):
            if report.decisions.get(n.id) and report.decisions[n.id].outcome in ("kept", "added"):
                report.decisions[n.id] = MergeDecision(
                    n.id,
                    "needs_user",
                    "attribute changed but the rules cannot confirm it; both stay active",
                    other.id,
                )
    return notes, report


__all__ = [
    "ATTRIBUTES",
    "SOMEONE_ELSE",
    "STATING_WORDS",
    "AttributeChange",
    "attributes_of",
    "confirm_attribute_changes",
    "contradicts",
    "named_subject",
    "others_in",
    "propose_changes",
    "qualifiers",
    "unshared_facts",
]
