"""Stage 8 — persistence (notebook 08): a user's memory as one JSON document, and the import's checks.

Notebook 08 (persistence) teaches it. Every backend writes `export_document` and reads an import
with `parse_export`, which validates the whole document before anything is written (the write
policy is then the store's write boundary, `helpers.store_base.UserMemoryBase._admit`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from helpers.state import InvalidField, MemoryNote
from helpers.store_base import check_owner, utc

EXPORT_FORMAT = "agent-memory-notebooks/user-memory"


def import_reason(notes: int, forgotten: int = 0) -> str:
    kept_out = f"; {forgotten} notes it held were forgotten before and stay forgotten" if forgotten else ""
    return f"replaced memory with {notes} imported notes{kept_out}"


def export_document(
    tenant_id: str,
    user_id: str,
    profile: str | None,
    notes: Iterable[tuple[MemoryNote, str | None, str | None]],
    staged: Iterable[tuple[str, str]],
) -> str:
    """The export: the profile (JSON text or None), every (note, session_id, superseded_at) and
    every staged (session_id, note as JSON text)."""
    document = {
        "format": EXPORT_FORMAT,
        "version": 1,
        "tenant_id": tenant_id,
        "user_id": user_id,
        "profile": json.loads(profile) if profile is not None else None,
        "notes": [
            {**note.to_dict(), "session_id": session_id, "superseded_at": superseded_at}
            for note, session_id, superseded_at in notes
        ],
        "staged": [{"session_id": s, "note": json.loads(n)} for s, n in staged],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


@dataclass
class Imported:
    """An export document, validated and checked against the write policy, ready to write."""

    notes: list[tuple[MemoryNote, str | None, str | None]]  # note, session_id, superseded_at (UTC)
    staged: list[tuple[str, MemoryNote]]  # session_id, note
    profile: dict[str, Any] | None
    owner: tuple[str, str] | None = None  # (tenant_id, user_id) the export was taken from


def parse_export(text: str) -> Imported:
    """Validate a whole export before anything is written: ValueError if it is not one (a note
    id given twice, a field of the wrong type), InvalidField (a ValueError) for a field out of
    its limits. The write policy is the write boundary's (`UserMemoryBase._admit`)."""
    try:
        document = json.loads(text)
        if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
            raise ValueError(f"not a {EXPORT_FORMAT} document")
        if document.get("version") != 1:
            raise ValueError(f"unsupported export version {document.get('version')!r}")
        notes = []
        for item in document["notes"]:
            item = dict(item)
            session_id, superseded_at = item.pop("session_id"), item.pop("superseded_at")
            if session_id is not None and not isinstance(session_id, str):
                raise TypeError(f"a note's session_id must be a string or null, got {session_id!r}")
            superseded_utc = utc(superseded_at) if superseded_at else None
            notes.append((MemoryNote.from_dict(item), session_id, superseded_utc))
        staged = [(i["session_id"], MemoryNote.from_dict(i["note"])) for i in document["staged"]]
        if not all(isinstance(s, str) for s, _ in staged):
            raise TypeError("a staged note's session_id must be a string")
        _unique("notes", [n.id for n, _, _ in notes])
        _unique("staged notes of one session", [f"{s}\x00{n.id}" for s, n in staged])
        profile = document["profile"]
        tenant_id, user_id = document.get("tenant_id"), document.get("user_id")
        owner = (tenant_id, user_id) if isinstance(tenant_id, str) and isinstance(user_id, str) else None
        if owner is not None:
            owner = check_owner(*owner)
        if profile is not None and not isinstance(profile, dict):
            raise TypeError("the profile must be an object")
    except InvalidField as exc:
        raise InvalidField(f"cannot import: {exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"cannot import: {exc}") from exc
    return Imported(notes, staged, profile, owner)


def _unique(what: str, ids: list[str]) -> None:
    doubled = sorted({i.split("\x00")[-1] for i, count in Counter(ids).items() if count > 1})
    if doubled:
        raise ValueError(f"{what} share an id: {doubled[:5]} (an id names one note)")


__all__ = ["EXPORT_FORMAT", "Imported", "export_document", "import_reason", "parse_export"]
