"""Stage 2 — capture (notebook 02): the ledger, every write decision, allowed or refused, never the text.

The capture tool (helpers.tools) records each decision of the write policy in `state.ledger`: when,
allowed or not, the rule that refused, the scope, and a keyed digest of the text (`text_hmac`)
that lets repeated attempts be matched without letting anyone test a guessed text. A check that
failed and fell back to the rules (the veto's timeout) is recorded too (`fallback`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterable

from helpers.gate import GateDecision
from helpers.state import LedgerEntry, MemoryState


def text_hmac(text: str, key: bytes | None) -> str | None:
    """HMAC-SHA256 of the text under a secret key; None without a key.

    An unkeyed hash of "My PIN is 4821" gives the PIN back in 10,000 guesses; without the key,
    a keyed digest confirms nothing. With it, the same attempt twice still matches.
    """
    if key is None:
        return None
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def record_decision(state: MemoryState, text: str, decision: GateDecision,
                    note_id: str | None = None) -> LedgerEntry:
    """Append one decision to state.ledger: a keyed digest (state.ledger_key), never the text."""
    entry = LedgerEntry(
        at=state.clock().isoformat(),
        allowed=decision.allowed,
        rule=decision.rule,
        scope=decision.scope,
        text_hmac=text_hmac(text, state.ledger_key),
        note_id=note_id,
        fallback=decision.fallback,
    )
    state.ledger.append(entry)
    return entry


def blocked_write_rate(ledger: Iterable[LedgerEntry]) -> float:
    """Share of write attempts the gate blocked; 0.0 when nothing was attempted."""
    entries = list(ledger)
    return sum(not e.allowed for e in entries) / len(entries) if entries else 0.0


def ledger_summary(ledger: Iterable[LedgerEntry]) -> dict[str, int]:
    """Counts by outcome: "allowed" plus one key per blocking rule id."""
    return dict(Counter("allowed" if e.allowed else str(e.rule) for e in ledger))


__all__ = ["blocked_write_rate", "ledger_summary", "record_decision", "text_hmac"]
