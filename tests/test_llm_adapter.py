"""The embedded-model adapter: parsing, grammars, the model file check, and the SDK loop.

Most tests here need no model: the LLM is replaced by a fake `EmbeddedLLM` that returns scripted
completions, so what is tested is the adapter's own logic (parsing, recovery, output items).
"""

import json
from pathlib import Path

import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from pydantic import BaseModel

from helpers import llm
from helpers.llm import CompletionRecord, LocalModel, ModelFileError, build_grammar, parse_output, verify_model_file

set_tracing_disabled(True)


class FakeLLM:
    """Stands in for EmbeddedLLM: a chat template that just joins messages, scripted completions."""

    def __init__(self, outputs):
        self.outputs = list(outputs)
        self.history: list[CompletionRecord] = []
        self.templates: list[tuple[list, list | None]] = []

    def apply_template(self, messages, tools=None):
        self.templates.append((messages, tools))
        return "\n".join(f"{m['role']}: {m.get('content')}" for m in messages)

    def complete(self, prompt, *, grammar=None, max_tokens=0, temperature=0.0, seed=0):
        text = self.outputs.pop(0)
        record = CompletionRecord(prompt, grammar or "", text, 10, 5, 0.1, 0.1, 0.2)
        self.history.append(record)
        return record


saved = []


@function_tool
def save_memory_note(text: str, keywords: list[str]) -> str:
    """Save a durable preference."""
    saved.append(text)
    return "Saved."


def run(outputs, **agent_kwargs):
    saved.clear()
    fake = FakeLLM(outputs)
    agent = Agent(name="t", instructions="Be brief.", model=LocalModel(fake), tools=[save_memory_note],
                  **agent_kwargs)
    result = Runner.run_sync(agent, "I'm vegetarian.")
    return result, fake


def test_well_formed_call_is_executed_by_the_sdk():
    call = '<tool_call>\n{"name": "save_memory_note", "arguments": {"text": "Is vegetarian", "keywords": ["diet"]}}\n</tool_call>'
    result, fake = run([call, "Noted: vegetarian."])
    assert saved == ["Is vegetarian"]
    assert result.final_output == "Noted: vegetarian."
    # The second request saw the tool's output and was constrained to prose (no tools offered).
    assert fake.templates[1][1] is None
    assert fake.templates[1][0][-1]["role"] == "tool"
    assert "call_json" not in fake.history[1].grammar


def test_bare_json_and_fenced_json_calls_are_accepted():
    bare = '{"name": "save_memory_note", "arguments": {"text": "Likes tea", "keywords": []}}'
    fenced = "```json\n" + bare + "\n```"
    assert parse_output(bare, {"save_memory_note"}).calls == [("save_memory_note", {"text": "Likes tea", "keywords": []})]
    assert parse_output(fenced, {"save_memory_note"}).kind == "calls"


def test_a_call_written_like_a_python_function_is_still_a_call():
    text = 'save_memory_note({"text": "Wants a hotel with a gym", "keywords": ["hotel"]})'
    assert parse_output(text, {"save_memory_note"}).calls == [
        ("save_memory_note", {"text": "Wants a hotel with a gym", "keywords": ["hotel"]})]
    assert parse_output(text, {"other_tool"}).kind == "text"  # not an offered tool: it stays prose
    assert parse_output("save_memory_note(text='x')", {"save_memory_note"}).kind == "text"


def test_call_to_unknown_tool_is_recovered_as_prose():
    bogus = '{"name": "book_flight", "arguments": {"to": "Paris"}}'
    result, fake = run([bogus, "I can't book directly, but I noted your preference."])
    model = result.last_agent.model
    assert saved == []
    assert result.final_output.startswith("I can't book directly")
    assert model.problems == ["tool 'book_flight' was not offered"]
    assert len(fake.history) == 2  # the retry was constrained to prose


def test_invalid_json_is_recovered_as_prose():
    result, _ = run(['{"name": "save_memory_note", "arguments": {"text": "Likes', "Sorry, noted."])
    assert saved == []
    assert result.final_output == "Sorry, noted."
    assert result.last_agent.model.problems[0].startswith("invalid JSON")


def test_plain_text_is_a_final_answer():
    result, fake = run(["Happy to help. Where to?"])
    assert result.final_output == "Happy to help. Where to?"
    assert saved == []
    assert len(fake.history) == 1


class Trip(BaseModel):
    city: str
    nights: int


def test_structured_output_uses_the_schema_grammar():
    fake = FakeLLM(['{"city": "Paris", "nights": 3}'])
    agent = Agent(name="t", instructions="Extract.", model=LocalModel(fake), output_type=Trip)
    result = Runner.run_sync(agent, "Three nights in Paris.")
    assert result.final_output == Trip(city="Paris", nights=3)
    grammar = fake.history[0].grammar
    assert "answer: %json" in grammar and '"nights"' in grammar
    assert "/[^{<`\\s]" not in grammar  # no free prose allowed when a schema is required
    assert '"whitespace_flexible": false' in grammar  # one-line JSON saves the small model's tokens


def test_grammar_names_each_offered_tool_as_a_constant():
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("a", "b")]
    grammar = build_grammar(tools, None)
    assert grammar.startswith("%llguidance {}\nstart: call | answer")
    schema = json.loads(grammar.split("call_json: %json ", 1)[1].split("\n", 1)[0])
    assert [option["properties"]["name"] for option in schema["anyOf"]] == [{"const": "a"}, {"const": "b"}]
    assert build_grammar(tools, None, allow_answer=False).startswith("%llguidance {}\nstart: call\n")


def test_corrupted_model_file_is_refused_before_loading(tmp_path: Path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 100)
    with pytest.raises(ModelFileError, match="truncated or wrong file"):
        verify_model_file(bad, size=200)
    with pytest.raises(ModelFileError, match="sha256 .* expected"):
        verify_model_file(bad, sha256="0" * 64)
    bad.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelFileError, match="not a GGUF file"):
        verify_model_file(bad)
    with pytest.raises(ModelFileError, match="not found"):
        verify_model_file(tmp_path / "missing.gguf")


def test_custom_gguf_with_wrong_hash_never_reaches_llama_cpp(tmp_path, monkeypatch):
    bad = tmp_path / "other.gguf"
    bad.write_bytes(b"GGUF" + b"x" * 64)
    monkeypatch.setenv("AGENT_MEMORY_GGUF", str(bad))
    monkeypatch.setenv("AGENT_MEMORY_GGUF_SHA256", "1" * 64)
    monkeypatch.setattr(llm, "EmbeddedLLM", lambda *a, **k: pytest.fail("llama.cpp must not see a bad file"))
    with pytest.raises(ModelFileError):
        llm.resolve_model_file()


def test_backend_selection_follows_the_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert llm.active_backend().kind == "embedded"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("AGENT_MEMORY_OPENAI_MODEL", "gpt-4o-mini")
    backend = llm.active_backend()
    assert (backend.kind, backend.model_name) == ("openai", "gpt-4o-mini")


def test_a_local_model_built_without_a_key_turns_tracing_off(monkeypatch):
    from agents.tracing import get_trace_provider

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    set_tracing_disabled(False)
    try:
        LocalModel(FakeLLM([]))  # built directly, as benchmarks/bench_model.py does, not through get_model()
        assert get_trace_provider()._disabled
    finally:
        set_tracing_disabled(True)
