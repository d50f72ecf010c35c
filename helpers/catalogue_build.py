"""Stage 0 — the concierge (notebook 00): the seeded generator of the travel catalogue (data/catalogue/*.csv).

    python -m helpers.catalogue_build --generate   # rewrites data/catalogue/*.csv, byte for byte

The same seed gives the same rows; tests/test_catalogue.py checks the committed files are what it
writes. The airports and airlines it lays routes over are `helpers.catalogue`'s; here are the
routes, the words hotel and restaurant names are made of, and the price levels per city.
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path
from typing import Any

from helpers.catalogue import AIRLINES, AIRPORTS, CABINS, DIETS, catalogue_dir

SEED = 16

# origin, destination, minutes, airlines, stop (one-stop itineraries); both directions are generated
ROUTES = [
    ("SYD", "MEL", 95, "QF;VA;JQ", ""),
    ("SYD", "BNE", 90, "QF;VA;JQ", ""),
    ("MEL", "BNE", 125, "QF;VA;JQ", ""),
    ("SYD", "PER", 320, "QF;VA", ""),
    ("MEL", "PER", 235, "QF;VA;JQ", ""),
    ("SYD", "ADL", 120, "QF;VA", ""),
    ("MEL", "ADL", 75, "QF;JQ", ""),
    ("SYD", "CNS", 185, "QF;JQ", ""),
    ("BNE", "CNS", 145, "QF;VA", ""),
    ("MEL", "HBA", 75, "QF;VA;JQ", ""),
    ("SYD", "HBA", 110, "QF;VA", ""),
    ("SYD", "OOL", 80, "VA;JQ", ""),
    ("MEL", "OOL", 125, "VA;JQ", ""),
    ("SYD", "CBR", 55, "QF;VA", ""),
    ("MEL", "CBR", 70, "QF", ""),
    ("SYD", "AKL", 185, "QF;NZ;JQ", ""),
    ("MEL", "AKL", 220, "QF;NZ", ""),
    ("BNE", "AKL", 185, "NZ;VA", ""),
    ("SYD", "WLG", 185, "QF;NZ", ""),
    ("SYD", "CHC", 185, "NZ;JQ", ""),
    ("SYD", "ZQN", 175, "QF;NZ;JQ", ""),
    ("MEL", "ZQN", 205, "NZ;JQ", ""),
    ("AKL", "WLG", 65, "NZ", ""),
    ("AKL", "CHC", 80, "NZ;JQ", ""),
    ("SYD", "NRT", 580, "QF;JL", ""),
    ("SYD", "HND", 595, "QF;NH", ""),
    ("MEL", "NRT", 620, "JQ", ""),
    ("BNE", "NRT", 530, "QF", ""),
    ("SYD", "KIX", 570, "QF;JQ", ""),
    ("SYD", "ICN", 620, "KE", ""),
    ("SYD", "SIN", 490, "QF;SQ", ""),
    ("MEL", "SIN", 455, "SQ;JQ", ""),
    ("BNE", "SIN", 480, "SQ", ""),
    ("PER", "SIN", 320, "SQ;QF", ""),
    ("SYD", "HKG", 555, "CX;QF", ""),
    ("MEL", "HKG", 575, "CX", ""),
    ("SYD", "BKK", 560, "TG;QF", ""),
    ("SYD", "DPS", 390, "QF;JQ;GA", ""),
    ("MEL", "DPS", 370, "JQ;VA", ""),
    ("PER", "DPS", 220, "JQ;VA", ""),
    ("SYD", "KUL", 510, "MH", ""),
    ("SYD", "TPE", 540, "BR", ""),
    ("SYD", "MNL", 505, "QF", ""),
    ("SYD", "DEL", 735, "AI", ""),
    ("SYD", "DXB", 865, "EK;QF", ""),
    ("MEL", "DXB", 865, "EK", ""),
    ("AKL", "SIN", 620, "SQ;NZ", ""),
    ("AKL", "NRT", 660, "NZ", ""),
    ("SYD", "LAX", 830, "QF;DL", ""),
    ("MEL", "LAX", 880, "QF", ""),
    ("AKL", "LAX", 770, "NZ", ""),
    ("SYD", "LHR", 1410, "QF", "SIN"),
    ("MEL", "LHR", 1430, "EK", "DXB"),
    ("SYD", "LHR", 1420, "EK", "DXB"),
    ("SYD", "LIS", 1520, "EK", "DXB"),
    ("SYD", "LIS", 1560, "QR", "DOH"),
    ("MEL", "LIS", 1580, "QR", "DOH"),
    ("BNE", "LHR", 1450, "SQ", "SIN"),
]

HOTEL_WORDS = [
    "Harbour",
    "Park",
    "Central",
    "Garden",
    "Skyline",
    "Riverside",
    "Lantern",
    "Quay",
    "Laneway",
    "Pacific",
    "Cedar",
    "Wattle",
    "Jade",
    "Lotus",
    "Meridian",
    "Corner",
]
HOTEL_KINDS = ["Hotel", "Suites", "Inn", "Residences", "Lodge", "House"]
FOOD_WORDS = [
    "Green",
    "Little",
    "Golden",
    "Salt",
    "Ember",
    "Fig",
    "Olive",
    "Saffron",
    "Tamarind",
    "Basil",
    "Copper",
    "Kelp",
    "Lime",
    "Pepper",
    "Juniper",
    "Clove",
]
FOOD_KINDS = ["Kitchen", "Table", "Bar", "Canteen", "House", "Dining Room", "Eatery", "Garden"]
CUISINES = [
    "Modern Australian",
    "Japanese",
    "Italian",
    "Thai",
    "Indian",
    "Vietnamese",
    "Lebanese",
    "Chinese",
    "Korean",
    "Malaysian",
    "Mexican",
    "Seafood",
    "Steakhouse",
    "Portuguese",
    "Vegetarian",
]
LOCAL_CUISINE = {
    "Japan": "Japanese",
    "South Korea": "Korean",
    "Thailand": "Thai",
    "Malaysia": "Malaysian",
    "India": "Indian",
    "Portugal": "Portuguese",
    "Singapore": "Malaysian",
    "Hong Kong": "Chinese",
    "Taiwan": "Chinese",
    "Indonesia": "Indonesian",
    "Philippines": "Filipino",
    "United Arab Emirates": "Lebanese",
    "Australia": "Modern Australian",
    "New Zealand": "Modern Australian",
}
# Cities where a hotel costs more or less than the base (multipliers on a nightly price in AUD).
CITY_PRICE = {
    "Sydney": 1.1,
    "Tokyo": 1.0,
    "London": 1.5,
    "Singapore": 1.3,
    "Hong Kong": 1.3,
    "Queenstown": 1.2,
    "Bali": 0.6,
    "Bangkok": 0.6,
    "Delhi": 0.55,
    "Manila": 0.6,
    "Kuala Lumpur": 0.6,
    "Lisbon": 0.95,
}


def _clock(rng: random.Random, start: int, end: int) -> int:
    return rng.randrange(start, end, 5)


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def generate(seed: int = SEED) -> dict[str, list[dict[str, Any]]]:
    """The catalogue's rows, table by table; the same seed gives the same rows."""
    rng = random.Random(seed)
    airports = [{"code": c, "city": city, "country": country} for c, city, country, _ in AIRPORTS]
    flights = []
    numbers: set[str] = set()
    for origin, destination, minutes, airlines, stop in ROUTES:
        for a, b in ((origin, destination), (destination, origin)):
            for code in airlines.split(";"):
                name, _, factor, cabins = AIRLINES[code]
                departures = 2 if minutes < 240 and code in ("QF", "VA", "JQ", "NZ") else 1
                days = (
                    "1234567"
                    if minutes < 360
                    else "".join(sorted(rng.sample("1234567", rng.choice([3, 4, 5, 7]))))
                )
                for _ in range(departures):
                    number = f"{code}{rng.randrange(1, 999)}"
                    while number in numbers:
                        number = f"{code}{rng.randrange(1, 999)}"
                    numbers.add(number)
                    depart = _clock(rng, 6 * 60, 22 * 60)
                    duration = minutes + rng.randrange(-10, 15, 5)
                    # Economy fares grow with flight time; other cabins are multiples of it.
                    economy = round((70 + minutes * 1.05) * factor * rng.uniform(0.85, 1.2), -1)
                    row = {
                        "flight": number,
                        "airline": name,
                        "origin": a,
                        "destination": b,
                        "via": stop,
                        "days": days,
                        "depart": _hhmm(depart),
                        "arrive": _hhmm(depart + duration),
                        "next_day": int((depart + duration) // (24 * 60)),
                        "minutes": duration,
                    }
                    for cabin, times in zip(CABINS, (1, 1.7, 3.6, 6.5)):
                        row[f"{cabin.replace(' ', '_')}_aud"] = (
                            int(economy * times) if cabin in cabins else ""
                        )
                    # Some flights have one side full: "no aisle seat left" must be reachable.
                    row["aisle_left"] = rng.choice([0, 0, 1, 2, 4, 6, 9, 12, 18])
                    row["window_left"] = rng.choice([0, 0, 1, 3, 5, 8, 11, 15, 20])
                    flights.append(row)
    hotels, restaurants = [], []
    for _code, city, country, area_list in AIRPORTS:
        if not area_list:  # a second airport of a city already listed
            continue
        areas = area_list.split(";")
        words = rng.sample(HOTEL_WORDS, 5)
        for i, word in enumerate(words):
            area = areas[i % len(areas)]
            stars = rng.choice([3, 3, 4, 4, 4, 5])
            price = round(
                (60 + stars * 45) * CITY_PRICE.get(city, 1.0) * rng.uniform(0.8, 1.25), -1
            )
            hotels.append(
                {
                    "name": f"{word} {area} {rng.choice(HOTEL_KINDS)}",
                    "city": city,
                    "area": area,
                    "stars": stars,
                    "nightly_aud": int(price),
                    "near_transport": int(rng.random() < 0.6),
                    "gym": int(rng.random() < 0.5 + stars / 20),
                    "pool": int(rng.random() < stars / 8),
                    "quiet": int(rng.random() < 0.45),
                    "rating": round(rng.uniform(3.6, 4.9), 1),
                }
            )
        local = LOCAL_CUISINE.get(country, "Modern Australian")
        for i, word in enumerate(rng.sample(FOOD_WORDS, 6)):
            cuisine = local if i < 2 else rng.choice(CUISINES)
            diets = [d for d, p in zip(DIETS, (0.7, 0.35, 0.5, 0.2, 0.06)) if rng.random() < p]
            if cuisine == "Vegetarian":
                diets = sorted({"vegetarian", "vegan", *diets}, key=DIETS.index)
            if cuisine in ("Steakhouse", "Seafood"):
                diets = [d for d in diets if d not in ("vegetarian", "vegan")]
            if (
                country in ("Malaysia", "Indonesia", "United Arab Emirates")
                and "halal" not in diets
            ):
                diets.append("halal")
            restaurants.append(
                {
                    "name": f"{word} {rng.choice(FOOD_KINDS)}",
                    "city": city,
                    "area": areas[i % len(areas)],
                    "cuisine": cuisine,
                    "diets": ";".join(sorted(diets, key=DIETS.index)),
                    "main_aud": rng.choice([18, 22, 26, 32, 38, 45, 55, 70]),
                    "rating": round(rng.uniform(3.7, 4.9), 1),
                }
            )
    return {"airports": airports, "flights": flights, "hotels": hotels, "restaurants": restaurants}


def write_catalogue(directory: Path | None = None, seed: int = SEED) -> dict[str, int]:
    """Write the generated tables as CSV files; returns rows per table."""
    directory = directory or catalogue_dir()
    directory.mkdir(parents=True, exist_ok=True)
    counts = {}
    for table, rows in generate(seed).items():
        with open(directory / f"{table}.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        counts[table] = len(rows)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m helpers.catalogue_build", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--generate", action="store_true", help="rewrite data/catalogue/*.csv from the seed"
    )
    parser.add_argument("--out", type=Path, default=None, help="write to this folder instead")
    args = parser.parse_args(argv)
    if not args.generate:
        parser.print_help()
        return 2
    counts = write_catalogue(args.out)
    print(", ".join(f"{n} {table}" for table, n in counts.items()))
    return 0


__all__ = ["SEED", "generate", "main", "write_catalogue"]

if __name__ == "__main__":
    raise SystemExit(main())
