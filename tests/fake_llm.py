"""A stand-in for `EmbeddedLLM` in unit tests: a ChatML-like template and scripted completions.

Tests of `LocalModel` (the adapter and the router) use it, so what they test is the adapter's own
logic: which completions it asks for, under which grammar, and what it hands the SDK.
"""

import json

from helpers.llm import CompletionRecord


class FakeLLM:
    """Stands in for EmbeddedLLM: a ChatML-like template (tools appended to the system message,
    as Qwen's does) and scripted completions."""

    def __init__(self, outputs, cached_tokens=0):
        self.outputs = list(outputs)
        self.cached_tokens = cached_tokens
        self.history: list[CompletionRecord] = []
        self.templates: list[tuple[list, list | None]] = []
        self.options: list[dict] = []

    def apply_template(self, messages, tools=None):
        self.templates.append((messages, tools))
        parts = []
        for m in messages:
            content = m.get("content") or json.dumps(m.get("tool_calls"))
            if m["role"] == "system" and tools:
                content += "\n\n# Tools\n" + json.dumps(tools)
            parts.append(f"<|im_start|>{m['role']}\n{content}<|im_end|>\n")
        return "".join(parts) + "<|im_start|>assistant\n"

    def complete(self, prompt, *, grammar=None, **options):
        self.options.append(options)
        text = self.outputs.pop(0)
        record = CompletionRecord(prompt, grammar or "", text, 10, 5, 0.1, 0.1, 0.2,
                                  cached_tokens=self.cached_tokens, step=options.get("step", ""))
        self.history.append(record)
        return record
