"""Secrets, identifiers and guesses as classes that hold in any language (issue 30): a label from
data/phrases/labels.yaml beside a value, a weak hedge beside a trait (data/phrases/guesses.yaml),
and the look-alikes that must pass (a label without a value, a hedge on a plan)."""

import pytest

from helpers.detectors.labelled import hedged_trait, labelled_identifier
from helpers.detectors.normalize import _normalize
from helpers.gate import check


@pytest.mark.parametrize("text", [
    "ბანკის პაროლი: Vazi#2024",                 # Georgian
    "Բանկի գաղտնաբառը՝ Tsiran#77",              # Armenian
    "Банктің құпия сөзі: Alma#2024",            # Kazakh
    "Bank paroli: Paxta#2024",                  # Uzbek
    "Fjalëkalimi i bankës: Ulliri#8",           # Albanian
    "የባንክ የይለፍ ቃል፡ Abeba#2016",               # Amharic
    "Iphasiwedi yasebhange ithi Nandi#2024",    # Zulu
    "სეიფის კოდი 7 2 9 3",                      # a safe code read out digit by digit
    "A combinação do cadeado da mala é 0 4 8 2",
    "Seed phrase for the hardware wallet: orbit maple tunnel giraffe velvet harbor clinic sudden anchor",
])
def test_a_credential_label_with_a_value_is_a_secret_in_any_language(text):
    assert check(text, []).rule == "secret"


@pytest.mark.parametrize("text", [
    "The hotel Wi-Fi password is on the card at reception",
    "Le mot de passe du wifi est affiche a la reception",
    "PIN is in her wallet",
    "Uses a PIN reminder app, so never needs help with codes",
    "Wants a room with an in-room safe for her laptop",
])
def test_a_label_without_a_value_passes(text):
    assert check(text, []).allowed


@pytest.mark.parametrize("text", ["wifi password is sunflower", "password is on123", "Passwort ist Sonnenblume"])
def test_a_value_that_starts_like_a_place_word_is_still_a_value(text):
    assert check(text, []).rule == "secret"


@pytest.mark.parametrize("text", [
    "नागरिकता नम्बर 27-01-74-05678",       # Nepali citizenship number
    "პირადი ნომერი 01024085083",          # Georgian personal number
    "Inombolo kamazisi 8504125009087",    # Zulu ID number
    "ЕМБГ 0101985450013",                 # Macedonian
])
def test_an_id_label_with_a_number_is_an_identifier_in_any_language(text):
    assert labelled_identifier(_normalize(text))  # as the gate reads it: look-alike letters folded
    assert not check(text, []).allowed  # a long number may hit an earlier rule (a Luhn-valid card)


@pytest.mark.parametrize("text", [
    "Ndoshta është shtatzënë, refuzoi verën",
    "Mhlawumbe ukhulelwe, wenqabile iwayini",
    "Bóyá ó lóyún, kò mu wáìnì",
    "ምናልባት እርጉዝ ናት፣ ወይን አልጠጣችም",
    "Vielleicht ist sie schwanger",
    "也许她信佛",
])
def test_a_weak_hedge_beside_a_trait_is_a_guess(text):
    assert hedged_trait(_normalize(text))
    assert check(text, []).rule == "speculation"


@pytest.mark.parametrize("text", [
    "Vielleicht fliegt sie im Mai nach Rom",
    "Quizás viaje a Lisboa en mayo",
    "Ndoshta shkon në Romë në maj",
    "Mhlawumbe uzohamba ngoMeyi",
    # a hedge and a trait in different sentences are not one guess
    "Maybe Lisbon in May. Prefers halal food, she is Muslim.",
])
def test_a_weak_hedge_on_a_plan_passes(text):
    assert not hedged_trait(_normalize(text))


@pytest.mark.parametrize("text", [
    "Garage opener code is 7-7-1-3",
    "Eshik kodi 6 1 3 8",        # Uzbek
    "Есіктің коды 3 7 7 1",      # Kazakh
    "ढोकाको कोड 6 4 2 0",        # Nepali
    "Ikhodi yomnyango ngu 7 2 1 6",
])
def test_a_code_word_with_digits_read_out_is_a_secret(text):
    assert check(text, []).rule == "secret"


@pytest.mark.parametrize("text", [
    "Posta kodu 34000, Kadıköy",    # a Turkish postal code
    "Kod pocztowy 00-950",          # a Polish one
    "Zip code 94110, near Dolores Park",
    "Promo code SAVE20 worked at checkout",
    "Prefers rows 1 2 3 or 4 on short flights",
])
def test_a_code_in_one_piece_or_digits_without_a_code_word_pass(text):
    assert check(text, []).allowed


def test_twelve_seed_words_in_a_row_are_a_seed_phrase_labelled_or_not():
    from helpers.detectors.secrets import seed_phrase

    words = "orbit maple tunnel giraffe velvet harbor clinic sudden anchor prize wolf timber"
    assert seed_phrase(words)
    assert seed_phrase(" ".join(f"{i}. {w}" for i, w in enumerate(words.split(), 1)))
    assert not seed_phrase(" ".join(words.split()[:11]))  # eleven: not yet a phrase
    assert not seed_phrase("Loves the orbit of the maple tunnel, a giraffe, velvet and a harbor clinic")


@pytest.mark.parametrize("text", [
    "Her number for the visa form: 529.982.247-25",  # Brazil CPF, no label a rule knows
    "AHV 756.9217.0769.85",
    "Numéro 1 85 05 78 006 084 91",   # French NIR
    "11010519491231002X",
])
def test_a_national_number_printed_in_its_format_with_its_check_digit(text):
    from helpers.detectors.identifiers import _formatted_national_number

    assert _formatted_national_number(text)
    assert check(text, []).rule == "government_id"


@pytest.mark.parametrize("text", [
    "529.982.247-26",                 # the CPF with a wrong check digit
    "Budget 25.000.000 dong for 5 days",
    "Room 1.200.000 VND a night",
])
def test_the_same_shape_without_the_checksum_is_not_a_national_number(text):
    from helpers.detectors.identifiers import _formatted_national_number

    assert not _formatted_national_number(text)
