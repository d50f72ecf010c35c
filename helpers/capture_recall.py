"""The capture-recall labelled set (data/capture_recall.json) and how a turn is scored against it.

Each message states two or three durable facts. A fact counts as captured when one note saved in
that turn contains any of its alternative words (case-insensitive): "Prefers aisle seats" captures
["aisle"]. Some messages add a one-off request or sensitive data (`not_durable`): a global note that
repeats it is a wrong capture. The benchmark runs the concierge on every message and sums these.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.paths import data_dir


def load_capture_set(path: Path | None = None) -> list[dict[str, Any]]:
    doc = json.loads((path or data_dir() / "capture_recall.json").read_text(encoding="utf-8"))
    return doc["messages"]


@dataclass(frozen=True)
class CaptureScore:
    captured: int  # facts of the message found in the saved notes
    facts: int  # facts the message states
    missed: list[list[str]]  # the facts not found
    wrong: list[str]  # saved global notes that repeat a not-durable sentence


def score_capture(item: dict[str, Any], saved: list[str],
                  global_saved: list[str] | None = None) -> CaptureScore:
    """Score one message: `saved` are the texts of the notes written that turn; `global_saved` the
    ones among them scoped global (default: all)."""
    lower = [s.casefold() for s in saved]
    missed = [f for f in item["facts"] if not any(w.casefold() in s for s in lower for w in f)]
    one_offs = item.get("not_durable", [])
    wrong = [s for s in (saved if global_saved is None else global_saved)
             if any(_overlap(s.casefold(), o) for o in one_offs)]
    return CaptureScore(len(item["facts"]) - len(missed), len(item["facts"]), missed, wrong)


def _overlap(note: str, sentence: str) -> bool:
    # Names and numbers of the one-off sentence: "Tokyo", "9 am", "4111".
    marks = [w.strip(".,?!") for w in sentence.split() if w[:1].isdigit() or w[:1].isupper()]
    filler = {"i", "i'd", "i'm", "this", "my", "can", "book"}
    marks = [m.casefold() for m in marks if m.casefold() not in filler]
    return any(m in note for m in marks)


__all__ = ["CaptureScore", "load_capture_set", "score_capture"]
