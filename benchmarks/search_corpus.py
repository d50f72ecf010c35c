"""Synthetic travel notes and messages for the search benchmark: varied words, reproducible."""

from __future__ import annotations

import random

from helpers.state import MemoryNote

SUBJECTS = [
    ("Prefers an aisle seat on {x} flights", ["short", "long", "overnight", "domestic", "early"]),
    (
        "Prefers a window seat when flying {x}",
        ["economy", "business", "with kids", "alone", "overnight"],
    ),
    (
        "Wants hotels near {x}",
        ["the train station", "the beach", "the old town", "the airport", "museums"],
    ),
    ("Eats {x} food only", ["vegetarian", "vegan", "halal", "kosher", "gluten-free"]),
    ("Allergic to {x}", ["peanuts", "shellfish", "cats", "penicillin", "pollen"]),
    ("Rents {x} cars", ["small", "electric", "automatic", "hybrid", "large"]),
    ("Hotel budget is under {x} a night", ["150 EUR", "200 AUD", "120 USD", "300 SGD", "90 GBP"]),
    ("Travels to {x} for work", ["Singapore", "Berlin", "Tokyo", "Chicago", "Lisbon"]),
    ("Collects {x} loyalty points", ["Qantas", "Marriott", "Hilton", "Star Alliance", "Oneworld"]),
    (
        "Likes {x} in the evening",
        ["a quiet room", "a gym", "room service", "a rooftop bar", "jazz clubs"],
    ),
    (
        "Takes the train between {x}",
        [
            "Paris and Lyon",
            "Tokyo and Kyoto",
            "Milan and Rome",
            "Sydney and Canberra",
            "Boston and New York",
        ],
    ),
    (
        "Needs travel insurance covering {x}",
        ["skiing", "diving", "cancellations", "medical care", "gadgets"],
    ),
    ("Lives in {x}", ["Sydney", "Brisbane", "Perth", "Auckland", "Melbourne"]),
    ("Visits family in {x} at Christmas", ["Dublin", "Manila", "Toronto", "Cape Town", "Hanoi"]),
    ("Avoids layovers in {x}", ["Dubai", "Doha", "Frankfurt", "Heathrow", "Los Angeles"]),
]

MESSAGES = [
    "Book me a flight to Tokyo next month, where should I sit?",
    "Find a hotel in Berlin for the conference",
    "What can I eat on the plane?",
    "I need a rental car in Lisbon for three days",
    "Is travel insurance worth it for a ski trip?",
    "Plan the train from Paris to Lyon",
    "Which airline lets me earn my points?",
    "Any restaurants near the hotel tonight?",
    "Flying home for Christmas, any connections to avoid?",
    "What is my usual hotel budget?",
]


def make_note(rng: random.Random, i: int) -> MemoryNote:
    template, fillers = SUBJECTS[rng.randrange(len(SUBJECTS))]
    text = template.format(x=rng.choice(fillers))
    status, expires = "active", None
    if i % 10 == 3:
        status = "superseded"
    elif i % 10 == 7:
        expires = "2026-01-01"  # already expired at the bench's clock
    month, day = 1 + rng.randrange(12), 1 + rng.randrange(28)
    return MemoryNote(
        text=f"{text} (note {i})",
        observed_at=f"2025-{month:02d}-{day:02d}",
        keywords=text.lower().split()[1:3],
        status=status,
        expires_at=expires,
        confidence=round(0.6 + 0.4 * rng.random(), 2),
        source_ref=f"session:{i}#turn1",
    )


def owner(i: int, users: int) -> tuple[str, str]:
    user = i % users
    return f"tenant{user % 10}", f"user{user}"
