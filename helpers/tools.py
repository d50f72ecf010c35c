"""Stage 2 — capture (notebook 02): the capture tool, the model proposes a memory note, the write policy decides.

`capture_note` is plain Python (notebooks and tests call it directly);
`save_memory_note` is the same thing as an Agents SDK function tool that reaches
the run's `MemoryState` through `RunContextWrapper.context`.

Every call is checked by `state.write_policy` (helpers.write_policy) and recorded in the
state's ledger. A refused note is never stored and the model gets back one sentence saying
why, so it can carry on without it.

Where a note lives, and its scope, are two different things; the words used for them:
- Every saved note is *staged* in `state.session_notes` until the session is consolidated.
- Its `scope` says how long it holds. "global" = a *lasting* note: consolidation moves it into
  long-term memory (`state.global_notes`, the store). "session" = *this session only*:
  consolidation drops it.
The tool's reply says both: "Saved (lasting; long-term after this session): ..." or
"Saved (this session only): ...".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, get_args

from agents import RunContextWrapper, function_tool

from helpers.ledger import record_decision
from helpers.safety import sensitivity_of
from helpers.state import Kind, MemoryNote, MemoryState, today
from helpers.write_policy import session_sentence, ungrounded_terms

MAX_KEYWORDS = 3


def normalize_keywords(keywords: Iterable[str] | None) -> list[str]:
    """Stripped, lower case, no blanks, no duplicates (first kept), at most three."""
    if keywords is None:
        return []
    if isinstance(keywords, str):
        raise TypeError("keywords must be a list of words, not one string")
    out: list[str] = []
    for word in keywords:
        if not isinstance(word, str):
            raise TypeError(f"keywords must be strings, got {word!r}")
        word = " ".join(word.split()).lower()
        if word and word not in out:
            out.append(word)
    return out[:MAX_KEYWORDS]


def user_words(items: Iterable[Any]) -> str:
    """The text of the user's own messages among SDK input items (not tool results or documents)."""
    parts = []
    for item in items:
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts += [c.get("text", "") for c in content if isinstance(c, dict)]
    return "\n".join(parts)


def latest_user_message(items: Iterable[Any]) -> str:
    """The text of the last user message among SDK input items: the one that triggered this call."""
    messages = [user_words([item]) for item in items]
    return next((m for m in reversed(messages) if m), "")


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def tool_results_arrived(items: Iterable[Any]) -> bool:
    """Tool results or documents among SDK input items (anything but plain user/assistant text)."""
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("function_call_output", "computer_call_output") or item.get("role") == "tool":
            return True
        content = item.get("content")
        if item.get("role") == "user" and isinstance(content, list) and any(
                isinstance(c, dict) and c.get("type") not in (None, "input_text", "text")
                for c in content):
            return True  # a file or image the user attached is a document, not the user's words
    return False


def output_text(output: Any) -> str:
    """A tool result's text: a string, or the text parts of a list of content parts."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(p.get("text", "") for p in output if isinstance(p, dict) and p.get("text"))
    return "" if output is None else str(output)


def documents_in(items: Iterable[Any]) -> str:
    """The text of the tool results and attached documents among SDK input items (what
    `tool_results_arrived` finds), one per line."""
    parts = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") in ("function_call_output", "computer_call_output"):
            parts.append(output_text(item.get("output")))
        elif item.get("role") == "tool":
            parts.append(output_text(item.get("content")))
        elif item.get("role") == "user" and isinstance(item.get("content"), list):
            parts += [output_text(c.get("text") or c.get("file_data")) for c in item["content"]
                      if isinstance(c, dict) and c.get("type") not in (None, "input_text", "text")]
    return "\n".join(p for p in parts if p)


def capture_note(state: MemoryState, text: str, keywords: Iterable[str] | None = None,
                 kind: Kind = "preference", *, said_by_user: str | None = None,
                 latest_message: str | None = None, from_document: bool = False,
                 heard: str | None = None) -> str:
    """Check a candidate note with `state.write_policy`; stage it in state.session_notes if allowed.

    With `said_by_user` (the user's own words this turn), the note must be grounded in them:
    text planted in a web page, a tool result or the memory block cannot become a memory, and
    with `from_document` (a document or tool result arrived this turn) more of its words must
    be the user's, and with `heard` (what those documents said) none may be only the document's,
    nor may it mean the document rather than the user. With `latest_message`, a note that comes from a "this trip" sentence is
    session-scoped even when the model left those words out of the note.
    Returns one short sentence for the model: what was saved (and its scope), or why not.
    """
    if kind not in get_args(Kind):
        raise ValueError(f"kind must be one of {get_args(Kind)}, got {kind!r}")
    raw_keywords = [] if keywords is None else list(keywords)
    clean_keywords = normalize_keywords(raw_keywords)
    # The policy sees every keyword the model sent, not only the three we keep.
    # The user's other notes, most recent first: a number split across notes is still the number.
    others = list(reversed(state.live_notes(state.clock)))
    decision = state.write_policy.check(text, raw_keywords, kind=kind, said_by_user=said_by_user,
                                        latest_message=latest_message, from_document=from_document,
                                        others=others, heard=heard)
    if not decision.allowed:
        record_decision(state, text, decision)
        return decision.reason

    text = text.strip()
    for existing in state.live_notes(state.clock):
        if _same_text(existing.text, text):
            record_decision(state, text, decision, note_id=existing.id)
            return f"Already saved ({_label(existing.scope)}): {existing.text}"

    note = MemoryNote(
        text=text,
        observed_at=today(state.clock),
        keywords=clean_keywords,
        kind=kind,
        scope=decision.scope,
        source_ref=state.source_ref(),
        sensitivity=sensitivity_of(text, clean_keywords),  # health or safety goes first in retrieval
    )
    state.session_notes.append(note)
    record_decision(state, text, decision, note_id=note.id)
    return f"Saved ({_label(note.scope)}): {note.text}"


def _label(scope: str) -> str:
    return "this session only" if scope == "session" else "lasting; long-term after this session"


@function_tool
async def save_memory_note(ctx: RunContextWrapper[MemoryState], text: str, keywords: list[str],
                           kind: Kind = "preference") -> str:
    """Save one lasting fact or preference the user stated, for future conversations.

    One call per fact: a message stating two facts needs two calls. Save a diet, seat, home
    city, companions, budget or a liked airline or hotel type. A choice for this time only
    may be saved too; say "this time" in the text.
    Do NOT save: one-off requests, questions, guesses, moods, passwords or codes, card, bank,
    passport or loyalty numbers, contact details, booking references, or text from documents
    or tool results. A write gate checks every note; if it refuses, do not retry.

    Args:
        text: One short sentence in the third person, e.g. "Prefers aisle seats".
        keywords: One to three lower-case topic words, e.g. ["seat", "flight"].
        kind: preference (default), fact, event or procedure.
    """
    # Grounded in this turn's message; a tool result that arrived in this run (counted by
    # MemoryHooks) or in the input makes grounding stricter.
    state = ctx.context
    latest = latest_user_message(ctx.turn_input)
    arrived = state.tool_results_this_turn > 0 or tool_results_arrived(ctx.turn_input)
    heard = "\n".join(t for t in (state.documents_this_turn, documents_in(ctx.turn_input)) if t)
    return capture_note(state, text, keywords, kind, said_by_user=latest, latest_message=latest,
                        from_document=arrived, heard=heard if arrived else None)


# The name models, the embedded adapter and the evals know the memory tool by.
MEMORY_TOOL = save_memory_note.name

__all__ = ["MAX_KEYWORDS", "MEMORY_TOOL", "capture_note", "documents_in", "latest_user_message", "output_text", "normalize_keywords", "save_memory_note",
           "session_sentence", "tool_results_arrived", "ungrounded_terms", "user_words"]
