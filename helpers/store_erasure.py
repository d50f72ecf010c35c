"""Stage 8 — persistence (notebook 08): what an erasure takes, and what it tells the caller.

`plan_forget` decides what `forget` erases: the note asked for, or every note matching a word
(`helpers.caseless.loose`: any case, any accents), and every stored copy of its words
(`helpers.consolidation_claims.carries`: a near duplicate folded into it, a merged note made
from it), transitively; the notes an erased copy retired are live again. `masked_reason` keeps
an erased word out of the audit; `Erasure` and `CheckpointResult` report what happened on disk.
No SQL: both backends run this plan.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from helpers.caseless import loose
from helpers.consolidation_claims import carries, is_near_duplicate
from helpers.state import MemoryNote
from helpers.text import STOPWORDS, stem


@dataclass(frozen=True)
class CheckpointResult:
    """Whether the write-ahead log was copied back and emptied, and if not, what is pending."""

    completed: bool
    attempts: int
    wal_frames: int = 0  # frames in the WAL at the last attempt
    copied_frames: int = 0  # of those, how many are already in the database file
    pending: str = ""  # what may still be on disk, and why (empty when completed)


class Erasure(int):
    """How many notes were erased (it is that int), and what else the erasure did.

    checkpoint: whether the text is off disk, or what is still pending.
    derived: ids erased with the notes asked for because they repeat them (see `plan_forget`).
    restored: ids live again: an erased note made from them had been their only live copy.
    lost: ids among `derived` that also said something no note left in the store says.
    profile_fields: the profile values `forget(matching=)` cleared, as paths ("allergies[0]").
    """

    checkpoint: CheckpointResult
    derived: tuple[str, ...]
    restored: tuple[str, ...]
    lost: tuple[str, ...]
    profile_fields: tuple[str, ...]

    def __new__(cls, count: int, checkpoint: CheckpointResult, *, derived: Iterable[str] = (),
                restored: Iterable[str] = (), lost: Iterable[str] = (),
                profile_fields: Iterable[str] = ()) -> Erasure:
        erasure = super().__new__(cls, count)
        erasure.checkpoint = checkpoint
        erasure.derived, erasure.restored = tuple(derived), tuple(restored)
        erasure.lost, erasure.profile_fields = tuple(lost), tuple(profile_fields)
        return erasure



def keyed_audit_id(secret: bytes, note_id: str) -> str:
    """`audit_id` for every backend: HMAC of the note id under the store's secret."""
    return "erased_" + hmac.new(secret, note_id.encode(), hashlib.sha256).hexdigest()[:16]



def check_forget(note_id: str | None, matching: str | None, reason: str) -> None:
    if (note_id is None) == (matching is None):
        raise ValueError("forget needs exactly one of note_id or matching")
    if matching is not None and not matching.strip():
        raise ValueError("matching must be non-empty")


ERASED_WORD = "[erased]"
# Words a reason keeps even when an erased text has them: they say why, not what.
_WHY_WORDS = STOPWORDS | {"forget", "forgot", "erase", "erased", "delete", "deleted", "remove", "request",
                          "requested", "asked", "note", "notes", "please", "gdpr"}


def _stems(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"\w+", loose(text))} - {stem(w) for w in _WHY_WORDS}


def masked_reason(reason: str, words: Iterable[str] = (), said: Iterable[str] = ()) -> str:
    """`reason` as an audit row may keep it, since the row outlives what it erased: every run of
    it that contains one of `words` (forget's `matching`; `loose`: any case, any accents), and
    every word in it that one of the erased texts `said` also has (any case, accents or ending:
    "peanut" for "peanuts"), becomes "[erased]"; words that say why rather than what ("forget",
    "request", "the") stay. An erasure is never refused for its reason."""
    needles = [loose(w) for w in words if w.strip()]
    erased = set().union(*(_stems(t) for t in said))
    if not (needles or erased) or not reason:
        return reason
    folded, where = [], []  # `loose` one character at a time, and which character each came from
    for i, c in enumerate(reason):
        part = loose(c)
        folded.append(part)
        where += [i] * len(part)
    flat, hit = "".join(folded), [False] * len(reason)
    for needle in needles:
        start = flat.find(needle)
        while start != -1:
            for k in range(start, start + len(needle)):
                hit[where[k]] = True
            start = flat.find(needle, start + 1)
    for word in re.finditer(r"\w+", reason):  # a word goes whole, or not at all
        if any(hit[word.start():word.end()]) or (erased & _stems(word.group()) and loose(word.group()) not in _WHY_WORDS):
            hit[word.start():word.end()] = [True] * (word.end() - word.start())
    out, i = [], 0
    while i < len(reason):
        if hit[i]:
            while i < len(reason) and hit[i]:
                i += 1
            out.append(ERASED_WORD)
        else:
            out.append(reason[i])
            i += 1
    marker = re.escape(ERASED_WORD)
    return re.sub(rf"{marker}(?:[^\w\[]+{marker})+", ERASED_WORD, "".join(out))  # one marker a run


def leaves(value: Any) -> list[str]:
    """Every key and every text or number in a profile (or a part of it), as text."""
    if isinstance(value, dict):
        return [t for key, item in value.items() for t in (str(key), *leaves(item))]
    if isinstance(value, list):
        return [t for item in value for t in leaves(item)]
    return [str(value)] if isinstance(value, (str, int, float)) and not isinstance(value, bool) else []


def said_by(notes: Iterable[MemoryNote]) -> list[str]:
    """What erased notes said: text, keywords and source (which can quote the message)."""
    return [t for n in notes for t in (n.text, n.source_ref, *n.keywords) if t]


def erase_user_reason(reason: str, user_id: str, notes: int, staged: int, profiles: int,
                      said: Iterable[str] = ()) -> str:
    """The one audit row `erase_user` leaves: counts, never content. The row outlives the user,
    so the user id written as a word in `reason` becomes "[the user]" (an erasure is never
    refused for its reason; an id such as "e" inside other words is not a mention), and a word
    of what the user's memory `said` becomes "[erased]" (`masked_reason`)."""
    mention = re.compile(rf"(?<!\w){re.escape(user_id.strip())}(?!\w)", re.IGNORECASE)
    if user_id.strip():
        reason = mention.sub("[the user]", reason)
    reason = masked_reason(reason, said=said)
    return f"{reason}; erased the user: {notes} notes, {staged} staged notes, {profiles} profile"


def forget_profile_reason(reason: str, cleared: int) -> str:
    return f"{reason}; cleared {cleared} profile value(s)"


_GONE = object()


def clear_matching(value: Any, needle: str, path: str = "") -> tuple[Any, list[str]]:
    """`value` (a profile, or a part of it) without what matches `needle` (already `loose`), and
    the paths cleared. A key that matches takes its whole value ("peanut_allergy": true); a text
    or number that matches goes, from a list only that item ("allergies": ["peanuts", "latex"]
    keeps "latex"). True, False and None say nothing by themselves and are never matched."""
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        cleared: list[str] = []
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            item, inside = (_GONE, [where]) if needle in loose(str(key)) else clear_matching(item, needle, where)
            cleared += inside
            if item is not _GONE:
                kept[key] = item
        return kept, cleared
    if isinstance(value, list):
        parts = [clear_matching(item, needle, f"{path}[{i}]") for i, item in enumerate(value)]
        return [item for item, _ in parts if item is not _GONE], [p for _, inside in parts for p in inside]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and needle in loose(str(value)):
        return _GONE, [path]
    return value, []


# The audit row of the profile values a `forget` cleared keeps, as its id, this prefix and a keyed
# id of each key and value cleared (`UserMemoryBase._profile_audit_id`): never the value.
PROFILE_AUDIT = "profile:"


def without_keyed(value: Any, keyed: set[str], key_of: Any) -> Any:
    """`value` (a profile) without the keys and values whose keyed id is in `keyed`."""
    if isinstance(value, dict):
        return {k: without_keyed(v, keyed, key_of) for k, v in value.items()
                if key_of(str(k)) not in keyed and _GONE is not without_keyed(v, keyed, key_of)}
    if isinstance(value, list):
        return [without_keyed(v, keyed, key_of) for v in value if without_keyed(v, keyed, key_of) is not _GONE]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and key_of(str(value)) in keyed:
        return _GONE
    return value


@dataclass(frozen=True)
class ErasureNotice:
    """What one committed erasure took, for what keeps a user's words outside the store's tables
    (the stored conversations: `helpers.lifecycle.watch_conversations`). `words`: what
    `forget(matching=)` asked for; `texts`: what the erased notes (and profile values) said;
    `everything`: `erase_user`, so every word of the user goes."""

    tenant_id: str
    user_id: str
    words: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    everything: bool = False


@dataclass(frozen=True)
class ForgetPlan:
    """What one `forget` changes (see `plan_forget`)."""

    erase: list[str]  # ids of stored and staged notes to delete
    derived: list[str]  # of those, the ones not asked for: they repeat what was
    restore: list[str]  # superseded notes to make active again
    lost: list[str]  # derived notes that said more than the notes left in the store
    profile: dict[str, Any] | None  # the profile to store instead (None: unchanged)
    profile_fields: list[str]  # the profile paths cleared
    said: list[str] = field(default_factory=list)  # what the erased notes and profile values said
    profile_said: list[str] = field(default_factory=list)  # the profile keys and values cleared


def plan_forget(stored: list[MemoryNote], staged: list[MemoryNote], profile: dict[str, Any] | None,
                note_id: str | None, matching: str | None) -> ForgetPlan:
    """What `forget` erases, from the user's stored notes (any status), staged notes and profile.

    Asked for: the note `note_id`, or every note whose text, a keyword or its source (the
    message or document it came from, which can quote it) contains `matching` (`loose`: any
    case, any accents). Consolidation keeps a note it folded or merged into
    another as superseded, linked to it (`superseded_by` on the old note, `supersedes` on the
    new one), and the same links mark a note replaced by a newer fact. A linked note is a copy
    when it says everything the other says (`consolidation_claims.carries`), so:
    - with `note_id`, every near duplicate of it, linked or not (the same fact said again,
      stored or staged), goes with it;
    - every later note that carries an erased one is erased too, transitively (a duplicate
      folded into it, a merged note made from it): no stored copy of the words is left;
    - with `note_id`, the earlier notes it carries are erased too: forgetting a merged note
      forgets what it was made from, not only its wording;
    - a newer note that replaced the forgotten one ("Lives in Sydney" after "Lives in Brisbane")
      is not a copy and stays; an older note the forgotten one replaced stays superseded;
    - a note merged into an erased copy alongside the forgotten one ("Allergic to shellfish",
      merged with "Allergic to peanuts") is live again if the erased note was its live copy;
      an erased copy that also said something no remaining note says is listed in `lost`;
    - with `matching`, profile keys and values that contain it are cleared (`clear_matching`).
    """
    by_id = {n.id: n for n in [*staged, *stored]}  # a note both staged and stored: the stored copy
    if note_id is not None:
        asked = {note_id} & by_id.keys()
        copies = {n.id for i in asked for n in by_id.values() if is_near_duplicate(n.text, by_id[i].text)}
    else:
        assert matching is not None
        needle = loose(matching)
        asked = {n.id for n in by_id.values()
                 if any(needle in loose(t) for t in (n.text, n.source_ref, *n.keywords))}
    later: dict[str, set[str]] = {}
    earlier: dict[str, set[str]] = {}
    for n in by_id.values():
        for old, new in ((n.id, n.superseded_by), (n.supersedes, n.id)):
            if old in by_id and new in by_id and old != new:
                later.setdefault(old, set()).add(new)
                earlier.setdefault(new, set()).add(old)

    def spread(start: set[str], links: dict[str, set[str]], copy: Any) -> set[str]:
        found, todo = set(start), list(start)
        while todo:
            i = todo.pop()
            for j in links.get(i, ()):
                if j not in found and copy(by_id[i].text, by_id[j].text):
                    found.add(j)
                    todo.append(j)
        return found

    seeds = asked if note_id is None else spread(asked | copies, earlier, carries)
    erase = spread(seeds, later, lambda old, new: carries(new, old))
    restore = sorted(n.id for n in stored if n.id not in erase and n.status == "superseded"
                     and n.superseded_by in erase and by_id[n.superseded_by].status == "active"
                     and carries(by_id[n.superseded_by].text, n.text))
    lost = sorted(i for i in erase - seeds
                  if not carries(" ".join(by_id[j].text for j in earlier.get(i, ())), by_id[i].text))
    cleared: list[str] = []
    profile_said: list[str] = []
    if matching is not None and profile is not None:
        before = leaves(profile)
        profile, cleared = clear_matching(profile, loose(matching))
        after = leaves(profile)
        profile_said = [t for t in before if t not in after]
    return ForgetPlan(sorted(erase), sorted(erase - asked), restore, lost, profile if cleared else None,
                      cleared, said_by(by_id[i] for i in sorted(erase)) + profile_said, profile_said)


__all__ = [
    "CheckpointResult",
    "ERASED_WORD",
    "Erasure",
    "ErasureNotice",
    "ForgetPlan",
    "PROFILE_AUDIT",
    "check_forget",
    "clear_matching",
    "erase_user_reason",
    "forget_profile_reason",
    "keyed_audit_id",
    "leaves",
    "masked_reason",
    "plan_forget",
    "said_by",
    "without_keyed",
]
