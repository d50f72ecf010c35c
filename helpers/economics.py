"""Stage 9 — evals (notebook 09): token economics, memory injection against replaying the whole history.

`token_economics` counts the input tokens of one new turn after 1..50 past sessions, two ways:
the rendered system prompt with memory (policy + profile + top-k notes), or the role and
profile followed by every past message. Memory stays flat while replay grows with history.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from helpers.budget import TokenCounter, count_tokens
from helpers.hooks import BASE_INSTRUCTIONS, render_prompt
from helpers.notebook import COURSE_NOW
from helpers.policy import DEFAULT_POLICY, Policy
from helpers.render import render_frontmatter
from helpers.state import MemoryNote, MemoryState, parse_time

ECONOMICS_NOW = COURSE_NOW  # the memory as it stands on the course's pinned "today"

_CITIES = [
    "Melbourne",
    "Brisbane",
    "Perth",
    "Auckland",
    "Singapore",
    "Tokyo",
    "Bali",
    "Hobart",
    "Adelaide",
    "Darwin",
]
_AIRLINES = ["Qantas", "Virgin Australia", "Jetstar", "Singapore Airlines", "Air New Zealand"]
# topic -> values a user states over time; a newer one on a topic supersedes the older
_PREFERENCES = {
    "seat": ["an aisle seat", "a window seat", "an exit-row seat"],
    "meal": ["vegetarian meals", "no meal on short flights", "gluten-free meals"],
    "hotel": [
        "hotels near public transport",
        "quiet hotel rooms on a high floor",
        "hotels with a gym",
    ],
    "budget": ["hotels under 250 AUD a night", "hotels under 300 AUD a night"],
    "schedule": [
        "morning departures",
        "arriving the evening before meetings",
        "no red-eye flights",
    ],
    "airline": [
        "flying Qantas when possible",
        "avoiding budget airlines",
        "earning Velocity points",
    ],
}


HISTORY_START = parse_time("2025-11-24")  # weekly sessions: the 50th is on 2026-11-02


def synthetic_history(
    sessions: int, seed: int = 7
) -> tuple[list[list[dict[str, str]]], list[MemoryNote]]:
    """`sessions` deterministic past sessions (6 messages each) and their notes, oldest first.

    Each session books a trip and states one preference; a later preference on the same topic
    supersedes the earlier note, as consolidation would.
    """
    rng = random.Random(seed)
    transcripts: list[list[dict[str, str]]] = []
    notes: list[MemoryNote] = []
    latest: dict[str, MemoryNote] = {}
    for i in range(sessions):
        day = (HISTORY_START + timedelta(days=7 * i)).date().isoformat()
        city, airline = rng.choice(_CITIES), rng.choice(_AIRLINES)
        topic = rng.choice(sorted(_PREFERENCES))
        value = rng.choice(_PREFERENCES[topic])
        hour, price = rng.randint(6, 20), rng.randint(89, 420)
        said = [
            f"I need a flight from Sydney to {city} around {day}, economy please.",
            f"{airline} has a {hour:02d}:15 departure to {city} for {price} AUD, and there is a "
            f"later option at {hour + 2:02d}:40 for {price + 35} AUD. Which one should I hold?",
            f"The {hour:02d}:15 one. And by the way, I prefer {value} from now on.",
            f"Done: the {hour:02d}:15 {airline} flight is on hold. "
            f"I'll remember that you prefer {value}.",
            f"Great. Can you also find me a hotel in {city} for two nights?",
            f"I found three hotels in central {city} between {price // 2 + 80} and "
            f"{price // 2 + 190} AUD a night. Want the details?",
        ]
        roles = ["user", "assistant"] * 3
        transcripts.append([{"role": r, "content": c} for r, c in zip(roles, said)])
        note = MemoryNote(
            text=f"Prefers {value}",
            observed_at=day,
            keywords=[topic],
            source_ref=f"synthetic-{i + 1}#turn2",
        )
        if topic in latest:  # the newer preference on a topic wins
            latest[topic].status, latest[topic].superseded_by = "superseded", note.id
            note.supersedes = latest[topic].id
        latest[topic] = note
        notes.append(note)
    return transcripts, notes


@dataclass(frozen=True)
class EconomicsPoint:
    sessions: int
    memory_tokens: (
        int  # system prompt with memory (policy + profile + top-k notes) + the new message
    )
    replay_tokens: int  # role + profile + every past message + the new message

    @property
    def ratio(self) -> float:
        return self.replay_tokens / self.memory_tokens


NEW_MESSAGE = "Book me a flight to Perth next Friday, please."


def token_economics(
    max_sessions: int = 50,
    counter: TokenCounter = count_tokens,
    *,
    policy: Policy = DEFAULT_POLICY,
    profile: dict[str, Any] | None = None,
) -> list[EconomicsPoint]:
    """Tokens of one new turn after 1..max_sessions sessions: memory injection against full replay.

    Both sides count the same role, profile and new message; tool definitions are left out of
    both. Messages are counted one by one (as a chat template sends them), without the
    template's few tokens of role markup per message.
    """
    profile = profile or {"name": "Maya Chen", "home_airport": "SYD", "currency": "AUD"}
    transcripts, _notes = synthetic_history(max_sessions)
    fixed = counter(BASE_INSTRUCTIONS) + counter(render_frontmatter(profile)) + counter(NEW_MESSAGE)
    points, history = [], 0
    for n in range(1, max_sessions + 1):
        history += sum(counter(m["content"]) for m in transcripts[n - 1])
        # Memory as it stood after session n: rebuild supersession from scratch for those notes.
        _, notes_n = synthetic_history(n)
        state = MemoryState(profile=profile, global_notes=notes_n, pinned_now=ECONOMICS_NOW)
        memory = counter(render_prompt(state, policy=policy).text) + counter(NEW_MESSAGE)
        points.append(EconomicsPoint(n, memory, fixed + history))
    return points


def plot_economics(
    points: list[EconomicsPoint], counter_name: str = "o200k_base", ax: Any = None
) -> Any:
    """Tokens per turn against sessions of history, both strategies; returns the matplotlib Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    xs = [p.sessions for p in points]
    ax.plot(xs, [p.replay_tokens for p in points], label="replay the full history")
    ax.plot(xs, [p.memory_tokens for p in points], label="memory injection (top-k notes)")
    ax.set_xlabel("sessions of history")
    ax.set_ylabel(f"input tokens per turn ({counter_name})")
    ax.set_title(f"At {xs[-1]} sessions, replay costs {points[-1].ratio:.1f}x the tokens")
    ax.legend()
    ax.grid(alpha=0.3)
    return ax


def economics_table(
    points: list[EconomicsPoint], every: Iterable[int] = (1, 5, 10, 20, 30, 40, 50)
) -> str:
    wanted = set(every)
    lines = [f"{'sessions':>8} {'memory':>8} {'replay':>8} {'ratio':>6}"]
    lines += [
        f"{p.sessions:>8} {p.memory_tokens:>8} {p.replay_tokens:>8} {p.ratio:>6.1f}"
        for p in points
        if p.sessions in wanted
    ]
    return "\n".join(lines)


__all__ = [
    "ECONOMICS_NOW",
    "EconomicsPoint",
    "NEW_MESSAGE",
    "economics_table",
    "plot_economics",
    "synthetic_history",
    "token_economics",
]
