"""Stage 0 — setup (notebook 00): model selection, OpenAI when a key is set, an embedded local model otherwise.

    from helpers.llm import get_model
    agent = Agent(name="concierge", model=get_model(), ...)

Taught in notebook 00. Without `OPENAI_API_KEY` the course runs Qwen2.5-Coder-1.5B-Instruct
(Q4_K_M GGUF) in this process through xllamacpp, llama.cpp's server compiled as a Python extension.

One job per module:
    modelfile  the GGUF from pinned PyPI chunks, joined once, verified before every load
    engine     the llama.cpp engine (`EmbeddedLLM`), in-process or a running server over loopback
    grammar    the llguidance grammar for the offered tools, and parsing what the model wrote
    capture    the capture question (which lasting facts did the user state?)
    guards     small-model guards on what the model wrote
    turn       reading a turn from chat messages
    router     decide, then act: the first short choice of what a turn is
    adapter    `LocalModel`, the Agents SDK `Model`, its turn as named steps
    backend    `active_backend()` / `get_model()`
    server     the shared model server and `python -m helpers.llm`

Environment variables:
    OPENAI_API_KEY            use OpenAI instead of the embedded model
    AGENT_MEMORY_OPENAI_MODEL the OpenAI model name (default gpt-4.1-mini)
    AGENT_MEMORY_MODEL        embedded model: "qwen2.5-coder-1.5b" (default) or "qwen2.5-coder-0.5b"
    AGENT_MEMORY_GGUF         path to any other chat GGUF (sha256 optional: AGENT_MEMORY_GGUF_SHA256)
    AGENT_MEMORY_CACHE        where the joined model file is kept (default ~/.cache/agent-memory-notebooks)
    AGENT_MEMORY_LLM_URL      use a model server already running (`python -m helpers.llm serve`)
    AGENT_MEMORY_MODEL_FACTORY "module:callable" returning the engine to use instead (tests only:
                              tests/replay.py replays recorded replies for nbval)
    AGENT_MEMORY_LLM_KEY      that server's secret (set by the launcher that started it)
"""

from helpers.llm.adapter import (
    ANSWER_NUDGE,
    ECHO_NUDGE,
    GROUNDED_NUDGE,
    MAX_CALLS_PER_RESPONSE,
    MAX_CALLS_PER_TURN,
    TURN_NUDGE,
    LocalModel,
)
from helpers.llm.backend import (DEFAULT_OPENAI_MODEL, Backend, active_backend, configured_veto, get_model,
                                 token_counter)
from helpers.llm.capture import DEFAULT_CAPTURE, CaptureQuestion, capture_stage
from helpers.llm.engine import (
    CompletionRecord,
    EmbeddedLLM,
    GrammarError,
    ModelTimeoutError,
    RemoteServer,
    embedded_llm,
)
from helpers.llm.grammar import ParsedOutput, build_grammar, parse_output, without_titles
from helpers.llm.guards import REFUSAL, invented_urls, narration_stop, ungrounded, unmade_call, whole_sentences
from helpers.llm.modelfile import (
    EMBEDDED_MODELS,
    EmbeddedModelSpec,
    ModelFileError,
    join_model_chunks,
    resolve_model_file,
    sha256_of,
    verify_model_file,
)
from helpers.llm.server import serve
from helpers.llm.turn import call_key, calls_this_turn

__all__ = [
    "ANSWER_NUDGE", "Backend", "CaptureQuestion", "CompletionRecord", "DEFAULT_CAPTURE", "DEFAULT_OPENAI_MODEL",
    "ECHO_NUDGE", "EMBEDDED_MODELS", "EmbeddedLLM", "EmbeddedModelSpec", "GROUNDED_NUDGE", "GrammarError",
    "LocalModel", "MAX_CALLS_PER_RESPONSE", "MAX_CALLS_PER_TURN", "ModelFileError", "ModelTimeoutError",
    "ParsedOutput", "REFUSAL", "RemoteServer", "TURN_NUDGE", "active_backend", "build_grammar", "call_key",
    "calls_this_turn", "capture_stage", "configured_veto", "embedded_llm", "get_model", "invented_urls", "join_model_chunks",
    "narration_stop", "parse_output", "resolve_model_file", "serve", "sha256_of", "token_counter", "ungrounded",
    "unmade_call", "verify_model_file", "whole_sentences", "without_titles",
]
