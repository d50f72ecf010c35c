"""The stemmer: the forms of one word meet, and different words stay apart."""

import pytest

from helpers.words import stem, topic_words


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
