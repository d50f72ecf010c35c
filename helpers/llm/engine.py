"""The llama.cpp engine: one xllamacpp server in this process, or one already running over loopback.

Taught in notebook 00. `EmbeddedLLM.complete` is one grammar-constrained completion with its
counts (`CompletionRecord`); `embedded_llm()` is the process-wide instance.
"""

from __future__ import annotations

import importlib
import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.llm.modelfile import ModelFileError, resolve_model_file

DEFAULT_SEED = 42
DEFAULT_CONTEXT = 8192
# llama.cpp's host-memory prompt cache: when a slot takes an unrelated prompt, the KV of the one it
# held is kept in RAM and restored for a later request that starts the same way. A keyless turn
# has three prompt families (capture question, route question, agent prompt), more than the
# in-process slots; with this cache each family's prefix survives (measured on two slots: later
# turns served 380 of 393 capture, 323 of 336 route and 1,660 of 1,700 agent-prompt tokens from
# it). A 1,700-token prompt keeps ~48 MB; the bound keeps a kernel's memory in check.
PROMPT_CACHE_MIB = 1024
# The shared server's secret reaches kernels only through this variable, next to AGENT_MEMORY_LLM_URL.
KEY_VARIABLE = "AGENT_MEMORY_LLM_KEY"
# "module:callable" returning the engine to use instead (tests only: tests/replay.py replays
# recorded replies for nbval).
MODEL_FACTORY_ENV = "AGENT_MEMORY_MODEL_FACTORY"


def new_secret() -> str:
    """A random secret for one model server."""
    return secrets.token_urlsafe(32)


def locked_params(params: Any, api_key: str) -> None:
    """Lock an xllamacpp `CommonParams` down: the secret on every endpoint, no CORS, no UI, no slots."""
    params.api_keys = [api_key]
    params.cors_origins = ""  # no browser page of any origin may call it (xllamacpp's default is "*")
    params.cors_credentials = False
    params.ui = False
    params.endpoint_slots = False
    params.endpoint_props = False
    params.endpoint_metrics = False


def auth_headers(api_key: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


class ModelTimeoutError(TimeoutError):
    """A model call ran past its time limit and was stopped (the model is free for the next call)."""


class GrammarError(ValueError):
    """llama.cpp could not compile the grammar built from a tool's or the output's JSON schema."""


@dataclass
class CompletionRecord:
    """What one local model call sent and got back: shown in notebook 00 and the inspector."""

    prompt: str
    grammar: str
    text: str
    prompt_tokens: int  # every prompt token, whether its KV came from the cache or was computed
    completion_tokens: int
    prompt_seconds: float  # time spent computing the prompt tokens that were not cached
    generation_seconds: float
    wall_seconds: float
    cached_tokens: int = 0  # prompt tokens reused from llama.cpp's prompt cache (its `cache_n`)
    step: str = ""  # which step of a turn asked for it ("capture", "route", "arguments", "prose", ...)

    @property
    def computed_prompt_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens


def _load_failure(model_path: Path, error: Exception) -> ModelFileError:
    return ModelFileError(
        f"llama.cpp could not load {model_path} ({error}). The file looks like a GGUF but llama.cpp "
        "refused it: it may be damaged, made for a newer llama.cpp, or of an architecture this "
        "xllamacpp does not support. Point AGENT_MEMORY_GGUF at another chat GGUF, or unset it to "
        "use the pinned model.")


def _is_grammar_error(message: str) -> bool:
    return any(word in message.lower() for word in ("grammar", "llguidance", "schema", "lark"))


class EmbeddedLLM:
    """One llama.cpp server inside this process. Calls are serialized (one at a time).

    Prompt cache (`cache_prompt=True`, the default): the slot keeps the KV of the last prompt, and
    a request that starts with the same tokens computes only the rest. `LocalModel` builds every
    call of a turn as an extension of the previous one, so a turn's second call and the next turn
    mostly reuse the cache. Reproducibility: greedy decoding with a fixed seed makes the same
    sequence of requests in a fresh process give the same texts on the same machine. Whether a
    prompt gives the same text cold and with a cached prefix is not guaranteed by llama.cpp (the
    prefix is computed in other batches, so logits can differ in the last bits and a near-tie can
    flip); benchmarks/bench_model.py measures it. Pass `cache_prompt=False` for outputs that never
    depend on what ran before, at the cost of computing every prompt in full.

    Every call can be bounded: `timeout` stops the generation (and the wait for the lock) and
    raises ModelTimeoutError; `cancel` (a threading.Event) stops it from another thread. Either
    way the slot is freed at the next token, so a later call never waits behind an abandoned one.
    `server` is for tests: any object with `handle_completions(request, callback)`.

    The loopback server is locked (`locked_params`): a random secret (`api_key`, or a new one) is
    required on every HTTP endpoint, no cross-origin request is allowed, the web UI and the slots
    endpoint are off. So a web page in the reader's browser, or another user of the machine, cannot
    use or read the model; this process sends the secret itself.
    """

    def __init__(self, model_path: Path, *, n_ctx: int = DEFAULT_CONTEXT, threads: int | None = None,
                 cache_prompt: bool = True, server: Any = None, slots: int = 2, api_key: str | None = None):
        started = time.perf_counter()
        self.api_key = api_key or getattr(server, "api_key", None) or new_secret()
        if server is None:
            import xllamacpp

            params = xllamacpp.CommonParams()
            params.model.path = str(model_path)
            params.n_ctx = n_ctx * slots  # llama.cpp splits the context between the slots
            # One prompt cache per slot; llama.cpp gives a request the slot whose cached prompt it
            # shares most with (else the least recently used one), and `serve` keeps one per
            # client. A prompt a slot gave up waits in the host-memory cache (PROMPT_CACHE_MIB).
            params.n_parallel = slots
            params.cache_ram_mib = PROMPT_CACHE_MIB
            params.cpuparams.n_threads = threads or max(1, os.cpu_count() or 1)
            params.cpuparams_batch.n_threads = params.cpuparams.n_threads
            params.use_jinja = True
            params.verbosity = -1  # llama.cpp logs would otherwise flood notebook cells
            locked_params(params, self.api_key)
            try:
                server = xllamacpp.Server(params)
            except RuntimeError as error:  # "Failed to init server, please check the input params."
                raise _load_failure(model_path, error) from error
        self._server = server
        self.load_seconds = time.perf_counter() - started
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.cache_prompt = cache_prompt
        self._lock = threading.Lock()
        self.history: list[CompletionRecord] = []

    # The template and tokenizer endpoints are only on the loopback HTTP side of the server.
    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self._server.listening_address + path, data=json.dumps(body).encode(),
            headers=auth_headers(self.api_key))
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def apply_template(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None = None) -> str:
        body: dict[str, Any] = {"messages": messages}
        if tools:
            body["tools"] = tools
        prompt = self._post("/apply-template", body)["prompt"]
        # Qwen's template shows the call format with doubled braces, and the model copies them.
        return prompt.replace('{{"name": <function-name>, "arguments": <args-json-object>}}',
                              '{"name": <function-name>, "arguments": <args-json-object>}')

    def tokenize(self, text: str) -> list[int]:
        return self._post("/tokenize", {"content": text, "add_special": False})["tokens"]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text)) if text else 0

    def complete(self, prompt: str, *, grammar: str | None = None, max_tokens: int = 512,
                 temperature: float = 0.0, seed: int = DEFAULT_SEED, timeout: float | None = None,
                 cancel: threading.Event | None = None, cache_prompt: bool | None = None,
                 until: Callable[[str], bool] | None = None, step: str = "") -> CompletionRecord:
        """One completion. `until(text so far)` returning True ends it there (not an error): the
        record then has the text up to that token, and no prompt counts (llama.cpp sends those
        with its last chunk only)."""
        request: dict[str, Any] = {
            "prompt": prompt, "n_predict": max_tokens, "temperature": temperature, "seed": seed,
            "cache_prompt": self.cache_prompt if cache_prompt is None else cache_prompt,
            "stream": True,  # streamed so that a deadline or a cancel can stop it between tokens
        }
        if grammar:
            request["grammar"] = grammar
        started = time.perf_counter()
        deadline = None if timeout is None else time.monotonic() + timeout
        pieces: list[str] = []
        last: dict[str, Any] = {}
        stopped: list[str] = []
        ended: list[bool] = []

        def on_chunk(chunk: Any) -> bool:  # True stops the stream (and llama.cpp's task)
            if not isinstance(chunk, dict) or "error" in chunk or not (
                    {"choices", "timings", "usage"} & chunk.keys()):
                last.update(error=chunk)
                return True
            for choice in chunk.get("choices") or []:
                pieces.append(choice.get("text") or "")
            if "timings" in chunk or "usage" in chunk:  # the last chunk carries the counts
                last.update(chunk)
            if until is not None and "timings" not in chunk and until("".join(pieces)):
                ended.append(True)
            elif cancel is not None and cancel.is_set():
                stopped.append("cancelled")
            elif deadline is not None and time.monotonic() > deadline:
                stopped.append(f"ran past its {timeout:g} s limit")
            return bool(stopped or ended)

        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            raise ModelTimeoutError(f"the embedded model stayed busy for {timeout:g} s")
        try:
            self._server.handle_completions(request, on_chunk)
        finally:
            self._lock.release()
        wall = time.perf_counter() - started
        if stopped:
            raise ModelTimeoutError(f"the model call was stopped: it {stopped[0]}"
                                    if stopped[0] != "cancelled" else "the model call was cancelled")
        if "error" in last:
            error = last["error"]
            message = json.dumps(error) if not isinstance(error, str) else error
            if grammar and _is_grammar_error(message):
                raise GrammarError(
                    "llama.cpp could not compile the grammar for this call's tools or output type "
                    f"({message}). Simplify the JSON schema (llguidance supports the common "
                    "keywords; see its documentation) or use a model with a key.")
            raise RuntimeError(f"llama.cpp returned an error: {message}")
        timings = last.get("timings", {})
        usage = last.get("usage") or {}
        cached = int(timings.get("cache_n", (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)))
        record = CompletionRecord(
            prompt=prompt, grammar=grammar or "", text="".join(pieces),
            prompt_tokens=cached + int(timings["prompt_n"]) if "prompt_n" in timings
            else int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(timings.get("predicted_n", usage.get("completion_tokens", len(pieces)))),
            prompt_seconds=timings.get("prompt_ms", 0.0) / 1000,
            generation_seconds=timings.get("predicted_ms", 0.0) / 1000,
            wall_seconds=wall, cached_tokens=cached, step=step,
        )
        self.history.append(record)
        return record


_embedded: EmbeddedLLM | None = None
_embedded_lock = threading.Lock()


class RemoteServer:
    """A llama.cpp server that is already running (`python -m helpers.llm serve`), over loopback.

    Same surface as xllamacpp's in-process Server for EmbeddedLLM: streamed completions, and the
    template and tokenizer endpoints at `listening_address`. Closing the stream early (the
    callback returned True) makes llama.cpp drop the request.
    """

    def __init__(self, url: str, api_key: str | None = None):
        self.listening_address = url.rstrip("/")
        self.api_key = api_key

    def handle_completions(self, request: dict[str, Any], callback: Callable[[Any], bool]) -> None:
        http = urllib.request.Request(self.listening_address + "/v1/completions",
                                      data=json.dumps(request).encode(),
                                      headers=auth_headers(self.api_key))
        try:
            with urllib.request.urlopen(http, timeout=3600) as response:
                for raw in response:
                    line = raw.decode("utf-8").strip()
                    if not line.startswith("data: ") or line == "data: [DONE]":
                        continue
                    if callback(json.loads(line[len("data: "):])):
                        return
        except urllib.error.HTTPError as error:
            body = error.read().decode("utf-8", "replace")
            try:
                callback(json.loads(body))
            except json.JSONDecodeError:
                callback({"error": body or str(error)})


def embedded_llm() -> EmbeddedLLM:
    """The process-wide embedded model, loaded (and verified) on first use.

    With AGENT_MEMORY_LLM_URL set, it is the model server already running at that address
    (`python -m helpers.llm serve`), so several notebooks share one model in memory.
    """
    global _embedded
    with _embedded_lock:
        if _embedded is None:
            url = os.environ.get("AGENT_MEMORY_LLM_URL")
            if factory := os.environ.get(MODEL_FACTORY_ENV):  # a test run's engine, e.g. a replay
                module, _, name = factory.partition(":")
                _embedded = getattr(importlib.import_module(module), name)()
            elif url:
                _embedded = EmbeddedLLM(Path(url), server=RemoteServer(url, os.environ.get(KEY_VARIABLE)))
            else:
                _embedded = EmbeddedLLM(resolve_model_file())
        return _embedded
