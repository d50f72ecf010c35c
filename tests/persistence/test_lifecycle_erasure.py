"""Erasure reaches everything an open session holds: its history, a compaction summary, the
prompts kept for the inspector, the turn results; and every store change reaches the session."""

from agents import set_tracing_disabled

from helpers.hooks import PromptCapture
from helpers.lifecycle import open_memory
from tests.history_items import reply, user
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


def save(text, keywords=("seat",), kind="preference"):
    return {"tool": "save_memory_note", "arguments": {"text": text, "keywords": list(keywords), "kind": kind}}


def said(capture):
    """Everything the last captured call was sent, lower-cased."""
    last = capture.calls[-1]
    return (last.system_prompt + str(last.input_items)).lower()


async def test_a_message_sent_in_parts_is_read_as_the_model_reads_it(store):
    # The SDK may send a message as several text parts; the model reads them joined as they are.
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Sure."]), consolidation_model=None)
    await session.session.add_items([
        {"role": "user", "content": [{"type": "input_text", "text": "My partner is Alex Sm"},
                                     {"type": "input_text", "text": "ithers, book us together."}]},
        reply("Noted."),
        user("Hello"), reply("Hi!"),
    ])
    await session.forget(matching="Alex Smithers")
    items = await session.session.get_items()
    assert "ithers" not in str(items) and "Hello" in str(items)


SUMMARY = {
    "objective": "Plan a stay in Lisbon",
    "confirmed_facts": [
        {"fact": "Alex, the user's partner, travels with them on every trip", "source": "user, turn 1"},
        {"fact": "Wants the Hotel Lisboa", "source": "user, turn 2"},
    ],
    "decisions": ["Stay at the Hotel Lisboa"],
    "completed_work": ["Booked the Hotel Lisboa"],
    "open_work": [],
    "external_side_effects": ["Booked the Hotel Lisboa for Maya and Alex"],
}


async def compacted_session(store, capture=None):
    """Turns kept to two: turns 1-2 (the partner, the booking) are in a model's summary."""
    capture = capture or PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel([
        save("Travels with partner Alex", ["partner"], "fact"), "Noted.", "Done.", "You're welcome.", "Nothing else.", "Sure."]),
        consolidation_model=None, capture=capture, max_turns_kept=2,
        compaction_model=ScriptedModel([{"json": SUMMARY}]))
    first = await session.run_turn("My partner Alex travels with me on every trip.")
    await session.run_turn("Book the Hotel Lisboa.")
    await session.run_turn("Thanks")
    await session.run_turn("Anything else?")  # reads three turns: the first two are compacted
    assert session.session.summary_source == "model" and "Alex" in said_raw(capture)
    return session, first.notes_saved[0], capture


def said_raw(capture):
    last = capture.calls[-1]
    return last.system_prompt + str(last.input_items)


async def test_forgetting_a_note_takes_its_paraphrase_out_of_the_compaction_summary(store):
    session, partner, capture = await compacted_session(store)
    await session.forget(partner.id)
    await session.run_turn("What do you know about me?")
    assert "partner" not in said(capture)  # was: the summary said it in its own words
    assert "Stay at the Hotel Lisboa" in said_raw(capture)  # the rest of the summary stays
    assert "Booked the Hotel Lisboa for Maya and Alex" in said_raw(capture)  # it does not say the note


async def test_forgetting_a_word_keeps_the_rest_of_the_summary_and_marks_the_side_effect(store):
    session, _, capture = await compacted_session(store)
    await session.forget(matching="Alex")
    await session.run_turn("What do you know about me?")
    prompt = said_raw(capture)
    assert "alex" not in prompt.lower()
    # Was: the whole summary went with the word (the booking, the decision, the objective).
    assert "Stay at the Hotel Lisboa" in prompt and "Plan a stay in Lisbon" in prompt
    assert "[erased at the user's request]" in prompt  # a side effect happened; what it said is gone
    report = await session.end_session()
    assert report.added == [] and "alex" not in store.for_user("acme", "maya").export_json().lower()


async def test_what_the_app_keeps_in_memory_is_redacted_and_the_counts_stay(store):
    session, partner, capture = await compacted_session(store)
    calls = [(c.turn, c.call_index, c.agent_name) for c in capture.calls]
    tokens = [t.input_tokens for t in session.turns]
    await session.forget(matching="alex")
    kept = str([(c.system_prompt, c.input_items, c.sections, c.rendered) for c in capture.calls])
    kept += str(session.turns) + str(session.agent.instructions.last)
    assert "alex" not in kept.lower() and partner.id not in kept  # the id is a hash of the text
    assert "[erased]" in kept
    assert [(c.turn, c.call_index, c.agent_name) for c in capture.calls] == calls
    assert [t.input_tokens for t in session.turns] == tokens and session.turns[0].model_calls == 2
    assert session.turns[0].notes_saved[0].text == "[erased]"
    assert "Book the Hotel Lisboa" in kept  # what did not say it stays


async def test_a_note_erased_through_another_handle_leaves_the_sessions_history(store):
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(
        [save("Travels with partner Alex", ["partner"], "fact"), "Noted.", "Hello!", "Sure."]),
        consolidation_model=None, capture=capture)
    first = await session.run_turn("My partner Alex travels with me on every trip.")
    await session.run_turn("Hi there")
    store.for_user("acme", "maya").forget(first.notes_saved[0].id)  # e.g. from the app's settings page
    await session.run_turn("What do you know about me?")
    assert "alex" not in said(capture)  # was: the history still had the turn that said it
    assert "Hi there" in said_raw(capture)


async def test_a_turn_without_an_erasure_reads_one_index_entry_and_keeps_the_apps_profile(store):
    store.for_user("acme", "maya").save_profile({"name": "Maya"})
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Hello!", "Sure.", "Done."]),
                          consolidation_model=None, capture=capture)
    await session.run_turn("Hi")
    session.state.profile["seat"] = "aisle"  # the app changes the profile it holds
    statements = []
    store._conn.set_trace_callback(statements.append)
    await session.run_turn("Which seat do I like?")
    store._conn.set_trace_callback(None)
    assert "aisle" in capture.calls[-1].system_prompt  # was: read over by the stored profile
    reads = [s for s in statements if "FROM profiles" in s or "FROM session_notes" in s]
    assert reads == []  # was 3: the profile and every note id (twice), each turn
    store.for_user("acme", "maya").forget(matching="Maya")  # an erasure: now the session reads again
    await session.run_turn("Who am I?")
    assert "Maya" not in capture.calls[-1].system_prompt


async def test_a_user_erased_mid_session_takes_the_conversation_with_them(store):
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Hello Quintessa!", "Hello."]),
                          consolidation_model=None, capture=capture)
    await session.run_turn("Hi, I am Maya Quintessa and I fly to Qorvath on Friday.")
    store.for_user("acme", "maya").erase_user(reason="account closed")
    await session.run_turn("Hello?")
    assert "quintessa" not in said(capture) and "qorvath" not in said(capture)  # was: the history kept them
    kept = str([(c.system_prompt, c.input_items) for c in capture.calls]) + str(session.turns)
    assert "quintessa" not in kept.lower() and len(capture.calls) == 2 and session.turns[0].message == "[erased]"
