"""save_memory_note: the gate in front of the run's state, in plain Python and through a real Runner."""

import pytest
from agents import Agent, Runner, set_tracing_disabled

from helpers.state import MemoryState
from helpers.tools import (capture_note, latest_user_message, normalize_keywords, save_memory_note,
                           session_sentence, ungrounded_terms)
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


def _state(**kw):
    return MemoryState(pinned_now="2026-11-30T09:00:00Z", session_id="s1", turn_index=3, **kw)


# --- plain Python --------------------------------------------------------------

def test_an_allowed_note_is_stored_with_provenance():
    state = _state()
    reply = capture_note(state, "  Prefers aisle seats on long flights ", [" Seat", "FLIGHT ", "seat", "", "aisle"])
    [note] = state.session_notes
    assert note.text == "Prefers aisle seats on long flights"
    assert note.keywords == ["seat", "flight", "aisle"]
    assert (note.kind, note.scope, note.status) == ("preference", "global", "active")
    assert note.observed_at == "2026-11-30"
    assert note.source_ref == "s1#turn3"
    assert state.global_notes == []  # promotion to global memory is consolidation's job
    assert reply.startswith("Saved (lasting; long-term after this session)") and note.text in reply
    [entry] = state.ledger
    assert (entry.allowed, entry.rule, entry.scope, entry.note_id) == (True, None, "global", note.id)


def test_session_wording_is_kept_as_a_session_note():
    state = _state()
    reply = capture_note(state, "Wants a window seat this trip", ["seat"], kind="preference")
    assert state.session_notes[0].scope == "session"
    assert "this session only" in reply


def test_a_blocked_note_is_never_stored_and_the_reason_comes_back():
    state = _state()
    text = "Pays with card 4111 1111 1111 1111"
    reply = capture_note(state, text, ["payment"])
    assert state.session_notes == [] and state.global_notes == []
    assert reply == "Not saved: looks like a payment card number. Store only the preference, never the card."
    [entry] = state.ledger
    assert (entry.allowed, entry.rule, entry.note_id) == (False, "payment_card", None)
    assert entry.text_hmac is None  # no key, no digest
    assert "4111" not in state.to_json()


def test_the_gate_sees_every_keyword_not_only_the_first_three():
    state = _state()
    reply = capture_note(state, "Prefers aisle seats", ["seat", "flight", "aisle", "maya@example.com"])
    assert reply.startswith("Not saved") and state.session_notes == []
    assert state.ledger[0].rule == "email"


def test_the_same_text_twice_gives_one_note_and_two_ledger_entries():
    state = _state()
    capture_note(state, "Prefers aisle seats", ["seat"])
    reply = capture_note(state, "prefers  aisle seats", ["seat"])
    assert len(state.session_notes) == 1
    assert reply.startswith("Already saved")
    assert [e.note_id for e in state.ledger] == [state.session_notes[0].id] * 2


def test_a_note_already_in_global_memory_is_not_saved_again():
    state = _state()
    capture_note(state, "Prefers aisle seats", ["seat"])
    state.global_notes, state.session_notes = state.session_notes, []
    assert capture_note(state, "Prefers aisle seats", ["seat"]).startswith("Already saved")
    assert state.session_notes == []


def test_kinds_are_kept_and_checked():
    state = _state()
    capture_note(state, "Has a Japan Rail Pass", ["rail"], kind="fact")
    assert state.session_notes[0].kind == "fact"
    with pytest.raises(ValueError, match="kind"):
        capture_note(state, "Likes tea", ["tea"], kind="opinion")  # type: ignore[arg-type]
    assert len(state.session_notes) == 1 and len(state.ledger) == 1  # bad input loses and adds nothing


def test_normalize_keywords():
    assert normalize_keywords(["  Hotel ", "hotel", "Budget", "", "  ", "Area", "x"]) == ["hotel", "budget", "area"]
    assert normalize_keywords(None) == []
    assert normalize_keywords(["Window  Seat"]) == ["window seat"]
    with pytest.raises(TypeError):
        normalize_keywords("hotel")
    with pytest.raises(TypeError):
        normalize_keywords([3])  # type: ignore[list-item]


# --- the SDK tool ----------------------------------------------------------------

def test_the_tool_schema_is_what_the_model_sees():
    schema = save_memory_note.params_json_schema
    assert save_memory_note.name == "save_memory_note"
    assert set(schema["properties"]) == {"text", "keywords", "kind"}  # ctx is not a model parameter
    assert schema["properties"]["kind"]["enum"] == ["fact", "preference", "event", "procedure"]
    description = save_memory_note.description
    assert "Do NOT save" in description and "one-off" in description and "guesses" in description


def _tool_outputs(call):
    return [i["output"] for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]


@pytest.mark.parametrize("note, message, session", [
    # The model dropped "this trip"; the user's sentence still has it.
    ("Prefers window seats", "Find me a flight to Tokyo. I'd like a window seat on this trip.", True),
    ("Wants a quiet room", "Just for tonight I want a quiet room!", True),
    # The note comes from a different sentence than the one-off.
    ("Is vegetarian", "I'm vegetarian. This time I want a window seat.", False),
    ("Prefers aisle seats", "I always want an aisle seat. Book me a flight to Paris today.", False),
    ("Wants vegetarian meals on all flights", "From now on, please book vegetarian meals on all my flights.", False),
    # One sentence holding both: kept for the session (the safe direction).
    ("Is vegetarian", "I'm vegetarian and this time I want a window seat.", True),
    # No topic in common with anything the user said: the note's own wording decides.
    ("Likes jazz", "For this trip only, a window seat.", False),
])
def test_session_sentence_follows_the_sentence_the_note_comes_from(note, message, session):
    assert (session_sentence(note, message) is not None) == session


def test_a_note_from_a_this_trip_sentence_is_session_scoped():
    state = _state()
    reply = capture_note(state, "Prefers window seats", ["seat"],
                         latest_message="Find me a flight. I'd like a window seat on this trip.")
    assert state.session_notes[0].scope == "session" and "this session only" in reply
    assert state.ledger[-1].scope == "session"
    # Without the user's message (a direct call), the note's own wording decides.
    assert capture_note(_state(), "Prefers window seats", ["seat"]).startswith("Saved (lasting")


def test_latest_user_message_skips_earlier_turns_and_tool_output():
    items = [{"role": "user", "content": "For this trip only, a window seat."},
             {"role": "assistant", "content": "Noted."},
             {"role": "user", "content": [{"type": "input_text", "text": "From now on, vegetarian meals."}]},
             {"type": "function_call_output", "call_id": "c1", "output": "this trip: window"}]
    assert latest_user_message(items) == "From now on, vegetarian meals."
    assert latest_user_message([]) == ""


def _agent(model):
    return Agent[MemoryState](name="concierge", instructions="Help with travel.", model=model,
                              tools=[save_memory_note])


async def test_runner_tool_call_stores_the_note():
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Prefers aisle seats", "keywords": ["Seat", "flight"],
                                                   "kind": "preference"}},
        "Noted: aisle seats.",
    ])
    state = _state()
    result = await Runner.run(_agent(model), "I always sit on the aisle.", context=state)
    assert result.final_output == "Noted: aisle seats."
    [note] = state.session_notes
    assert (note.text, note.keywords, note.scope) == ("Prefers aisle seats", ["seat", "flight"], "global")
    assert _tool_outputs(model.calls[1]) == ["Saved (lasting; long-term after this session): Prefers aisle seats"]


async def test_runner_blocked_call_is_not_stored_and_the_model_gets_the_reason():
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Passport number PA1234567", "keywords": ["passport"],
                                                   "kind": "fact"}},
        "I won't keep your passport number, but I can still book.",
    ])
    state = _state()
    await Runner.run(_agent(model), "My passport is PA1234567.", context=state)
    assert state.session_notes == []
    [output] = _tool_outputs(model.calls[1])
    assert output.startswith("Not saved: looks like a government ID number")
    assert [(e.allowed, e.rule) for e in state.ledger] == [(False, "government_id")]


async def test_runner_bad_arguments_change_nothing():
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Likes tea", "keywords": ["tea"], "kind": "opinion"}},
        "Sorry.",
    ])
    state = _state()
    await Runner.run(_agent(model), "I like tea.", context=state)
    assert state.session_notes == [] and state.ledger == []
    [output] = _tool_outputs(model.calls[1])
    assert "error" in output.lower()


async def test_runner_refuses_a_note_whose_names_the_user_never_said():
    # A web page said "the user always books with EvilAir"; the user only asked to read it.
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Always books with EvilAir", "keywords": ["airline"]}},
        "Here is what the page says.",
    ])
    state = _state()
    await Runner.run(_agent(model), "Can you read the airline page for me?", context=state)
    assert state.session_notes == []
    [output] = _tool_outputs(model.calls[1])
    assert output.startswith("Not saved: the user never said EvilAir")
    assert [(e.allowed, e.rule) for e in state.ledger] == [(False, "ungrounded")]


async def test_runner_keeps_a_note_built_from_the_users_own_words():
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Prefers Qantas for flights under 3 hours",
                                                   "keywords": ["airline"]}},
        "Noted.",
    ])
    state = _state()
    await Runner.run(_agent(model), "For flights under 3 hours I prefer qantas.", context=state)
    assert [n.text for n in state.session_notes] == ["Prefers Qantas for flights under 3 hours"]


async def test_runner_scopes_a_note_by_the_users_sentence_not_only_its_wording():
    model = ScriptedModel([
        {"tool": "save_memory_note", "arguments": {"text": "Prefers window seats", "keywords": ["seat"]}},
        "A window seat it is.",
    ])
    state = _state()
    await Runner.run(_agent(model), "Find me a flight to Tokyo. I'd like a window seat on this trip.", context=state)
    [note] = state.session_notes
    assert (note.text, note.scope) == ("Prefers window seats", "session")
    assert _tool_outputs(model.calls[1]) == ["Saved (this session only): Prefers window seats"]


def test_ungrounded_terms_looks_at_names_and_numbers_only():
    assert ungrounded_terms("Always books with EvilAir", "read this page") == ["EvilAir"]
    assert ungrounded_terms("EvilAir is the user's airline", "read this page") == ["EvilAir"]
    assert ungrounded_terms("Prefers vegetarian meals", "I'm vegetarian") == []
    assert ungrounded_terms("Keeps hotels under 250 AUD", "under 250 aud a night") == []
    assert ungrounded_terms("Keeps hotels under 300 AUD", "under 250 aud a night") == ["300"]
    # Direct calls without the user's words (notebooks, consolidation) are not grounded.
    assert capture_note(_state(), "Always books with EvilAir", ["airline"]).startswith("Saved")
