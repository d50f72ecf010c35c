"""Random plans, as a model could return them, over a fixed pool of notes: whatever the plan,
consolidation loses nothing (every input note is still there, word for word, and every retired
note leads to a live one) and invents nothing (every note it wrote is backed by its sources)."""

import asyncio

from agents import set_tracing_disabled
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.consolidation import deterministic_merge, merge_notes, notes_for_model, unsupported_claims
from helpers.state import MemoryNote, fixed_clock
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)
CLOCK = fixed_clock("2026-11-30T09:00:00Z")

GLOBAL = [
    MemoryNote("Lives in Brisbane", "2025-11-02", ["home"], kind="fact"),
    MemoryNote("Usually prefers an aisle seat on flights", "2026-03-14", ["seat"]),
    MemoryNote("Keeps the nightly hotel budget under 250 AUD", "2026-08-07", ["hotel"]),
    MemoryNote("Is allergic to peanuts", "2026-02-01", ["peanuts"], kind="fact"),
    MemoryNote("Prefers hotels near the station", "2026-11-29", ["hotel"], expires_at="2026-12-02"),
]
SESSION = [
    MemoryNote("Moved to Melbourne", "2026-11-30", ["home"], kind="fact"),
    MemoryNote("Likes the aisle seat", "2026-11-30", ["seat"]),
    MemoryNote("Hotel budget under 300 AUD a night", "2026-11-30", ["hotel"]),
    MemoryNote("Likes peanut butter cookies", "2026-11-30", ["peanuts"]),
    MemoryNote("Prefers quiet hotels", "2026-11-30", ["hotel"], expires_at="2026-11-30T09:00:00Z"),
]
_merged, _report = deterministic_merge(GLOBAL, SESSION, clock=CLOCK)
SHOWN = [n.id for n in notes_for_model(_merged, _report, clock=CLOCK)]  # what the model is asked about
HIDDEN = [n.id for n in GLOBAL + SESSION if n.id not in SHOWN] + ["mem_ghost"]
IDS = SHOWN + [""]
WORDS = sorted({w for n in GLOBAL + SESSION for w in n.text.split()} | {"not", "only", "Sydney", "2026-05-12"})


# Mostly ids the model was shown; now and then one it was not (an expired note, a ghost).
some_id = st.integers(0, 39).flatmap(lambda k: st.sampled_from(HIDDEN if k == 0 else SHOWN))


def _decision(note_id, action, other):
    return {"id": note_id, "action": action, "other_id": other if action in ("supersede", "conflict") else "",
            "reason": "r"}


decisions = st.lists(st.builds(_decision, some_id, st.sampled_from(["keep", "merge", "supersede", "conflict"]),
                               some_id), max_size=10)
# Written notes: words of the notes (and a few that are not), in any order.
written = st.lists(st.fixed_dictionaries({
    "text": st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join),
    "keywords": st.just([]), "kind": st.just("preference"),
    "source_ids": st.lists(some_id, min_size=1, max_size=3)}), max_size=3)


def plans():
    # Most plans decide every shown note once, else they are refused at the first check.
    def complete(pair):
        ds, notes = pair
        ds = [d for d in {d["id"]: d for d in ds}.values() if d["other_id"] != d["id"]]
        seen = {d["id"] for d in ds}
        return {"decisions": ds + [{"id": i, "action": "keep", "other_id": "", "reason": "r"}
                                   for i in SHOWN if i not in seen], "notes": notes}
    partial = st.tuples(decisions, written).map(lambda p: {"decisions": p[0], "notes": p[1]})
    full = st.tuples(decisions, written).map(complete)
    return st.one_of(partial, full, full, full, full, full)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans())
def test_no_plan_loses_or_invents(plan):
    # A plan naming notes the model was not shown is refused; the rest are judged on their merits.
    notes, report = asyncio.run(merge_notes(GLOBAL, SESSION, ScriptedModel([{"json": plan}]), clock=CLOCK))
    by_id = {n.id: n for n in notes}
    for original in GLOBAL + SESSION:
        decision = report.decisions[original.id]
        if decision.outcome in ("dropped_session", "blocked"):
            continue
        kept = by_id[original.id]
        assert kept.text == original.text
        # Nothing live before ends up with no live successor: a retired note leads to a live one.
        if original.is_live(CLOCK):
            current, hops = kept, 0
            while current.status == "superseded":
                current, hops = by_id[current.superseded_by], hops + 1
                assert hops <= len(notes)
            assert current.is_live(CLOCK), (original.text, report.summary())
    for note_id in report.created:
        new = by_id[note_id]
        sources = [n.text for n in notes if n.superseded_by == note_id]
        assert sources and unsupported_claims(new.text, sources) == [], (new.text, sources)
    assert not any(n.is_live(CLOCK) and n.is_expired(CLOCK) for n in notes)
