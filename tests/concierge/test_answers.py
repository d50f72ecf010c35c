"""Answers composed in code: recall_notes quoting the notes (helpers.recall) and a search's rows (helpers.answers)."""


from datetime import datetime

from helpers.answers import compose_recall
from helpers.recall import recall
from helpers.state import MemoryNote, MemoryState

NOW = "2026-12-01T09:00:00Z"


def state(*texts_and_days, session=()):
    s = MemoryState(pinned_now=NOW)
    s.global_notes = [MemoryNote.from_dict({"text": t, "observed_at": d, "scope": "global"}) for t, d in texts_and_days]
    s.session_notes = [MemoryNote.from_dict({"text": t, "observed_at": "2026-12-01", "scope": "session"})
                       for t in session]
    return s


MAYA = state(("Usually prefers an aisle seat on flights", "2026-03-14"), ("Is vegetarian", "2026-04-02"),
             ("Keeps the nightly hotel budget under 250 AUD", "2026-08-07"))


def test_a_topic_question_quotes_the_notes_on_that_topic_only():
    found = recall(MAYA, "What seat do I usually like?")
    assert found.matched and [n.text for n in found.notes] == ["Usually prefers an aisle seat on flights"]
    assert compose_recall(found).startswith("From your notes: Usually prefers an aisle seat")


def test_a_question_about_everything_remembered_gets_every_note_newest_first_not_a_miss():
    for question in ("What do you remember about me?", "What do you know about me?"):
        found = recall(MAYA, question)
        assert found.matched, question
        assert [n.observed_at[:10] for n in found.notes] == ["2026-08-07", "2026-04-02", "2026-03-14"]
        assert "No note is about that" not in compose_recall(found)


def test_a_question_no_note_answers_says_so_and_lists_what_is_remembered():
    found = recall(MAYA, "Do I have a dog?")
    assert not found.matched and len(found.notes) == 3
    assert compose_recall(found).startswith("No note is about that. What I remember:")
    assert compose_recall(recall(MemoryState(pinned_now=NOW), "What do you know about me?")) == \
        "I have no notes about you yet."


def test_session_notes_come_first():
    found = recall(state(("Usually prefers an aisle seat", "2026-03-14"), session=["Wants a window seat this trip"]),
                   "Which seat am I getting on this trip?")
    assert [n.scope for n in found.notes] == ["session", "global"]


def test_a_search_with_one_row_says_found_one_not_best_of_one():
    from helpers.answers import compose_search
    from helpers.travel import run_search

    one = run_search("search_flights", {"origin": "SYD", "destination": "Osaka", "date": "2 December"},
                     today=datetime(2026, 12, 1).date())
    assert len(one.rows) == 1, one.text
    assert compose_search(one).startswith("Found 1 flight SYD -> KIX") and "Best of" not in compose_search(one)


async def test_a_search_with_no_place_beside_a_save_is_nobodys_request_and_the_answer_is_the_save():
    from agents import Agent, Runner

    from helpers.answers import answer_from_results
    from helpers.concierge import default_tools
    from helpers.tools import save_memory_note
    from tests.scripted_model import ScriptedModel

    def turn(steps, message):
        agent = Agent(name="c", model=ScriptedModel(steps), tools=default_tools(),
                      tool_use_behavior=answer_from_results)
        return Runner.run(agent, message, context=state(("Usually prefers an aisle seat", "2026-03-14")))

    save = {"tool": save_memory_note.name, "arguments": {"text": "Wants a window seat this trip", "keywords": ["seat"]}}
    search = {"tool": "search_flights", "arguments": {"destination": "LIS", "date": "2026-10"}}
    told = await turn([[save, search]], "For this trip only, I'd like a window seat.")
    assert told.final_output.startswith("I'll remember that: Wants a window seat this trip")
    assert "destination" not in told.final_output
    # Asked for a flight with no place and nothing said to keep: the answer says what is missing.
    asked = await turn([search], "Find me a flight please.")
    assert asked.final_output == "I need an origin to search; none was given or remembered."


def test_a_value_the_model_proposed_and_nothing_supports_is_not_named_in_the_answer():
    """The filler drops an airline nobody asked for; the answer must not name it (no result gave it)."""
    from dataclasses import replace

    from helpers.answers import compose_search
    from helpers.travel import run_search

    found = run_search("search_flights", {"origin": "SYD", "destination": "Perth", "date": "4 December"},
                       today=datetime(2026, 12, 1).date())
    assert found.rows, found.text
    answer = compose_search(replace(found, dropped={"airline": "Air New Zealand"}))
    assert "Air New Zealand" not in answer and answer.startswith("Best of")
