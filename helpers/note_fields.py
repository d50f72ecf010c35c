"""Stage 1 — the state object (notebook 01): what a memory note's fields may hold.

The kinds, scopes, statuses and sensitivities a note can have, and the error for a field memory
cannot hold. Below both `helpers.state` (which builds notes from them) and `helpers.write_policy`
(which checks a candidate note's kind and text), so neither has to import the other's module
to know them.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["fact", "preference", "event", "procedure"]
Scope = Literal["global", "session"]
Status = Literal["active", "superseded", "expired", "deleted"]
Sensitivity = Literal["public", "internal", "personal", "restricted"]


class InvalidField(ValueError):
    """A field that memory cannot hold: not text, too long, too deep, not valid Unicode (a lone
    surrogate), or a list of keywords given as one string. Raised before anything is checked or
    written; the message names the field and the limit. A ValueError, so `except ValueError` sees it."""


def valid_unicode(name: str, value: str) -> str:
    """`value` if UTF-8 can encode it; InvalidField for a lone surrogate ("\\ud800", which a JSON
    decoder lets through), never a raw UnicodeEncodeError from deep inside a write."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidField(
            f"{name} is not valid Unicode text: a lone surrogate at character {exc.start}") from None
    return value


__all__ = ["InvalidField", "Kind", "Scope", "Sensitivity", "Status", "valid_unicode"]
