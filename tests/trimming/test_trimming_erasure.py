"""A session's history and its compaction summary forget what was erased, and nothing else."""

import json

from agents import set_tracing_disabled

from helpers.trimming import ERASED_LINE, CompactingSession, CompactionSummary, Fact, TrimmingSession, fallback_summary, forget_in_summary
from tests.history_items import call, output, reply, user
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


def test_the_fallback_summary_shows_what_a_call_held_not_its_json_escapes():
    arguments = json.dumps({"text": "Travels with partner Zoë"})  # ensure_ascii: "Zo\u00eb"
    summary = fallback_summary([user("Save it"), call("c1", "save_memory_note", arguments), output("c1", "Saved")])
    assert "Travels with partner Zoë" in summary.completed_work[0]  # was: "Zo\\u00eb", which no erasure finds


def test_forget_in_summary_drops_the_lines_and_marks_the_side_effects():
    summary = CompactionSummary(
        objective="Surprise trip for Zoë", confirmed_facts=[Fact(fact="Zoë is vegan", source="user, turn 1"),
                                                           Fact(fact="Budget 900 EUR", source="user, turn 2")],
        decisions=["Book for Zoë", "Lisbon"], completed_work=[], open_work=["Ask Zoë"],
        external_side_effects=["book_hotel ran in turn 2; result: room for Zoë", "No flight booked yet"])
    kept = forget_in_summary(summary, lambda text: "zoë" in text.lower())
    assert kept.objective == ERASED_LINE and [f.fact for f in kept.confirmed_facts] == ["Budget 900 EUR"]
    assert kept.decisions == ["Lisbon"] and kept.open_work == []
    assert kept.external_side_effects == [ERASED_LINE, "No flight booked yet"]


async def test_a_compacting_session_forgets_without_losing_its_summary_or_calling_a_model():
    summarizer = ScriptedModel([])  # any call would fail: compaction must not run again
    session = CompactingSession("c", model=summarizer, max_turns=3, keep_turns=1)
    session.summary = CompactionSummary(
        objective="Trip", confirmed_facts=[Fact(fact="Partner Qorvath comes", source="user, turn 1")],
        decisions=["Lisbon"], completed_work=[], open_work=[], external_side_effects=[])
    session.summary_source, session.compacted_turns = "model", 2
    await session.add_items([session._summary_item(), user("Hi Qorvath"), reply("Hello"), user("Lisbon?"), reply("Yes")])
    assert await session.forget(lambda text: "qorvath" in text.lower()) == 2
    items = await session.get_items()
    assert "Qorvath" not in str(items) and "Lisbon" in items[0]["content"] and len(items) == 3
    assert session.compacted_turns == 2 and session.summary_source == "model" and summarizer.calls == []


async def test_a_trimming_session_drops_whole_turns_with_their_calls():
    session = TrimmingSession("t", max_turns=5)
    await session.add_items([user("Find a hotel"), call("c1"), output("c1", "Hotel Qorvath, 120 EUR"), reply("Found one"),
                             user("Thanks"), reply("Welcome")])
    assert await session.forget(lambda text: "qorvath" in text.lower()) == 4
    assert await session.get_items() == [user("Thanks"), reply("Welcome")]
