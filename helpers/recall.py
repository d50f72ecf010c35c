"""Stage 5 — the memory policy (notebook 05): a question about memory answered from the notes (`recall_notes`).

Taught in notebook 05 (and routed to in 00). "What seat do I usually like?" is answered by quoting
the live notes that share a topic word with the question, newest first, with their dates, so the
answer can never state a preference that no note holds. The tool returns a `Recall`; the
concierge's answer is composed from it in code (`helpers.answers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents import RunContextWrapper, function_tool

from helpers.state import MemoryNote, MemoryState
from helpers.text import topic_words

MAX_RECALLED = 4
# Words of a question about memory itself, not about a topic: "What do you remember about me?"
# asks for every note, so no note can fail to match it.
ABOUT_MEMORY = frozenset(topic_words("what which else do you remember know recall about me"))


@dataclass(frozen=True)
class Recall:
    """The notes that answer a question (matched), or every live note when none shares a topic."""

    question: str
    notes: tuple[MemoryNote, ...]
    matched: bool

    def __str__(self) -> str:  # what a model reads as the tool's result
        if not self.notes:
            return "No notes are remembered."
        head = "Notes on that:" if self.matched else "No note is about that. All notes:"
        return "\n".join([head] + [f"- [{n.scope}, {n.observed_at}] {n.text}" for n in self.notes])


def recall(state: MemoryState, question: str, limit: int = MAX_RECALLED) -> Recall:
    """The live notes sharing a topic word with `question`, session notes first, newest first
    (a question with no topic, "What do you remember about me?", gets them all)."""
    live = [n for n in state.live_notes(state.clock, "session")] + state.live_notes(state.clock, "global")
    live.sort(key=lambda n: (n.scope != "session", _newest_first(n)))
    asked = topic_words(question) - ABOUT_MEMORY
    if not asked:  # a question about everything remembered: every note answers it
        return Recall(question, tuple(live[:limit]), bool(live))
    matched = [n for n in live if asked & (topic_words(n.text) | topic_words(" ".join(n.keywords)))]
    return Recall(question, tuple((matched or live)[:limit]), bool(matched))


def _newest_first(note: MemoryNote) -> str:
    # ISO dates sort as text; inverting each character's code sorts newest first.
    return "".join(chr(0x10FFFF - ord(c)) for c in str(note.observed_at))


@function_tool
def recall_notes(ctx: RunContextWrapper[Any], question: str) -> Recall:
    """Answer a question about what you remember about the user, from the memory notes.

    Args:
        question: The user's question, e.g. "What seat do I usually like?".
    """
    return recall(ctx.context, question)


RECALL_TOOL = recall_notes.name

__all__ = ["MAX_RECALLED", "RECALL_TOOL", "Recall", "recall", "recall_notes"]
