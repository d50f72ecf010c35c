"""Stage 0 — the concierge (notebook 00): the travel catalogue, its data (data/catalogue/*.csv), loading it, and reading places and dates.

Used by every notebook's concierge (its searches are `helpers.searches`; memory fills their
arguments in `helpers.travel`, taught in notebook 05). The catalogue is four CSV files (airports,
flights, hotels, restaurants), a few hundred rows in all, written by a seeded generator
(`helpers.catalogue_build`: `python -m helpers.catalogue_build --generate` rewrites them byte for
byte). Flights run on a weekly schedule, so any date has flights. Prices are in AUD.

Here: the catalogue's vocabulary (seats, cabins, diets, hotel features), its airports and airlines,
`Catalogue.load`, and the readers every search shares: `airports_for` / `city_for` (a code, a city,
"Sydney (SYD)"), `parse_date` (relative dates read against the run's clock, so a notebook with a
pinned date gets the same answer every time), and `BadArgument` for what they cannot read.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from helpers.paths import data_dir
from helpers.text import fold

SEATS = ("aisle", "window", "any")
CABINS = ("economy", "premium economy", "business", "first")
DIETS = ("vegetarian", "vegan", "gluten-free", "halal", "kosher")
FEATURES = ("near transport", "gym", "pool", "quiet")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def catalogue_dir() -> Path:
    return data_dir() / "catalogue"


# code, city, country, areas (hotels and restaurants are placed in these)
AIRPORTS = [
    ("SYD", "Sydney", "Australia", "CBD;Surry Hills;Darling Harbour;Bondi;Newtown"),
    ("MEL", "Melbourne", "Australia", "CBD;Fitzroy;Southbank;St Kilda;Carlton"),
    ("BNE", "Brisbane", "Australia", "CBD;South Bank;Fortitude Valley;New Farm"),
    ("PER", "Perth", "Australia", "CBD;Northbridge;Fremantle;Subiaco"),
    ("ADL", "Adelaide", "Australia", "CBD;North Adelaide;Glenelg"),
    ("CNS", "Cairns", "Australia", "Esplanade;City Centre;Palm Cove"),
    ("HBA", "Hobart", "Australia", "Waterfront;Battery Point;North Hobart"),
    ("OOL", "Gold Coast", "Australia", "Surfers Paradise;Broadbeach;Burleigh Heads"),
    ("CBR", "Canberra", "Australia", "Civic;Kingston;Braddon"),
    ("AKL", "Auckland", "New Zealand", "CBD;Ponsonby;Viaduct Harbour;Parnell"),
    ("WLG", "Wellington", "New Zealand", "Te Aro;Lambton Quay;Oriental Bay"),
    ("CHC", "Christchurch", "New Zealand", "City Centre;Riccarton;Addington"),
    ("ZQN", "Queenstown", "New Zealand", "Town Centre;Frankton;Fernhill"),
    ("NRT", "Tokyo", "Japan", "Shinjuku;Shibuya;Ginza;Asakusa"),
    ("HND", "Tokyo", "Japan", ""),
    ("KIX", "Osaka", "Japan", "Namba;Umeda;Shinsekai"),
    ("ICN", "Seoul", "South Korea", "Myeongdong;Gangnam;Hongdae"),
    ("SIN", "Singapore", "Singapore", "Marina Bay;Orchard;Chinatown;Little India"),
    ("HKG", "Hong Kong", "Hong Kong", "Central;Tsim Sha Tsui;Causeway Bay"),
    ("BKK", "Bangkok", "Thailand", "Sukhumvit;Silom;Riverside"),
    ("DPS", "Bali", "Indonesia", "Seminyak;Ubud;Kuta;Sanur"),
    ("KUL", "Kuala Lumpur", "Malaysia", "Bukit Bintang;KLCC;Chinatown"),
    ("TPE", "Taipei", "Taiwan", "Xinyi;Zhongshan;Da'an"),
    ("MNL", "Manila", "Philippines", "Makati;Bonifacio;Ermita"),
    ("DEL", "Delhi", "India", "Connaught Place;Aerocity;Hauz Khas"),
    ("DXB", "Dubai", "United Arab Emirates", "Downtown;Marina;Deira"),
    ("LHR", "London", "United Kingdom", "Covent Garden;Shoreditch;Kensington;South Bank"),
    ("LIS", "Lisbon", "Portugal", "Baixa;Alfama;Chiado;Belem"),
    ("LAX", "Los Angeles", "United States", "Santa Monica;Downtown;Hollywood"),
]

# code, name, loyalty programme, price factor, cabins flown
AIRLINES = {
    "QF": ("Qantas", "Qantas Frequent Flyer", 1.15, "economy;premium economy;business;first"),
    "VA": ("Virgin Australia", "Velocity", 1.0, "economy;business"),
    "JQ": ("Jetstar", "Qantas Frequent Flyer", 0.65, "economy"),
    "NZ": ("Air New Zealand", "Airpoints", 1.05, "economy;premium economy;business"),
    "SQ": ("Singapore Airlines", "KrisFlyer", 1.2, "economy;premium economy;business;first"),
    "CX": ("Cathay Pacific", "Asia Miles", 1.1, "economy;premium economy;business"),
    "JL": ("Japan Airlines", "JAL Mileage Bank", 1.1, "economy;premium economy;business"),
    "NH": ("ANA", "ANA Mileage Club", 1.1, "economy;premium economy;business"),
    "KE": ("Korean Air", "SkyPass", 1.0, "economy;business"),
    "TG": ("Thai Airways", "Royal Orchid Plus", 0.9, "economy;business"),
    "MH": ("Malaysia Airlines", "Enrich", 0.85, "economy;business"),
    "GA": ("Garuda Indonesia", "GarudaMiles", 0.85, "economy;business"),
    "EK": ("Emirates", "Skywards", 1.15, "economy;premium economy;business;first"),
    "QR": ("Qatar Airways", "Privilege Club", 1.1, "economy;business"),
    "DL": ("Delta", "SkyMiles", 1.05, "economy;premium economy;business"),
    "BR": ("EVA Air", "Infinity MileageLands", 0.95, "economy;premium economy;business"),
    "AI": ("Air India", "Maharaja Club", 0.8, "economy;business"),
}


# ---- loading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Catalogue:
    airports: tuple[dict[str, str], ...]
    flights: tuple[dict[str, str], ...]
    hotels: tuple[dict[str, str], ...]
    restaurants: tuple[dict[str, str], ...]

    @classmethod
    def load(cls, directory: Path | None = None) -> Catalogue:
        directory = directory or catalogue_dir()
        tables = {}
        for table in ("airports", "flights", "hotels", "restaurants"):
            path = directory / f"{table}.csv"
            if not path.is_file():
                raise FileNotFoundError(
                    f"{path} is missing; run: python -m helpers.catalogue_build --generate"
                )
            with open(path, newline="", encoding="utf-8") as f:
                tables[table] = tuple(csv.DictReader(f))
        return cls(**tables)

    @property
    def cities(self) -> list[str]:
        return sorted({a["city"] for a in self.airports})


@lru_cache(maxsize=1)
def default_catalogue() -> Catalogue:
    return Catalogue.load()


class BadArgument(ValueError):
    """An argument the catalogue cannot read; the message says what would work."""


def fold_name(text: Any) -> str:
    """A name as the catalogue compares it: case, accents, dashes and spacing folded."""
    return " ".join(fold(str(text or "")).replace("-", " ").split())


# City codes that name all of a city's airports.
_METRO_CODES = {"tyo": "tokyo", "osa": "osaka", "sel": "seoul", "lon": "london", "mel": "melbourne"}


def airports_for(place: str, catalogue: Catalogue) -> list[str]:
    """Airport codes for a code or city name ("SYD", "Tokyo", "Sydney (SYD)", "sydney airport")."""
    folded = fold_name(place)
    codes = {a["code"].casefold(): a["code"] for a in catalogue.airports}
    if folded in codes:
        return [codes[folded]]
    folded = _METRO_CODES.get(folded, folded)
    by_city = [a["code"] for a in catalogue.airports if fold_name(a["city"]) == folded]
    if by_city:
        return by_city
    # A made-up code that starts one city's name ("TOK"): small models write these.
    prefixed = {
        a["city"]
        for a in catalogue.airports
        if len(folded) == 3 and fold_name(a["city"]).startswith(folded)
    }
    if len(prefixed) == 1:
        return [a["code"] for a in catalogue.airports if a["city"] in prefixed]
    # A longer phrase: any code or city name inside it.
    words = set(re.findall(r"[a-z]+", folded))
    found = [
        a["code"]
        for a in catalogue.airports
        if a["code"].casefold() in words or re.search(rf"\b{re.escape(fold_name(a['city']))}\b", folded)
    ]
    if found:
        return sorted(set(found), key=found.index)
    raise BadArgument(
        f"No airport or city matches {place!r}. Cities: {', '.join(catalogue.cities)}."
    )


def city_for(place: str, catalogue: Catalogue) -> str:
    return next(
        a["city"] for a in catalogue.airports if a["code"] == airports_for(place, catalogue)[0]
    )


_MONTHS = {
    m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)
}
_WEEKDAY_NAMES = {d.casefold(): i for i, d in enumerate(WEEKDAYS)}


def parse_date(text: str, today: date) -> date:
    """An ISO date, "today", "tomorrow", a weekday ("Friday", "next Friday": the first one after
    today), or a day and month ("4 December", "Dec 4": the next one from today)."""
    folded = fold_name(text).replace(",", " ")  # fold_name turns "-" into a space
    if not folded or folded in ("any", "anytime", "soon"):
        return today + timedelta(days=1)
    if iso := re.match(r"(\d{4}) (\d{1,2}) (\d{1,2})\b", folded):
        try:
            return date(*map(int, iso.groups()))
        except ValueError:
            pass
    elif folded == "today":
        return today
    elif folded == "tomorrow":
        return today + timedelta(days=1)
    else:
        for word in folded.split():
            if word[:3] in _WEEKDAY_NAMES and (len(word) == 3 or word.rstrip("s").endswith("day")):
                ahead = (_WEEKDAY_NAMES[word[:3]] - today.weekday() - 1) % 7 + 1
                return today + timedelta(days=ahead)
        day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", folded)
        month = next((_MONTHS[w[:3]] for w in folded.split() if w[:3] in _MONTHS), None)
        if day and month:
            try:
                found = date(today.year, month, int(day.group(1)))
            except ValueError:
                pass
            else:
                return found if found >= today else found.replace(year=today.year + 1)
    raise BadArgument(
        f"Cannot read the date {text!r}: use YYYY-MM-DD, a weekday like 'Friday', or '4 December'."
    )


__all__ = [
    "AIRLINES",
    "AIRPORTS",
    "BadArgument",
    "CABINS",
    "Catalogue",
    "DIETS",
    "FEATURES",
    "SEATS",
    "WEEKDAYS",
    "airports_for",
    "catalogue_dir",
    "city_for",
    "default_catalogue",
    "fold_name",
    "parse_date",
]
