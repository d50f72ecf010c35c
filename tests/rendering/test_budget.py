import pytest
from agents import function_tool

from helpers.budget import (
    BudgetExceeded, BudgetReport, ContextBudget, SectionUsage, count_tokens, fit_notes, measure, note_value,
    token_counter, tool_definitions_text,
)
from helpers.render import OVER_BUDGET, format_notes
from helpers.state import MemoryNote


def lines(text: str) -> int:
    """A toy counter, one "token" per line, so drop order is easy to read."""
    return len(text.splitlines())


def budget(**overrides):
    values = dict(model_limit=1000, reserved_output=200, stable_instructions=300, profile=100, notes=200,
                  tool_definitions=100, recent_turns=100)
    return ContextBudget(**{**values, **overrides})


def test_count_tokens_uses_the_real_openai_tokenizer_offline():
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0
    # Control tokens typed by a user are counted as plain text, not rejected.
    assert count_tokens("<|endoftext|>") == 7
    assert token_counter("cl100k_base")("hello world") == 2
    with pytest.raises(ValueError):
        token_counter("no_such_encoding")


def test_budget_reserves_output_first_and_accepts_a_plan_that_fits():
    b = budget()
    assert b.input_budget == 800
    assert b.planned == 800
    assert list(b.sections()) == ["stable_instructions", "profile", "notes", "tool_definitions", "recent_turns"]


def test_a_plan_over_the_input_budget_is_a_clear_error():
    with pytest.raises(BudgetExceeded, match=r"planned input \(801 tokens.*1000 limit - 200 reserved.*= 800"):
        budget(recent_turns=101)


@pytest.mark.parametrize("overrides, message", [
    ({"notes": -1}, "notes must be a non-negative int"),
    ({"profile": 1.5}, "profile must be a non-negative int"),
    ({"profile": True}, "profile must be a non-negative int"),
    ({"reserved_output": 1000}, "must be below model_limit"),
])
def test_bad_budgets_are_rejected(overrides, message):
    with pytest.raises(ValueError, match=message):
        budget(**overrides)


def make_notes():
    return {
        "session": MemoryNote("Window seat this time", "2026-11-30", keywords=["seat"], scope="session"),
        "new_sure": MemoryNote("Aisle seat usually", "2026-09-01", keywords=["seat"]),
        "old_sure": MemoryNote("Walk to transport", "2026-05-01", keywords=["hotel"]),
        "unsure": MemoryNote("Maybe likes jazz", "2026-10-01", keywords=["music"], confidence=0.6),
        "irrelevant": MemoryNote("Vegetarian meals", "2026-11-01", keywords=["meal"], scope="session"),
    }


def test_fit_notes_drops_lowest_value_first_and_keeps_given_order():
    notes = make_notes()
    given = list(notes.values())
    kept, dropped = fit_notes(given, budget_tokens=2, counter=lines, keywords=["seat", "hotel", "jazz"])
    # Irrelevant to the task first, then global before session, lower confidence, then older.
    assert [d.note for d in dropped] == [notes["irrelevant"], notes["unsure"], notes["old_sure"]]
    assert all(d.reason == OVER_BUDGET for d in dropped)
    assert kept == [notes["session"], notes["new_sure"]]


def test_without_keywords_session_notes_outlast_global_ones():
    notes = make_notes()
    kept, dropped = fit_notes(list(notes.values()), budget_tokens=2, counter=lines)
    assert [d.note for d in dropped] == [notes["unsure"], notes["old_sure"], notes["new_sure"]]
    assert kept == [notes["session"], notes["irrelevant"]]
    assert note_value(notes["session"]) > note_value(notes["new_sure"]) > note_value(notes["unsure"])


def test_fit_notes_with_real_tokens_fits_and_drops_nothing_when_roomy():
    given = list(make_notes().values())
    full = count_tokens(format_notes(given))
    assert fit_notes(given, full, count_tokens) == (given, [])
    kept, dropped = fit_notes(given, full - 1, count_tokens)
    assert len(dropped) == 1 and count_tokens(format_notes(kept)) <= full - 1


def test_a_notes_budget_too_small_for_even_none_is_a_clear_error():
    with pytest.raises(BudgetExceeded, match=r"cannot hold even an empty note list \(4 tokens\)"):
        fit_notes(list(make_notes().values()), 3, count_tokens)


def test_measure_reports_tokens_per_section_against_budget():
    b = budget(profile=2)
    report = measure(b, count_tokens, {"stable_instructions": "hello world", "profile": "hello world again"})
    assert report.usage == [SectionUsage("stable_instructions", 2, 300), SectionUsage("profile", 3, 2)]
    assert report.total == 5 and not report.fits
    assert "profile                    3       2  OVER" in str(report)
    assert measure(b, count_tokens, {"notes": "hello world"}).fits
    with pytest.raises(ValueError, match="unknown budget sections"):
        measure(b, count_tokens, {"policy": "x"})
    assert isinstance(report, BudgetReport)


def test_tool_definitions_are_counted_as_the_json_a_provider_receives():
    @function_tool
    def save_memory_note(text: str) -> str:
        """Save one durable preference."""
        return "ok"

    text = tool_definitions_text([save_memory_note])
    assert '"name": "save_memory_note"' in text and "Save one durable preference." in text
    assert count_tokens(text) > 20
