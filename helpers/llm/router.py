"""Decide, then act: the first short, grammar-constrained choice of what a turn is.

Taught in notebook 00. A 1.5B model is good at a constrained choice and at filling a tool's
arguments; it is poor at deciding on its own when to act. So before any call, `LocalModel` asks
one question whose answer the grammar limits to a few words: one of the offered search tools (the
user asked for that search), `recall` (a question about what is remembered), `remember` (the user
only told us something) or `other` (anything else, answered in prose without tools). Only a
search route leads to a search; its arguments are then filled under that tool's schema grammar.

With an OpenAI key there is no router: the model's own tool choice stands.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

RECALL = "recall"
REMEMBER = "remember"
OTHER = "other"

ROUTE_INSTRUCTIONS = """\
You classify one message from a user to their travel assistant, with one word:
{choices}.
Choose a search only when the user asks for one. Reply with the word only."""
# Worked examples of the three non-search words; each offered search gets one more from its own
# description ("Can you search hotels for me?"). Without them a 1.5B model answered the first word
# listed for nearly every message.
ROUTE_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("What do you remember about my diet?", RECALL),
    ("I always travel with my dog.", REMEMBER),
    ("Who wrote Hamlet?", OTHER),
    ("Do you know where I live?", RECALL),
    ("From now on, no early mornings please. This time I also need a taxi.", REMEMBER),
    ("Thanks, that is all.", OTHER),
    ("Which airline do I usually fly, and how much do I spend?", RECALL),  # the user's own habits
    ("What is the currency of Japan?", OTHER),  # a fact about the world, even a travel one
)


def _purpose(tool: dict[str, Any]) -> str:
    """The first sentence of a tool's description, as "I asked you to ..."."""
    function = tool["function"]
    first = (function.get("description") or function["name"].replace("_", " ")).strip().split(".")[0]
    return first[:1].lower() + first[1:]


@dataclass(frozen=True)
class Route:
    """What the router chose: `kind` is a tool name, RECALL, REMEMBER or OTHER."""

    kind: str
    text: str  # what the model wrote (the same word; kept for the inspector)

    @property
    def is_search(self) -> bool:
        return self.kind not in (RECALL, REMEMBER, OTHER)


@dataclass(frozen=True)
class Router:
    """The routing question and its grammar, for the searches a turn may make.

    `searches` are the offered tools a route may choose (the memory tool and the recall tool are
    not searches: remembering is the capture question's, recalling is RECALL).
    """

    instructions: str = ROUTE_INSTRUCTIONS
    examples: tuple[tuple[str, str], ...] = ROUTE_EXAMPLES
    max_tokens: int = 8

    def _choices(self, searches: Sequence[dict[str, Any]]) -> str:
        choices = [f"{t['function']['name']} if the user asks you to {_purpose(t)}" for t in searches]
        choices += [f"{RECALL} if the user asks what you remember about them",
                    f"{REMEMBER} if the user only tells you something about themselves",
                    f"{OTHER} for anything else"]
        return "; ".join(choices)

    def messages(self, said: str, searches: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The routing question as a prompt of its own: the words, worked examples, the message.

        Its own prompt (like the capture question's) keeps it short and its examples out of the
        agent's prompt; everything before the message is the same on every turn, so it is cached.
        """
        shots = [(f"Can you {_purpose(t)} for me?", t["function"]["name"]) for t in searches]
        examples = [pair for i, pair in enumerate(self.examples) if i < 3] + shots + list(self.examples[3:])
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.instructions.format(
            choices=self._choices(searches))}]
        for message, word in examples:
            messages += [{"role": "user", "content": message}, {"role": "assistant", "content": word}]
        return [*messages, {"role": "user", "content": said}]

    def grammar(self, searches: Sequence[dict[str, Any]]) -> str:
        """Exactly one of the route words."""
        words = [t["function"]["name"] for t in searches] + [RECALL, REMEMBER, OTHER]
        return "%llguidance {}\nstart: " + " | ".join(json.dumps(w) for w in words) + "\n"

    def read(self, text: str, searches: Sequence[dict[str, Any]]) -> Route:
        """The route a completion names; OTHER for anything the grammar should have prevented."""
        word = text.strip()
        known = {t["function"]["name"] for t in searches} | {RECALL, REMEMBER, OTHER}
        return Route(word if word in known else OTHER, text)


DEFAULT_ROUTER = Router()


def acknowledge_saves(replies: Sequence[str], *, refusals: bool = True) -> str:
    """The answer to a turn that only told us something: what was saved and what was not, in code.

    `replies` are the memory tool's replies ("Saved (...): text", "Already saved (...): text", or
    one sentence saying why not). A refusal is said plainly, not as the tool's message; with
    `refusals=False` (a turn that asked for something else) it is left out.
    """
    kept, refused = [], 0
    for reply in replies:
        head, _, text = reply.partition("): ")
        if head.startswith(("Saved (", "Already saved (")) and text:
            kept.append(text.strip().rstrip("."))
        else:
            refused += 1
    parts = []
    if kept:
        parts.append("I'll remember that: " + "; ".join(kept) + ".")
    if refused and refusals:
        parts.append("I did not save " + ("one thing" if refused == 1 else f"{refused} things")
                     + " you said: the write policy keeps no such note.")
    return " ".join(parts) or ("Noted." if refusals else "")


__all__ = ["DEFAULT_ROUTER", "OTHER", "RECALL", "REMEMBER", "ROUTE_EXAMPLES", "ROUTE_INSTRUCTIONS", "Route", "Router",
           "acknowledge_saves"]
