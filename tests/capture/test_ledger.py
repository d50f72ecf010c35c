"""The ledger: every decision, never the text, and no digest a guess can be tested against."""

import hashlib
import hmac

import pytest

from helpers.gate import check
from helpers.ledger import blocked_write_rate, ledger_summary, record_decision, text_hmac
from helpers.state import LedgerEntry, MemoryState
from helpers.tools import capture_note


def _state(**kw):
    return MemoryState(pinned_now="2026-11-30T09:00:00Z", **kw)


def test_without_a_key_the_ledger_keeps_no_digest_at_all():
    state = _state()
    secret = "My PIN is 4821"
    entry = record_decision(state, secret, check(secret))
    assert entry == LedgerEntry(
        at="2026-11-30T09:00:00+00:00",
        allowed=False,
        rule="secret",
        scope="global",
        text_hmac=None,
        note_id=None,
    )
    assert "4821" not in state.to_json()


def test_an_unkeyed_guess_cannot_recover_a_pin_from_the_ledger():
    # The attack: hash every PIN and compare. With a keyed digest no guess matches.
    state = _state(ledger_key=b"per-store secret")
    entry = record_decision(state, "My PIN is 4821", check("My PIN is 4821"))
    guesses = {hashlib.sha256(f"My PIN is {n:04d}".encode()).hexdigest() for n in range(10_000)}
    assert entry.text_hmac not in guesses
    assert (
        entry.text_hmac
        == hmac.new(b"per-store secret", b"My PIN is 4821", hashlib.sha256).hexdigest()
    )
    # Without the key a wrong key proves nothing either.
    assert all(
        text_hmac(f"My PIN is {n:04d}", b"other key") != entry.text_hmac for n in range(10_000)
    )


def test_the_same_attempt_twice_still_matches_under_one_key():
    state = _state(ledger_key=b"k")
    for _ in range(2):
        capture_note(state, "Pays with card 4111 1111 1111 1111", ["payment"])
    assert state.ledger[0].text_hmac == state.ledger[1].text_hmac is not None


def test_the_key_is_never_serialized():
    state = _state(ledger_key=b"super secret key")
    record_decision(state, "CVV 123", check("CVV 123"))
    text = state.to_json()
    assert "super secret" not in text and "ledger_key" not in text and "write_policy" not in text
    again = MemoryState.from_json(text)
    assert again.ledger == state.ledger and again.ledger_key is None


def test_an_old_ledger_drops_its_reversible_sha256():
    old = {
        "ledger": [
            {
                "at": "2026-11-30T09:00:00+00:00",
                "allowed": False,
                "rule": "secret",
                "scope": "global",
                "text_sha256": hashlib.sha256(b"My PIN is 4821").hexdigest(),
                "note_id": None,
            }
        ]
    }
    [entry] = MemoryState.from_dict(old).ledger
    assert entry.text_hmac is None and entry.rule == "secret"


def test_record_decision_keeps_the_note_id_of_an_allowed_write():
    state = _state()
    entry = record_decision(state, "Prefers aisle", check("Prefers aisle"), note_id="mem_1")
    assert (entry.allowed, entry.rule, entry.note_id) == (True, None, "mem_1")


def test_blocked_write_rate_and_summary():
    state = _state()
    assert blocked_write_rate(state.ledger) == 0.0
    for text in ["Prefers aisle", "CVV 123", "Probably likes tea", "Window this time", "CVV 456"]:
        record_decision(state, text, check(text))
    assert blocked_write_rate(state.ledger) == pytest.approx(3 / 5)
    assert ledger_summary(state.ledger) == {"allowed": 2, "cvv": 2, "speculation": 1}


def test_ledger_survives_a_json_round_trip():
    state = _state()
    record_decision(state, "CVV 123", check("CVV 123"))
    again = MemoryState.from_json(state.to_json())
    assert again.ledger == state.ledger
    assert blocked_write_rate(again.ledger) == 1.0
