"""Issue 25's formats the gate missed, each as a class a reader would use to slip a value past."""

import itertools

import pytest

from helpers.detectors.obfuscated import unmasked
from helpers.detectors.spelled import dates_in_digits
from helpers.gate import check

CARD = ["4111", "1111", "1111", "1111"]


@pytest.mark.parametrize("sep", [",", ", ", "+", " + ", ";", ":", ")(", "] [", "_", " / "])
def test_card_digits_split_by_any_mark_are_a_card(sep):
    text = f"Card {sep.join(CARD)}"
    assert check(text).rule == "payment_card", text
    bracketed = "".join(f"({g})" for g in CARD)
    assert check(f"Pay with {bracketed}").rule == "payment_card"


def test_card_digits_one_per_space_are_a_card():
    assert check(" ".join("".join(CARD))).rule == "payment_card"


@pytest.mark.parametrize("text", ["Budget 1,200 AUD, 3 nights, 2 adults", "Flights at 10:30, 11:45 and 14:20",
                                  "Rows 12; 14; 16 are fine", "Her locker at the gym is 221"])
def test_ordinary_numbers_still_pass(text):
    assert check(text).allowed, check(text)


@pytest.mark.parametrize("iban", ["GB82 WEST 1234 5698 7654 32", "DE89 3704 0044 0532 0130 00"])
def test_an_iban_in_lower_case_without_its_label(iban):
    assert check(f"Pays rent to {iban.lower()}").rule == "iban"
    assert check(f"Pays rent to {iban.lower().replace(' ', '')}").allowed is False


LABELS = ["p@ssw0rd", "pa$$word", "pass-word", "p a s s w o r d", "P.A.S.S.W.O.R.D", "passw0rd"]


@pytest.mark.parametrize("label, verb", list(itertools.product(LABELS, [" is", ":", " ="])))
def test_an_obfuscated_password_label_is_read_plainly(label, verb):
    assert check(f"Her {label}{verb} hunter22").rule == "secret"


def test_unmasking_folds_only_the_label():
    is_label = {"password"}.__contains__
    assert unmasked("p@ssw0rd is hunter22", is_label) == "password is hunter22"
    assert unmasked("Likes l33t speak and H2O", is_label) == "Likes l33t speak and H2O"


@pytest.mark.parametrize("text", ["Luggage lock combination 4-7-1-9", "Suitcase lock is 472",
                                  "Key box code 3391", "The key safe: 1234", "TSA lock 0-0-7",
                                  "Padlock combo 2580", "Her bike lock code is 5151"])
def test_lock_and_key_box_combinations_are_secrets(text):
    assert check(text).rule == "secret", text


@pytest.mark.parametrize("text", ["Booking ref QF-XK7P2L", "Booking reference LH/XK7P2L",
                                  "Reservation code VA 9QX2LM"])
def test_booking_references_with_a_carrier_prefix(text):
    assert check(text).rule == "booking_reference", text


@pytest.mark.parametrize("text", ["Born on the fourth of July nineteen eighty-five",
                                  "Date of birth: twelfth of March 1990",
                                  "Born on the twenty-first of June two thousand and three"])
def test_a_date_of_birth_in_words(text):
    assert check(text).rule == "date_of_birth", text


def test_dates_in_words_become_digits_and_other_words_stay():
    assert dates_in_digits("the fourth of July nineteen eighty-five") == "the 4th of July 1985"
    assert dates_in_digits("Prefers the second flight") == "Prefers the 2th flight"
    assert check("Prefers the second flight of the day").allowed


def test_aadhaar_numbers_use_the_verhoeff_checksum_from_python_stdnum():
    # 991393919010 is Verhoeff-valid; the old hand-written table (last row 7046913285) said it was
    # not, and said 614988852782 was.
    assert check("Her number 9913 9391 9010").rule == "government_id"
    assert check("Her number 6149 8885 2782").allowed
