"""The write gate against a labelled corpus (data/gate_corpus.json) and generated cases."""

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.detectors import payment
from helpers.gate import RULES, check, luhn_valid
from helpers.paths import data_dir

CASES = json.loads((data_dir() / "gate_corpus.json").read_text(encoding="utf-8"))["cases"]
MUST_BLOCK = [c for c in CASES if not c["allowed"]]
MUST_ALLOW = [c for c in CASES if c["allowed"]]


def _id(case):
    return case["text"][:50] or "<empty>"


def test_corpus_is_big_enough_and_covers_every_rule():
    assert len(MUST_BLOCK) >= 35 and len(MUST_ALLOW) >= 35
    assert {c["rule"] for c in MUST_BLOCK} == {r.id for r in RULES}
    assert all(c["rule"] is None and c["scope"] in ("global", "session") for c in MUST_ALLOW)


@pytest.mark.parametrize("case", MUST_BLOCK, ids=_id)
def test_blocks(case):
    decision = check(case["text"], case.get("keywords"))
    assert not decision.allowed
    assert decision.rule == case["rule"]
    assert decision.reason.startswith("Not saved:")


@pytest.mark.parametrize("case", MUST_ALLOW, ids=_id)
def test_allows(case):
    decision = check(case["text"], case.get("keywords"))
    assert (decision.allowed, decision.rule) == (True, None)
    assert decision.scope == case["scope"]


def corpus_errors() -> Counter:
    """The two numbers the issue asks for: wrongly blocked and wrongly allowed."""
    errors = Counter(blocked_that_should_pass=0, passed_that_should_be_blocked=0)
    for case in CASES:
        allowed = check(case["text"], case.get("keywords")).allowed
        if case["allowed"] and not allowed:
            errors["blocked_that_should_pass"] += 1
        if not case["allowed"] and allowed:
            errors["passed_that_should_be_blocked"] += 1
    return errors


def test_corpus_error_counts_are_zero():
    assert corpus_errors() == {"blocked_that_should_pass": 0, "passed_that_should_be_blocked": 0}


def test_the_luhn_check_is_what_separates_cards_from_other_numbers(monkeypatch):
    # Without the checksum every card-shaped digit run looks like a card.
    text = "Ref list 4111 1111 1111 1112 for flights"
    assert check(text).rule != "payment_card"
    monkeypatch.setattr(payment, "luhn_valid", lambda digits: True)
    assert check(text).rule == "payment_card"


# ---------------------------------------------------------------------------
# Generated cases
# ---------------------------------------------------------------------------

BENIGN_TEMPLATES = [
    "Keeps the nightly hotel budget under {price} {cur}",
    "Prefers return flights under {cur} {price}",
    "Only flights departing after {hour}am",
    "Prefers departures between {hh}:{mm} and {hh2}:{mm}",
    "Prefers row {row} or further forward",
    "Travels with {count} kids",
    "Keeps layovers under {count} hours",
    "Wants at least {minutes} minutes for connections",
    "Likes {airline}{flight} when flying to London",
    "Prefers {airline} {flight} on Fridays",
    "Needs {count} checked bags of {kg} kg",
    "Likes seat {row}{letter} on long flights",
    "Travelling {day}-{day2} December {year}",
    "Prefers hotels rated {count}.{digit} or higher",
    "Budget around ${thousands},{hundreds} per trip",
]

benign_fields = st.fixed_dictionaries({
    "price": st.integers(1, 99_999).map(str),
    "cur": st.sampled_from(["AUD", "USD", "EUR", "GBP", "JPY"]),
    "hour": st.integers(1, 12).map(str),
    "hh": st.integers(0, 23).map(lambda h: f"{h:02d}"),
    "hh2": st.integers(0, 23).map(lambda h: f"{h:02d}"),
    "mm": st.sampled_from(["00", "15", "30", "45"]),
    "row": st.integers(1, 60).map(str),
    "count": st.integers(1, 9).map(str),
    "minutes": st.integers(10, 240).map(str),
    "airline": st.sampled_from(["QF", "UA", "VA", "SQ", "BA", "NH"]),
    "flight": st.integers(1, 9999).map(str),
    "kg": st.integers(5, 32).map(str),
    "letter": st.sampled_from("ABCDEFHJK"),
    "day": st.integers(1, 15).map(str),
    "day2": st.integers(16, 31).map(str),
    "year": st.integers(2024, 2030).map(str),
    "digit": st.integers(0, 9).map(str),
    "thousands": st.integers(1, 99).map(str),
    "hundreds": st.integers(0, 999).map(lambda n: f"{n:03d}"),
})


@settings(max_examples=300, deadline=None)
@given(template=st.sampled_from(BENIGN_TEMPLATES), fields=benign_fields)
def test_benign_preferences_with_numbers_pass(template, fields):
    text = template.format(**fields)
    decision = check(text)
    assert decision.allowed, (text, decision.rule)
    assert decision.scope == "global"


CARRIERS = [  # sentences a sensitive value might hide in
    "Prefers aisle seats, {value}",
    "{value} is what she uses for hotel bookings",
    "Keeps the hotel budget under 250 AUD ({value})",
    "For flights after 9am use {value}",
]


def _luhn_complete(body: str) -> str:
    """Append the check digit that makes body Luhn-valid."""
    return next(body + d for d in "0123456789" if luhn_valid(body + d))


@st.composite
def card_numbers(draw):
    prefix, length = draw(st.sampled_from([("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("34", 15),
                                           ("37", 15), ("6011", 16), ("35", 16), ("4", 13), ("62", 19)]))
    body = prefix + "".join(draw(st.lists(st.sampled_from("0123456789"), min_size=length - len(prefix) - 1,
                                          max_size=length - len(prefix) - 1)))
    digits = _luhn_complete(body)
    sep = draw(st.sampled_from(["", " ", "-"]))
    if len(digits) == 15:
        groups = [digits[:4], digits[4:10], digits[10:]]  # Amex style 4-6-5
    else:
        groups = [digits[i:i + 4] for i in range(0, len(digits), 4)]
    return sep.join(groups)


ssns = st.tuples(st.integers(1, 899), st.integers(1, 99), st.integers(1, 9999), st.sampled_from(["-", " "])).map(
    lambda t: f"{t[0]:03d}{t[3]}{t[1]:02d}{t[3]}{t[2]:04d}")

emails = st.tuples(
    st.from_regex(r"[a-z][a-z0-9._+]{0,15}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
    st.sampled_from(["com", "com.au", "co.uk", "org", "io", "net"]),
).map(lambda t: f"{t[0]}@{t[1]}.{t[2]}")

_d = st.integers(0, 9).map(str)


def _digits(n):
    return st.lists(_d, min_size=n, max_size=n).map("".join)


phones = st.one_of(
    st.tuples(_digits(3), _digits(3), _digits(4)).map(lambda t: f"+1 {t[0]}-{t[1]}-{t[2]}"),
    st.tuples(_digits(3), _digits(3), _digits(4)).map(lambda t: f"({t[0]}) {t[1]}-{t[2]}"),
    st.tuples(_digits(3), _digits(3), _digits(4)).map(lambda t: f"{t[0]}-{t[1]}-{t[2]}"),
    st.tuples(_digits(3), _digits(3), _digits(4)).map(lambda t: f"{t[0]}.{t[1]}.{t[2]}"),
    st.tuples(_digits(2), _digits(3), _digits(3)).map(lambda t: f"+61 4{t[0]} {t[1]} {t[2]}"),
    st.tuples(_digits(2), _digits(3), _digits(3)).map(lambda t: f"04{t[0]} {t[1]} {t[2]}"),
    st.tuples(_digits(4), _digits(4)).map(lambda t: f"+44 20 {t[0]} {t[1]}"),
    st.tuples(_digits(4), _digits(4)).map(lambda t: f"020 {t[0]} {t[1]}"),
    st.tuples(_digits(4), _digits(4)).map(lambda t: f"(02) {t[0]} {t[1]}"),
)


@pytest.mark.parametrize("kind, values, rule", [
    ("card", card_numbers(), "payment_card"),
    ("ssn", ssns, "government_id"),
    ("email", emails, "email"),
    ("phone", phones, "phone"),
], ids=["card", "ssn", "email", "phone"])
def test_sensitive_values_in_benign_sentences_are_blocked(kind, values, rule):
    @settings(max_examples=150, deadline=None)
    @given(carrier=st.sampled_from(CARRIERS), value=values)
    def run(carrier, value):
        decision = check(carrier.format(value=value))
        assert not decision.allowed, carrier.format(value=value)
        assert decision.rule == rule, (carrier.format(value=value), decision.rule)

    run()


@settings(max_examples=200, deadline=None)
@given(value=card_numbers())
def test_a_card_number_with_one_wrong_digit_is_not_a_card(value):
    # Changing the last digit breaks the checksum, so the rule must not call it a card.
    last = value[-1]
    broken = value[:-1] + str((int(last) + 1) % 10)
    assert check(f"Ref list {broken} for flights").rule != "payment_card"


# ---------------------------------------------------------------------------
# The generated corpus (benchmarks/build_gate_corpus.py): thresholds per category
# ---------------------------------------------------------------------------

def test_generated_corpus_is_labelled_with_sources_and_licences():
    from helpers.gate_eval import load_corpus

    path = data_dir() / "gate_corpus_generated.json"
    generated = json.loads(path.read_text(encoding="utf-8"))["cases"]
    assert len(load_corpus()) >= 1000
    assert sum(c["expected"] == "allow" for c in generated) >= 400
    for case in generated:
        assert {"text", "keywords", "expected", "category", "source", "licence"} <= case.keys()
        assert case["expected"] == "allow" or case["expected"] in {r.id for r in RULES}


def test_recall_and_false_blocks_per_category():
    from helpers.gate_eval import load_corpus, score

    scores = score(load_corpus())
    low_recall = {c: s.recall for c, s in scores.items()
                  if s.recall is not None and s.recall < 0.95}
    false_blocks = {c: s.false_block_rate for c, s in scores.items()
                    if s.false_block_rate is not None and s.false_block_rate > 0.01}
    assert low_recall == {} and false_blocks == {}
    blocks = [s for s in scores.values() if s.should_block]
    assert sum(s.blocked for s in blocks) / sum(s.should_block for s in blocks) >= 0.98
