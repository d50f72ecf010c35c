"""The capture-recall labelled set: 40+ multi-fact messages, every fact said in its message."""

from helpers.capture_recall import load_capture_set, score_capture

ITEMS = load_capture_set()


def test_the_set_has_at_least_40_multi_fact_messages_with_unique_ids():
    assert len(ITEMS) >= 40
    assert all(len(item["facts"]) >= 2 for item in ITEMS)
    assert len({item["id"] for item in ITEMS}) == len(ITEMS)


def test_every_fact_is_said_in_its_message():
    for item in ITEMS:
        text = item["text"].casefold()
        for fact in item["facts"]:
            assert any(word.casefold() in text for word in fact), (item["id"], fact)
        for sentence in item.get("not_durable", []):
            assert sentence in item["text"], item["id"]


def test_scoring_counts_found_facts_and_flags_one_offs_saved_as_defaults():
    item = next(i for i in ITEMS if i["id"] == "cr01")
    assert score_capture(item, ["Is vegetarian", "Prefers aisle seats"]).captured == 2
    half = score_capture(item, ["Prefers aisle seats"])
    assert (half.captured, half.facts, half.missed) == (1, 2, [["vegetarian"]])
    assert score_capture(item, []).captured == 0
    wrong = score_capture(item, ["Is vegetarian", "Wants a flight to Tokyo"])
    assert wrong.wrong == ["Wants a flight to Tokyo"]
    assert score_capture(item, ["Wants a flight to Tokyo"], global_saved=[]).wrong == []
