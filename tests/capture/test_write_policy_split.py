"""A number split across notes: no part of a card, bank or ID number reaches memory.

The write policy reads the user's other notes (session and stored, most recent first) and
refuses a note whose number, joined before or after the numbers of those notes, makes a card
number, an IBAN or an ID or account number. Ordinary numbers (dates, prices, flight numbers,
times, counts) saved side by side still pass.
"""

import pytest

from helpers import gate
from helpers.state import MemoryNote, MemoryState
from helpers.tools import capture_note
from helpers.write_policy import DEFAULT_WRITE_POLICY, MAX_OTHER_NOTES, completed_number
from tests.conftest import RULES_ALONE

# The split_number rule's own tests: the rules alone. With the probe veto on, a note of card or
# IBAN digits may be refused on its own (test_the_default_policy_refuses_a_card_split_whichever_layer_sees_it).
P = RULES_ALONE


# ---- one note alone: part of a number labelled as the card's -------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Card number starts 4929 1234",
        "Card number 5678 9012 for bookings",
        "Visa 4929 1234",
        "Her card no. 4532 0151",
        "Mastercard digits: 5425 2334",
        "Credit card begins with 4111",
    ],
)
def test_part_of_a_number_labelled_as_the_cards_is_refused_alone(text):
    assert gate.check(text).rule == "payment_card"


@pytest.mark.parametrize(
    "text",
    [
        "Has 2 credit cards",
        "Pays with the Amex for flights over 1000 AUD",
        "Card number valid until 2027",
        "Prefers debit card first for 5000 budgets",
        "Uses a Visa card on trips to 3 countries",
    ],
)
def test_card_words_beside_ordinary_numbers_pass(text):
    assert gate.check(text).allowed


# ---- across notes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # A card (Luhn-valid) in halves with no card word: the joined digits are the card.
        ("Payment digits, first part: 4532 0151", "Payment digits, second part: 1283 0366"),
        ("First half 4532 0151", "Second half 1283 0366"),
        # An IBAN (mod 97): country and bank code, then the account.
        ("IBAN starts GB29 NWBK", "IBAN continues 6016 1331 9268 19"),
        # An account number labelled in both notes.
        ("Account number begins 1234", "Account number ends 5678 9012"),
    ],
)
def test_a_note_that_completes_a_number_with_another_note_is_refused(first, second):
    assert P.check(first).allowed and P.check(second).allowed  # each alone passes
    assert P.check(second, others=[first]).rule == "split_number"
    # Saved in the other order, the pieces still join (the second half first).
    assert P.check(first, others=[second]).rule == "split_number"


def test_the_default_policy_refuses_a_card_split_whichever_layer_sees_it():
    # The probe may refuse a half card alone; if it lets the first half pass, split_number stops the second.
    first, second = "Payment digits, first part: 4532 0151", "Payment digits, second part: 1283 0366"
    if DEFAULT_WRITE_POLICY.check(first).allowed:
        assert DEFAULT_WRITE_POLICY.check(second, others=[first]).rule == "split_number"
    else:
        assert DEFAULT_WRITE_POLICY.check(first).rule == "veto"


def test_a_card_in_four_notes_is_refused_at_the_last_piece():
    pieces = ["Part one 4532", "Part two 0151", "Part three 1283", "Part four 0366"]
    assert all(P.check(p).allowed for p in pieces)
    assert P.check(pieces[3], others=pieces[:2]).allowed  # 12 digits: no card yet
    assert P.check(pieces[3], others=pieces[2::-1]).rule == "split_number"


def test_notes_given_as_memory_notes_with_keywords_count():
    other = MemoryNote(text="First half 4532 0151", observed_at="2026-11-01", keywords=["payment"])
    assert P.check("Second half 1283 0366", others=[other]).rule == "split_number"


def test_only_the_most_recent_notes_are_read():
    filler = [f"Likes hotel number {n} of the list" for n in range(MAX_OTHER_NOTES)]
    old_half = "First half 4532 0151"
    assert P.check("Second half 1283 0366", others=[*filler, old_half]).allowed
    assert P.check("Second half 1283 0366", others=[old_half, *filler]).rule == "split_number"


def test_numbers_that_are_not_pieces_of_an_account_never_join():
    saved = [
        "Flies QF 11 to Los Angeles",
        "Prefers the DL706 at 9:15 from CDG",
        "Budget 1500 AUD per night",
        "Travelling 3-17 March 2028",
        "Prefers seat 12A on the 0930 flight",
        "Family of 4, kids aged 6 and 9",
        "Loyalty status Gold since 2019",
        "Prefers rooms 1425 or 2948 at the Hilton",
        "Likes trains that leave at 10 12 or 14 hundred",
        "Pays with the Visa card for flights over 800 AUD",
        "Prefers flight numbers under 1000 on the first leg",
    ]
    for i, text in enumerate(saved):
        decision = P.check(text, others=saved[:i][::-1])
        assert decision.allowed, (text, decision.rule)


def test_capture_reads_the_users_session_and_stored_notes():
    state = MemoryState(pinned_now="2026-11-30T09:00:00Z", write_policy=P)
    state.global_notes.append(MemoryNote(text="First half 4532 0151", observed_at="2026-11-01"))
    said = "The second half is 1283 0366"
    reply = capture_note(state, "Second half 1283 0366", ["payment"], said_by_user=said)
    assert reply.startswith("Not saved") and not state.session_notes
    assert state.ledger[-1].rule == "split_number"
    # A session note counts as well.
    state = MemoryState(pinned_now="2026-11-30T09:00:00Z", write_policy=P)
    assert capture_note(state, "First half 4532 0151").startswith("Saved")
    assert capture_note(state, "Second half 1283 0366").startswith("Not saved")


def test_completed_number_is_false_without_other_notes_or_pieces():
    assert not completed_number("Second half 1283 0366", [])
    assert not completed_number("Prefers aisle seats", ["First half 4532 0151"])
