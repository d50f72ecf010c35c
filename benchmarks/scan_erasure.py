"""Byte scan of `forget` while another connection reads (run from the repository root):

    python benchmarks/scan_erasure.py

Per case: how long forget took, its checkpoint report (completed, attempts, WAL frames, frames
copied back) and which of the store's files (database, -wal, -shm) still hold the erased text, in
any case (the full-text index keeps words lower-cased). Then a session that had loaded the note
ends after the erasure: the text must stay gone. Last, what else holds erased words: a merged
copy of a note forgotten by id, a profile value `forget(matching=)` names, and the user id (raw
and as the hex the full-text index keys postings by) after `erase_user`. And what repeats the
erased words: a note's source (the message it came from), the reason given to `forget`, a
profile value, and an export taken before the erasure, imported after it. Last, the stored
conversations (helpers.conversations, the SDK's session tables in "m.db-conversations.db"): a
turn that said the erased note, in an earlier session, before and after a later session forgets it.
"""

import asyncio
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

import helpers.consolidation  # noqa: F401  forget's first call imports it (1-2 s): not what is timed here
from agents.models.interface import Model

from helpers.lifecycle import open_memory
from helpers.state import MemoryNote, fixed_clock
from helpers.store import MemoryStore
from helpers.write_policy import WritePolicy

SECRET = "Wants a quiet room at the Xqzorb Lodge, the hidden SECRET garden wing"


def holding(folder: Path, *words: str) -> str:
    words = words or ("xqzorb",)
    found = (p.name for p in folder.iterdir() if any(w.lower().encode() in p.read_bytes().lower() for w in words))
    return ", ".join(sorted(found)) or "none"


def run(case: str, release_after: float | None) -> None:
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    store.erase_wait = 1.0
    user = store.for_user("acme", "maya")
    user.add_notes([MemoryNote(SECRET, "2026-05-01"), MemoryNote("Prefers aisle seats", "2026-05-01")])
    reader = sqlite3.connect(folder / "m.db", isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM notes").fetchone()  # the reader's snapshot holds the text
    if release_after is not None:
        threading.Timer(release_after, lambda: reader.execute("COMMIT")).start()
    started = time.perf_counter()
    erased = user.forget(matching="xqzorb")
    c = erased.checkpoint
    print(f"{case}: erased {int(erased)} in {time.perf_counter() - started:.2f} s; checkpoint completed="
          f"{c.completed} attempts={c.attempts} frames={c.wal_frames} copied={c.copied_frames}; "
          f"text in: {holding(folder)}")
    if release_after is None:
        reader.execute("COMMIT")
        print(f"  after the reader ends: {holding(folder)}")
        user.add_notes([MemoryNote("Likes trains", "2026-05-02")])
        print(f"  after one later write: {holding(folder)}")
    time.sleep(0.4)
    print(f"  store and reader connection still open: {holding(folder)}")
    reader.close()
    store.close()


def stale_session() -> None:
    """A session loads the note, another handle forgets it, the session then commits its merge."""
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    user = store.for_user("acme", "maya")
    user.add_notes([MemoryNote(SECRET, "2026-05-01")])
    state = user.load_state()
    again = MemoryNote(SECRET + "!", "2026-06-01")
    user.stage_session_notes("s1", [again])
    erased = store.for_user("acme", "maya").forget(matching="xqzorb")
    [held] = state.global_notes  # the session folded it into the copy it captured
    held.status, held.superseded_by, again.supersedes = "superseded", again.id, held.id
    user.stage_session_notes("s1", [again])
    user.commit_consolidation("s1", [held, again])
    store.close()
    print(f"stale session: erased {int(erased)}; after it committed, text in: {holding(folder)}")


def copies_profile_and_user_id() -> None:
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    user_id = "quintessa.vrolijk@example.org"
    user = store.for_user("acme", user_id)
    user.save_profile({"name": "Maya", "allergies": ["Xqzorbnut", "latex"]})
    allergy = MemoryNote("Allergic to Xqzorbnut", "2026-05-01", kind="fact")
    user.add_notes([allergy, MemoryNote("Allergic to shellfish", "2026-05-01", kind="fact")])
    # What a consolidation merging the two leaves: a new note naming the first as its source.
    user.commit_consolidation("s1", [MemoryNote("Allergic to Xqzorbnut and shellfish", "2026-05-02",
                                                 kind="fact", supersedes=allergy.id)])
    erased = user.forget(allergy.id)
    print(f"forget(note_id) of a merged note's source: erased {int(erased)}; the merged copy in: "
          f"{holding(folder, 'xqzorbnut and shellfish')}; the word anywhere: {holding(folder, 'xqzorbnut')}")
    erased = user.forget(matching="xqzorbnut")
    print(f"forget(matching=) of a profile value: erased {int(erased)} notes; the word in: "
          f"{holding(folder, 'xqzorbnut')}")
    forms = (user_id, user_id.encode().hex())
    print(f"the user id before erase_user in: {holding(folder, *forms)}")
    user.erase_user(reason="account closed")
    store.close()
    print(f"the user id after erase_user (store closed) in: {holding(folder, *forms)}")


def sources_reasons_and_imports() -> None:
    folder = Path(tempfile.mkdtemp())
    # A policy that lets a passport number in, so there is one on disk to erase.
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"), write_policy=WritePolicy())
    user = store.for_user("acme", "maya")
    user.save_profile({"name": "Maya", "passport": "X9Q7-4411"})
    user.add_notes([MemoryNote("Has a passport on file", "2026-05-01", source_ref="chat: my passport is X9Q7-4411"),
                    MemoryNote("Prefers aisle seats", "2026-05-01")])
    backup = user.export_json()
    try:
        erased = user.forget(matching="x9q7-4411", reason="she asked: forget my passport number X9Q7-4411")
    except ValueError as refused:  # older code refused a reason that repeats what it erases
        print(f"  (the reason was refused: {refused}; erasing with the default reason)")
        erased = user.forget(matching="x9q7-4411")
    print(f"  audit reasons: {[e.reason for e in user.audit_log()]}")
    print(f"forget(matching=) of a number a note's source and the profile hold, the reason repeating it: erased "
          f"{int(erased)} notes, {len(erased.profile_fields)} profile value; the number in: {holding(folder, 'x9q7-4411')}")
    user.import_json(backup)
    print(f"an export taken before it, imported after: {user.live_note_count()} live notes; the number in: "
          f"{holding(folder, 'x9q7-4411')}")
    store.close()
    print(f"store closed: the number in: {holding(folder, 'x9q7-4411')}")


class _Echo(Model):
    """A stand-in model for the scan (no model is needed to store a turn): it answers "Noted."."""

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError

    async def get_response(self, *args, **kwargs):
        from agents.items import ModelResponse
        from agents.usage import Usage
        from openai.types.responses import ResponseOutputMessage, ResponseOutputText

        text = ResponseOutputText(type="output_text", text="Noted.", annotations=[])
        message = ResponseOutputMessage(type="message", id="m", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(requests=1), response_id=None)


async def stored_conversation() -> None:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    folder = Path(tempfile.mkdtemp())
    store = MemoryStore.open(folder / "m.db", clock=fixed_clock("2026-06-01T09:00:00Z"))
    first = open_memory(store, "acme", "maya", model=_Echo(), session_id="s1", consolidation_model=None)
    await first.run_turn("Book me the Xqzorb Lodge's garden wing, as last time.")
    await first.run_turn("And a taxi from the station.")
    print(f"stored conversation: after two turns, text in: {holding(folder)}")
    later = open_memory(store, "acme", "maya", model=_Echo(), session_id="s2", consolidation_model=None)
    started = time.perf_counter()
    await later.forget(matching="xqzorb")
    print(f"  a later session forgets it ({time.perf_counter() - started:.2f} s): text in: {holding(folder)}; "
          f"taxi turn kept in: {holding(folder, 'taxi from the station')}")
    store.close()


if __name__ == "__main__":
    run("reader ends its read 0.3 s into forget", 0.3)
    run("reader holds its read past forget's 1 s wait", None)
    stale_session()
    copies_profile_and_user_id()
    sources_reasons_and_imports()
    asyncio.run(stored_conversation())
