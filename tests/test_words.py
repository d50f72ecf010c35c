"""The stemmer: the forms of one word meet, and different words stay apart."""

import pytest

from helpers.words import repeats_message, stem, topic_words


@pytest.mark.parametrize("forms", [
    ("live", "lives", "living", "lived"),
    ("fly", "flies", "flying"),
    ("city", "cities"),
    ("study", "studies", "studied", "studying"),
    ("movie", "movies"),
    ("prefer", "prefers", "preferred", "preferring"),
])
def test_the_forms_of_a_word_meet(forms):
    assert len({stem(w) for w in forms}) == 1, {w: stem(w) for w in forms}


@pytest.mark.parametrize("a, b", [("play", "plan"), ("stay", "star"), ("fly", "flu"), ("day", "dairy")])
def test_different_words_stay_apart(a, b):
    assert stem(a) != stem(b)


def test_a_note_and_the_message_it_came_from_share_their_topic():
    assert topic_words("Always flies with Qantas") <= topic_words("I always fly with Qantas when I can.")


@pytest.mark.parametrize("answer, message, echo", [
    ("I've moved to Melbourne; it's my home city from now on.",
     "I've moved to Melbourne; it's my home city from now on.", True),
    ("You said you always fly with Qantas when you can, noted.", "I always fly with Qantas when I can.", False),
    ("I always fly with Qantas when I can.", "I always fly with Qantas when I can.", True),
    ("Hi there", "Hi there", True),
    ("3 flights from Sydney to Melbourne next Friday, cheapest first: JQ476 at 120 AUD with 4 aisle seats left.",
     "Find me flights from Sydney to Melbourne next Friday.", False),
    ("Flights from Sydney to Melbourne next Friday.", "Find me flights from Sydney to Melbourne next Friday.", True),
    ("", "Hello", False),
    ("The cheapest fare to Perth is 129 AUD with Jetstar.",
     "Please read https://deals.example/perth and tell me the cheapest fare to Perth.", False),
    ("You like to fly with Qantas.", "Which airline do I like to fly with?", False),
    ("Вы любите Qantas", "Я люблю летать Qantas", False),
    ("Je déménage à Lyon dès lundi.", "Je déménage à Lyon dès lundi.", True),
    ("Vous déménagez à Lyon, c'est noté.", "Je déménage à Lyon dès lundi.", False),
    ("Yes, you have a trip coming up that you know about.", "Do I have a trip coming up that you know about?", True),
    ("Yes, you fly to Osaka on 20 December.", "Do I have a trip coming up that you know about?", False),
    ("Sure.", "Can you find me a hotel?", False),
])
def test_an_echo_is_an_answer_made_mostly_of_the_message(answer, message, echo):
    assert repeats_message(answer, message) is echo
