"""Stage 5 — the memory policy (notebook 05): answers composed in code from what the tools returned.

Taught in notebook 05, used by every concierge (the SDK's `tool_use_behavior`). A 1.5B model
writing prose about structured results invents hotels, prices and flights; code does not. So a
turn that searched or recalled ends with `answer_from_results`: the best rows as the catalogue
wrote them, what was searched, which values came from memory (the filler's explanations), what
the catalogue could not check, a repair it made, or one plain sentence on why nothing was
searched. A turn whose tools only saved notes goes back to the model (the answer comes from it);
one that saved notes and proposed a search with no place at all ("For this trip only, a window
seat") is answered with what was saved: the search was nobody's request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agents import RunContextWrapper
from agents.agent import ToolsToFinalOutputResult
from agents.tool import FunctionToolResult

from helpers.llm.router import acknowledge_saves
from helpers.recall import Recall
from helpers.tools import MEMORY_TOOL
from helpers.travel import SearchOutcome

SHOWN_ALSO = 2  # rows after the best one
NOT_FROM_MEMORY = frozenset({"message", "model"})  # other sources are a note id or "profile.<field>"


def _rows_and_head(text: str) -> tuple[str, list[str]]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    rows = [line[2:] for line in lines if line.startswith("- ")]
    head = next((line for line in lines if line.endswith(":") and not line.startswith("- ")), "")
    return head.rstrip(":"), rows


def memory_line(outcome: SearchOutcome) -> str | None:
    """Which searched values came from memory, with the note that supplied each."""
    used = [outcome.explanations.get(name) or f"{name} {value}" for name, value in outcome.arguments.items()
            if outcome.sources.get(name) not in NOT_FROM_MEMORY and name in outcome.sources]
    return ("From memory: " + "; ".join(used) + ".") if used else None


def compose_search(outcome: SearchOutcome) -> str:
    """One search's answer: the best row, a couple more, what was searched, memory, limits."""
    parts = [f"I searched for {asked!r} as {used}." for asked, used in outcome.repairs.values()]
    if outcome.problem:
        return " ".join([*parts, outcome.problem])
    head, rows = _rows_and_head(outcome.text)
    if not rows:
        parts.append(" ".join(line.strip() for line in outcome.text.splitlines()
                              if line.strip() and not line.startswith("No data on")))
    elif len(rows) == 1 and (one := re.sub(r"^1 (flight|hotel|restaurant)s\b", r"1 \1", head)) != head:
        parts.append(f"Found {one}: {rows[0]}.")
    else:
        parts.append(f"Best of {head}: {rows[0]}.")
        if len(rows) > 1:
            parts.append("Also: " + "; ".join(rows[1:1 + SHOWN_ALSO]) + ".")
    if (line := memory_line(outcome)) is not None:
        parts.append(line)
    # `outcome.dropped` (values the model proposed that no message or note supports) stays out of
    # the answer: naming them would show the user an airline or place nobody asked for and no
    # result gave. The inspector lists them.
    if outcome.unchecked:
        parts.append(f"The catalogue has no data on {', '.join(outcome.unchecked)}, so that was not checked.")
    return "\n".join(parts)


def compose_recall(recall: Recall) -> str:
    """A question about memory, answered by quoting the notes, with their dates."""
    if not recall.notes:
        return "I have no notes about you yet."
    quoted = "; ".join(f"{note.text.rstrip('.')} ({'this session' if note.scope == 'session' else 'noted'} "
                       f"{str(note.observed_at)[:10]})" for note in recall.notes)
    if recall.matched:
        return f"From your notes: {quoted}."
    return f"No note is about that. What I remember: {quoted}."


def compose(results: Sequence[Any]) -> str | None:
    """The answer for these tool outputs, or None when none is a search or a recall."""
    parts = [compose_search(r) if isinstance(r, SearchOutcome) else compose_recall(r)
             for r in results if isinstance(r, (SearchOutcome, Recall))]
    return "\n\n".join(parts) if parts else None


def answer_from_results(context: RunContextWrapper[Any],
                        results: list[FunctionToolResult]) -> ToolsToFinalOutputResult:
    """`tool_use_behavior` for the concierge: a search or a recall ends the turn with a composed answer."""
    saves = [str(r.output) for r in results if r.tool.name == MEMORY_TOOL]
    outputs = [r.output for r in results]
    searches = [o for o in outputs if isinstance(o, SearchOutcome)]
    if saves and searches and all(o.missing for o in searches):
        # A turn that told us something, with a search that had no place to go: nobody asked for it.
        outputs = [o for o in outputs if not isinstance(o, SearchOutcome)]
        if not any(isinstance(o, Recall) for o in outputs):
            return ToolsToFinalOutputResult(is_final_output=True, final_output=acknowledge_saves(saves))
    text = compose(outputs)
    if text is None:
        return ToolsToFinalOutputResult(is_final_output=False)
    if saves and (noted := acknowledge_saves(saves, refusals=False)):
        text += "\n\n" + noted
    return ToolsToFinalOutputResult(is_final_output=True, final_output=text)


__all__ = ["answer_from_results", "compose", "compose_recall", "compose_search", "memory_line"]
