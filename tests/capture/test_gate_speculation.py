"""Speculation: a hedged inference about the user (a state of the person the writer guesses) is
refused; the user's own hedged plans and ordinary notes that share its words pass.

Decided here: a note is about the user, in the third person, so a hedge in it is the writer's
unless the sentence is in the first person. A hedge on a *state of the person* ("might be
vegetarian", "seems keen on Japan", "must be a nervous flyer") is a guess and is refused. A modal
hedge on an *action* ("Might go to Rome in May", "May travel with her sister in June") is the
user's tentative plan and passes: a plan is what she said she may do, not what someone inferred
she is. (Adverb hedges, "probably", "maybe", stay refused in a third-person sentence: a model's
rewrite of the user's "I'll probably ..." should keep her words, "Plans to go to Rome, not sure
yet".) Written for the rule, not taken from any held-out set.
"""

import pytest

from helpers import gate

SPECULATION = [
    # A modal hedge on a state, with or without a subject.
    "Might be vegetarian",
    "May have a nut allergy",
    "Could be a nervous flyer",
    "She might well be pregnant",
    "Must have been upset about the delay",
    # Perception verbs used as inference.
    "Seems vegetarian",
    "Appears keen on Japan",
    "Sounds like a foodie",
    "Looks like a business traveller",
    "She seems quite anxious about flying",
    "Appears to be travelling on a company card",
    # The writer's guess, with or without "I".
    "Think she is gluten intolerant",
    "Suspect he has a fear of heights",
    "Guessing she prefers quiet rooms",
    "My guess: a frequent flyer",
    "Gut feeling: she dislikes cruises",
    "Hunch that he likes whisky",
    "Chances are she travels with kids",
    "Odds are he flies business",
    "Unlikely to want a hostel",
    "Surely loves Paris",
    "In all likelihood a vegetarian",
    "Vegetarian (unconfirmed)",
    "Allergic to shellfish, unverified",
    "Reportedly afraid of flying",
    "Allegedly a Qantas Platinum member",
    "Presumably travels for work",
    "Under the impression she is retired",
    "Must be wealthy, given the suites she books",
]

ALLOWED = [
    # The user's own hedged plans: an action, not a state of the person.
    "Might go to Rome in May",
    "May travel with her sister in June",
    "Could fly business if the fare drops",
    "Might be going to Japan next spring",
    "Might be in Tokyo in May",
    # Ordinary notes with the same words.
    "Open to layovers that might be long if much cheaper",
    "Looks for hotels with a rooftop pool",
    "Looks forward to the Kyoto trip every autumn",
    "Appears on the Qantas Platinum list as a lifetime member",
    "Wants a room that looks like the photos",
    "Thinks hostels are too noisy",
    "Believes travel insurance is worth it",
    "Must have an aisle seat on long flights",
    "Meals must be vegetarian",
    "Hotel must be near the beach",
    "Likes impressionist museums",
    "Travel dates to be confirmed",
    "I'd probably pick a beach over a city break",
    "Sure she wants her usual room? Asked once, she said yes",
    "Guest house over chain hotel",
    "Prefers sounds of nature to city noise at night",
    "Wants to hear about fare drops whenever they appear",
]


@pytest.mark.parametrize("text", SPECULATION)
def test_a_hedged_inference_about_the_user_is_refused(text):
    assert gate.check(text).rule == "speculation", (text, gate.check(text).rule)


@pytest.mark.parametrize("text", ALLOWED)
def test_plans_and_ordinary_notes_pass(text):
    decision = gate.check(text)
    assert decision.allowed, (text, decision.rule)
