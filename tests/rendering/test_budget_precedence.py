"""Under a tight budget the notes dropped must not break "the newest note wins within a list":
a newer note is never dropped while an older note it contradicts (same attribute, another
value) stays. Before, confidence ranked above recency, so a confident old "aisle" outlived the
newer, less confident "window"; and a retrieval score could do the same."""

from helpers.budget import fit_notes
from helpers.state import MemoryNote, fixed_clock

CLOCK = fixed_clock("2026-12-01T12:00:00Z")


def lines(text):
    return len(text.splitlines())


def test_a_confident_old_note_does_not_outlive_a_newer_one_it_contradicts():
    old = MemoryNote("Books the window seat on every flight", "2025-02-14", ["seat"], confidence=1.0)
    new = MemoryNote("Books the aisle seat on every flight", "2026-10-09", ["seat"], confidence=0.7)
    kept, dropped = fit_notes([new, old], 1, lines)
    assert kept == [new] and [d.note for d in dropped] == [old]


def test_a_higher_score_does_not_keep_an_older_contradicted_note_either():
    old = MemoryNote("Home base is Canberra", "2025-06-01", ["home"])
    new = MemoryNote("Relocated to Geelong", "2026-09-30", ["home"])
    scores = {old.id: 0.9, new.id: 0.2}
    kept, _ = fit_notes([new, old], 1, lines, value=lambda n: scores[n.id])
    assert kept == [new]


def test_notes_that_do_not_contradict_keep_the_value_order():
    # Confidence still decides between unrelated notes: the guess goes first.
    guess = MemoryNote("Maybe enjoys opera", "2026-11-20", ["music"], confidence=0.4)
    sure = MemoryNote("Prefers hotels near a tram stop", "2025-03-03", ["hotel"])
    kept, dropped = fit_notes([guess, sure], 1, lines)
    assert kept == [sure] and [d.note for d in dropped] == [guess]


def test_different_circumstances_are_not_a_contradiction():
    trains = MemoryNote("Prefers window seats on long trips", "2025-01-01", ["seat"])
    default = MemoryNote("Prefers aisle seats", "2026-11-01", ["seat"], confidence=0.5)
    kept, _ = fit_notes([default, trains], 1, lines)
    assert kept == [trains]  # not rivals: the value order stands


def test_a_session_note_and_a_global_note_are_different_lists():
    # Session beats global by precedence already; the guard works within one list.
    old_session = MemoryNote("Wants an aisle seat this time", "2026-11-30", ["seat"], scope="session")
    newer_global = MemoryNote("Prefers window seats", "2026-12-01", ["seat"])
    kept, _ = fit_notes([newer_global, old_session], 1, lines)
    assert kept == [old_session]
