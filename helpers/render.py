"""Stage 3 — rendering (notebook 03): the state as text a model can read.

The profile becomes YAML frontmatter; memory notes become Markdown lists in which
every line shows the note's date, so a policy that says "the newest note wins" can
actually be followed. Whatever wrote them, note texts, keywords and profile keys and
values are shown through `inline`: one line each, with tag-like `<` escaped, so no
stored text can close a prompt section, open a forged one, or start a forged list line. Only live notes are rendered: expired, superseded and deleted
notes never reach a prompt, nor does a note dated after now until its date comes. `select_notes` also says which notes were left out and
why, so the prompt inspector can show it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC
from typing import Any, NamedTuple

import yaml

from helpers.state import Clock, MemoryNote, parse_time, recency

# Why a note did not reach the prompt (the budget adds "over budget").
EXPIRED = "expired"
SUPERSEDED = "superseded"
DELETED = "deleted"
FILTERED = "filtered by keyword"
BEYOND_TOP_K = "beyond top-k"
OVER_BUDGET = "over budget"
# Older than a note of the same list that gives the same attribute another value (a filter left
# that newer note out): it takes this note's place, so the prompt never shows only the stale value.
CONTRADICTED = "a newer note gives another value"
# Observed after the clock's now (a skewed clock, a typo, a forged import): kept, shown from its date on.
DATED_AFTER_NOW = "dated after now"

NONE_LINE = "- (none)"


class LeftOut(NamedTuple):
    note: MemoryNote
    reason: str


class Selection(NamedTuple):
    """The notes to render (newest first) and the notes left out, each with its reason."""

    kept: list[MemoryNote]
    left_out: list[LeftOut]


# Line breaks of every kind, and other control characters (tab aside).
_BREAKS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]+")
# "<" that could start a tag, a comment or a chat-template token: "</global_memory>", "<|im_start|>".
_TAG_START = re.compile(r"<(?=\s*[/!?|A-Za-z_])")


def inline(text: str) -> str:
    """Stored text as it may appear in a prompt: on one line, and unable to open or close a tag."""
    return _TAG_START.sub("&lt;", _BREAKS.sub(" ", text)).strip()


def _inline_data(value: Any) -> Any:
    if isinstance(value, str):
        return inline(value)
    if isinstance(value, dict):
        return {_inline_data(k): _inline_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_inline_data(v) for v in value]
    return value


def render_frontmatter(profile: dict[str, Any]) -> str:
    """The profile as a YAML frontmatter block between `---` lines, keys in their given order.

    Keys and values go through `inline`, and YAML never wraps them, so one value is one line:
    nothing in the profile can end the frontmatter or a prompt section early.
    """
    if not isinstance(profile, dict):
        raise TypeError(f"the profile must be a dict, got {type(profile).__name__}")
    try:
        body = yaml.safe_dump(_inline_data(profile), sort_keys=False, allow_unicode=True,
                              width=float("inf")).strip()
    except yaml.YAMLError as err:
        # Name the offending type, not its repr: a memory address would make the message differ each run.
        bad = err.args[1] if len(err.args) > 1 else None
        what = f"a value of type {type(bad).__name__}" if bad is not None else "a value"
        raise ValueError(f"the profile holds {what}, which YAML cannot show as plain data") from None
    return f"---\n{body}\n---"


def note_date(note: MemoryNote) -> str:
    """The calendar day (UTC) a note was observed, e.g. "2026-03-14".

    In UTC, the zone the notes are ordered in: "2026-03-15T01:00:00+10:00" is 14 March, so the
    dates shown never disagree with the newest-first order ("the newest note wins")."""
    return parse_time(note.observed_at).astimezone(UTC).date().isoformat()


def render_note_line(note: MemoryNote) -> str:
    """One Markdown list line: "- [2026-03-14] Usually prefers an aisle seat on flights (seat, flight)"."""
    line = f"- [{note_date(note)}] {inline(note.text)}"
    if note.keywords:
        line += f" ({', '.join(inline(k) for k in note.keywords)})"
    return line


def format_notes(notes: Iterable[MemoryNote]) -> str:
    """Already-selected notes as a Markdown list, in the given order; "- (none)" when empty."""
    lines = [render_note_line(n) for n in notes]
    return "\n".join(lines) if lines else NONE_LINE


def matches_keywords(note: MemoryNote, keywords: Iterable[str]) -> bool:
    """True when any keyword is one of the note's keywords or a whole word of its text (any case)."""
    own = {k.casefold() for k in note.keywords}
    words = set(re.findall(r"\w+", note.text.casefold()))
    return any(k.casefold() in own or k.casefold() in words for k in keywords)


def _why_not_live(note: MemoryNote, clock: Clock) -> str | None:
    if note.status == "deleted":
        return DELETED
    if note.status == "superseded":
        return SUPERSEDED
    if note.status == "expired" or note.is_expired(clock):
        return EXPIRED
    if note.is_dated_after_now(clock):
        # It would read as the newest note and win by recency: not shown until its date comes.
        return DATED_AFTER_NOW
    return None


def select_notes(notes: Iterable[MemoryNote], clock: Clock, *, k: int | None = None,
                 keywords: Iterable[str] | None = None) -> Selection:
    """Live notes, newest first, filtered by keyword (any match keeps a note), then the top k.

    Every note that is not kept appears in `left_out` with the first reason that applies:
    deleted / superseded / expired / dated after now, then "filtered by keyword", then "beyond top-k".
    """
    if k is not None and k < 0:
        raise ValueError(f"k must be a non-negative number of notes, got {k!r}")
    keywords = list(keywords) if keywords else []
    # sorted() is stable: notes observed at the same instant keep their stored order.
    newest_first = sorted(notes, key=lambda n: recency(n, clock), reverse=True)
    from helpers.attributes import contradicts  # late: attributes reads the catalogue

    kept: list[MemoryNote] = []
    left_out: list[LeftOut] = []
    for note in newest_first:
        reason = _why_not_live(note, clock)
        if reason is None and keywords and not matches_keywords(note, keywords):
            reason = FILTERED
        if reason is None and keywords:
            # "Prefers aisle seats" matches "seat"; the newer "Now wants the window" does not: shown
            # alone, the stale value would read as the current one. The newer note takes its place.
            newer = next((x for x in left_out if x.reason == FILTERED and contradicts(x.note, note)), None)
            if newer is not None:
                left_out.remove(newer)
                left_out.append(LeftOut(note, CONTRADICTED))
                note = newer.note
        if reason is None and k is not None and len(kept) >= k:
            reason = BEYOND_TOP_K
        if reason is None:
            kept.append(note)
        else:
            left_out.append(LeftOut(note, reason))
    kept.sort(key=lambda n: recency(n, clock), reverse=True)  # a note that took an older one's place
    return Selection(kept, left_out)


def render_notes(notes: Iterable[MemoryNote], clock: Clock, *, k: int | None = None,
                 keywords: Iterable[str] | None = None, heading: str | None = None) -> str:
    """Live notes as a dated Markdown list, newest first, optionally under a heading line."""
    text = format_notes(select_notes(notes, clock, k=k, keywords=keywords).kept)
    return f"{heading}\n{text}" if heading else text


__all__ = [
    "BEYOND_TOP_K", "CONTRADICTED", "DATED_AFTER_NOW", "DELETED", "EXPIRED", "FILTERED", "LeftOut", "NONE_LINE", "OVER_BUDGET", "SUPERSEDED",
    "Selection", "format_notes", "inline", "matches_keywords", "note_date", "render_frontmatter", "render_note_line",
    "render_notes", "select_notes",
]
