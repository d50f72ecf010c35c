"""The lifecycle API: open a user's memory, run turns, end the session in one call."""

import pytest
from agents import set_tracing_disabled

from helpers.consolidation import merge_notes
from helpers.hooks import PromptCapture
from helpers.lifecycle import open_memory
from helpers.state import MemoryNote, fixed_clock
from tests.scripted_model import ScriptedModel

set_tracing_disabled(True)


def save(text, keywords=("seat",), kind="preference"):
    return {
        "tool": "save_memory_note",
        "arguments": {"text": text, "keywords": list(keywords), "kind": kind},
    }


def refuse_if_called(system, input, tools):
    raise AssertionError("the consolidator was asked although nothing could change")


async def test_three_sessions_days_apart_each_ended_in_one_call(store, clock):
    first = open_memory(
        store,
        "acme",
        "maya",
        model=ScriptedModel(
            [save("Lives in Brisbane", ["home"], "fact"), "Noted.", refuse_if_called]
        ),
    )
    turn = await first.run_turn("I live in Brisbane.")
    assert turn.answer == "Noted." and [n.text for n in turn.notes_saved] == ["Lives in Brisbane"]
    assert [c.name for c in turn.tool_calls] == ["save_memory_note"]
    assert turn.tool_calls[0].output.startswith("Saved")
    assert turn.model_calls == 2 and turn.input_tokens > 0 and turn.seconds > 0
    report = await first.end_session()
    assert [n.text for n in report.added] == ["Lives in Brisbane"]
    assert report.how == "rules only (model skipped: one new note, nothing related)"

    clock.advance(days=14)
    plan = {"json": {"decisions": [], "notes": []}}

    def supersede(system, input, tools):  # the consolidator's answer, with the ids it was shown
        text = (
            input if isinstance(input, str) else "\n".join(str(i.get("content", "")) for i in input)
        )
        ids = [line.split(" | ")[0] for line in text.splitlines() if " | " in line]
        plan["json"]["decisions"] = [
            {"id": ids[0], "action": "supersede", "other_id": ids[1], "reason": "moved"},
            {"id": ids[1], "action": "keep", "other_id": "", "reason": "new home"},
        ]
        return plan

    second = open_memory(
        store,
        "acme",
        "maya",
        model=ScriptedModel([save("Lives in Melbourne", ["home"], "fact"), "Noted.", supersede]),
    )
    assert [n.text for n in second.state.global_notes] == ["Lives in Brisbane"]  # from the store
    await second.run_turn("I moved to Melbourne.")
    report = await second.end_session()
    assert report.how == "model plan applied"
    assert [(d.outcome, d.reason) for d in report.retired] == [
        ("superseded", "newer note wins; moved")
    ]

    clock.advance(days=14)
    third = open_memory(store, "acme", "maya", model=ScriptedModel(["You live in Melbourne."]))
    turn = await third.run_turn("Where do I live?")
    assert "Lives in Melbourne" in turn.prompts[0].system_prompt
    assert "Brisbane" not in turn.prompts[0].system_prompt
    old = next(
        n for n in store.for_user("acme", "maya").as_of("2026-11-03") if "Brisbane" in n.text
    )
    assert old.source_ref.endswith("#turn1")  # kept, with provenance


async def test_store_and_state_share_one_clock(store, clock):
    session = open_memory(
        store, "acme", "maya", model=ScriptedModel([save("Prefers aisle seats"), "OK."])
    )
    clock.set("2026-12-24T18:00:00Z")
    assert session.state.clock() == store.clock()
    await session.run_turn("I prefer aisle seats.")
    assert session.state.session_notes[0].observed_at == "2026-12-24"
    with pytest.raises(ValueError, match="one clock"):
        open_memory(store, "acme", "maya", model=ScriptedModel([]), clock=fixed_clock("2026-01-01"))


async def test_notes_are_staged_after_each_turn_even_when_the_turn_fails(store):
    def crash(system, input, tools):
        raise RuntimeError("model crashed")

    session = open_memory(
        store,
        "acme",
        "maya",
        session_id="s1",
        model=ScriptedModel([save("Prefers aisle seats"), crash]),
    )
    with pytest.raises(RuntimeError, match="model crashed"):
        await session.run_turn("I prefer aisle seats.")
    assert [n.text for n in store.for_user("acme", "maya").staged_notes("s1")] == [
        "Prefers aisle seats"
    ]
    await session.end_session()
    memory = store.for_user("acme", "maya")
    assert memory.pending_sessions() == [] and [n.text for n in memory.active_notes()] == [
        "Prefers aisle seats"
    ]


async def test_turn_numbers_continue_across_sessions_that_share_a_capture(store):
    capture = PromptCapture()
    first = open_memory(
        store, "acme", "maya", capture=capture, model=ScriptedModel(["Hi.", "Sure."])
    )
    await first.run_turn("Hello")
    await first.run_turn("Flights to Perth?")
    await first.end_session()
    second = open_memory(
        store, "acme", "maya", capture=capture, model=ScriptedModel(["Hello again."])
    )
    turn = await second.run_turn("Hi again")
    assert turn.turn == 3 and capture.turns() == [1, 2, 3]
    assert [c.turn for c in turn.prompts] == [3]


async def test_a_one_off_is_dropped_and_reported(store):
    session = open_memory(
        store,
        "acme",
        "maya",
        model=ScriptedModel([save("Wants a window seat this trip"), "Window this time."]),
        consolidation_model=None,
    )
    await session.run_turn("A window seat this trip, please.")
    report = await session.end_session()
    assert [d.outcome for d in report.dropped] == ["dropped_session"]
    assert report.added == [] and store.for_user("acme", "maya").active_notes() == []
    assert "1 captured, 0 added" in report.summary()
    assert await session.end_session() is report  # ending twice changes nothing
    with pytest.raises(RuntimeError, match="has ended"):
        await session.run_turn("one more")


async def test_truncation_is_an_option_of_the_session(store):
    from agents import function_tool

    @function_tool
    def search(route: str) -> str:
        """Search flights."""
        return "x" * 5000

    def seen(model):
        return model.calls[1].input[-1]["output"]

    on = ScriptedModel([{"tool": "search", "arguments": {"route": "SYD"}}, "Done."])
    await open_memory(
        store, "acme", "maya", model=on, tools=[search], max_tool_output_chars=1000
    ).run_turn("go")
    off = ScriptedModel([{"tool": "search", "arguments": {"route": "SYD"}}, "Done."])
    await open_memory(
        store, "acme", "maya", model=off, tools=[search], max_tool_output_chars=None
    ).run_turn("go")
    assert len(seen(on)) <= 1000 and len(seen(off)) == 5000


# ---- consolidation asks the model only when it could change something ----------------------------


async def test_consolidation_skips_the_model_when_no_two_notes_share_a_subject():
    clock = fixed_clock("2026-11-30T09:00:00Z")
    stored = [MemoryNote("Usually prefers an aisle seat", "2026-03-14", keywords=["seat"])]
    new = [MemoryNote("Travels with a bike", "2026-11-30", keywords=["bike"])]
    notes, report = await merge_notes(stored, new, ScriptedModel([refuse_if_called]), clock=clock)
    assert report.model_skipped == "one new note, nothing related" and not report.model_used
    assert "model skipped" in report.summary()
    related = [MemoryNote("Prefers window seats", "2026-11-30", keywords=["seat"])]
    model = ScriptedModel(
        [
            {
                "json": {
                    "decisions": [
                        {"id": stored[0].id, "action": "keep", "other_id": "", "reason": "ok"},
                        {"id": related[0].id, "action": "keep", "other_id": "", "reason": "ok"},
                    ],
                    "notes": [],
                }
            }
        ]
    )
    _, report = await merge_notes(stored, related, model, clock=clock)
    assert report.model_skipped is None and report.model_used and len(model.calls) == 1


async def test_a_note_erased_mid_session_leaves_the_prompt_and_is_never_written_back(store):
    maya = store.for_user("acme", "maya")
    home = MemoryNote("Lives in Qorvath", "2026-10-01", keywords=["home"], kind="fact")
    maya.add_notes([home])
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(
        [save("Lives in Qorvath again", ["home"], "fact"), "Noted.", "Sure."]),
        consolidation_model=None, capture=capture)
    await session.run_turn("I live in Qorvath again, as before.")
    assert "Qorvath" in capture.calls[-1].system_prompt
    assert maya.forget(matching="qorvath") == 2  # the stored note and the one this session staged
    await session.run_turn("What do you know about me?")
    assert "Qorvath" not in capture.calls[-1].system_prompt
    report = await session.end_session()
    assert report.added == [] and "Qorvath" not in maya.export_json()


async def test_a_forget_mid_session_reaches_the_profile_and_the_merged_copies_in_the_prompt(store):
    maya = store.for_user("acme", "maya")
    maya.save_profile({"name": "Maya", "allergies": ["peanuts", "latex"]})
    peanuts = MemoryNote("Allergic to peanuts", "2026-10-01", kind="fact")
    shellfish = MemoryNote("Allergic to shellfish", "2026-10-01", kind="fact")
    merged = MemoryNote("Allergic to peanuts and shellfish", "2026-10-01", kind="fact", supersedes=peanuts.id)
    maya.add_notes([peanuts, shellfish])
    maya.commit_consolidation("s0", [merged])
    for source in (peanuts, shellfish):  # consolidation keeps its sources, retired into it
        source.status, source.superseded_by = "superseded", merged.id
    maya.commit_consolidation("s0", [peanuts, shellfish])
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Noted.", "Sure."]),
                          consolidation_model=None, capture=capture)
    await session.run_turn("Hello")
    assert "peanuts" in capture.calls[-1].system_prompt
    erased = maya.forget(peanuts.id)  # another handle: the user's own request
    assert erased == 2 and erased.restored == (shellfish.id,)
    assert maya.forget(matching="peanut").profile_fields == ("allergies[0]",)
    await session.run_turn("What do you know about me?")
    prompt = capture.calls[-1].system_prompt
    assert "peanut" not in prompt.lower() and "Allergic to shellfish" in prompt and "latex" in prompt
    await session.end_session()
    assert "peanut" not in maya.export_json().lower()


async def test_a_user_erased_mid_session_loses_the_profile_from_the_prompt(store):
    maya = store.for_user("acme", "maya")
    maya.save_profile({"name": "Maya Quintessa"})
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(["Noted.", "Sure."]),
                          consolidation_model=None, capture=capture, default_profile={"name": "guest"})
    await session.run_turn("Hello")
    assert "Quintessa" in capture.calls[-1].system_prompt
    maya.erase_user()
    await session.run_turn("Who am I?")
    assert "Quintessa" not in capture.calls[-1].system_prompt and "guest" in capture.calls[-1].system_prompt


@pytest.mark.parametrize("by", ["matching", "note_id"])
async def test_a_session_that_forgets_drops_the_turns_that_said_it(store, by):
    capture = PromptCapture()
    session = open_memory(store, "acme", "maya", model=ScriptedModel(
        [save("Travels with partner Alex", ["partner"], "fact"), "Noted.", "Hello!", "Sure."]),
        consolidation_model=None, capture=capture)
    first = await session.run_turn("My partner Alex travels with me on every trip.")
    await session.run_turn("Hi there")
    assert "Alex" in str(capture.calls[-1].input_items)
    if by == "matching":
        erased = await session.forget(matching="alex")
    else:
        erased = await session.forget(first.notes_saved[0].id)
    assert erased == 1 and session.state.session_notes == []
    await session.run_turn("What do you know about me?")
    prompt = capture.calls[-1]
    assert "alex" not in (prompt.system_prompt + str(prompt.input_items)).lower()
    assert "Hi there" in str(prompt.input_items)  # the turns that did not say it stay
    report = await session.end_session()
    assert report.added == [] and "Alex" not in store.for_user("acme", "maya").export_json()
