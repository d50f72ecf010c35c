"""Record and replay the embedded model's replies, so nbval can compare every notebook cell exactly.

Test infrastructure only: a reader's run (`make lab`) never imports this. `make notebooks` runs each
notebook on the live embedded model with a *recording* engine and writes what the engine was asked and
answered into a file beside the notebook (notebooks/00_setup.replies.json); nbval and the browser
tests then run the notebook with a *replaying* engine that answers from that file and never loads the
model. A request with no recording fails with a message that says to run `make notebooks`.

Where: at the engine (`helpers.llm.EmbeddedLLM`), under the SDK `Model`. Every model call of the
course passes there, whether it comes through the SDK (`LocalModel`: the agent's calls, the capture
question, the retries) or from a notebook directly (`embedded_llm().history`, `token_counter()`), so
one boundary covers them all, and `LocalModel`'s own logic (prompt rendering, grammars, parsing,
retries) still runs under replay. A request is keyed by a stable hash of everything that decides the
reply: for a completion the rendered prompt (system instructions, input items and tools, in the
model's chat template), the grammar (the tools' and the output type's schemas), and the settings
(max tokens, temperature, seed, prompt cache); for the template and tokenizer endpoints, their JSON
bodies. The model itself is named once per file, and a replay for another model fails.

Token counts: the tokenizer's counts are recorded like any other reply (the count, not the ids).
Loading only the tokenizer would need the GGUF (1.1 GB, and a BPE implementation to match llama.cpp's
exactly); a recorded count is exact, costs nothing, and misses only where the notebook changed, which
needs a new recording anyway.

Both kernels run with PYTHONHASHSEED=0: a set's order reaches some prompts, so without it the
same notebook makes different requests in different processes (a replay would miss at random).

How a kernel gets an engine: `AGENT_MEMORY_MODEL_FACTORY=tests.replay:replaying_engine` (or
`recording_engine`), which `helpers.llm.embedded_llm()` calls, and `AGENT_MEMORY_REPLIES=<file>`;
tests/conftest.py sets both for each notebook nbval runs, the Makefile for `make notebooks`.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers.llm import EMBEDDED_MODELS, EmbeddedLLM, RemoteServer, resolve_model_file
from helpers.llm.engine import KEY_VARIABLE

FACTORY_ENV = "AGENT_MEMORY_MODEL_FACTORY"
REPLIES_ENV = "AGENT_MEMORY_REPLIES"
REPLAY_FACTORY = "tests.replay:replaying_engine"
# Recording and replaying kernels hash strings alike: some prompts and grammars list what a set
# holds, in the set's order, which otherwise changes from process to process.
HASH_SEED = {"PYTHONHASHSEED": "0"}
RECORD_FACTORY = "tests.replay:recording_engine"
RERECORD = "run `make notebooks` to record the model's replies again"
FORMAT = 1
COMPLETIONS = "/v1/completions"


class MissingRecording(LookupError):
    """The replay file holds no reply for this request: the notebook or a prompt changed."""


def replies_path(notebook: str | Path) -> Path:
    """Where a notebook's recorded replies live: beside it, notebooks/00_setup.replies.json."""
    notebook = Path(notebook)
    return notebook.with_name(notebook.stem + ".replies.json")


def model_name() -> str:
    """The embedded model a recording is made on (the file name of a custom GGUF)."""
    custom = os.environ.get("AGENT_MEMORY_GGUF")
    if custom:
        return Path(custom).name
    return EMBEDDED_MODELS[os.environ.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")].filename


def request_key(endpoint: str, body: dict[str, Any]) -> str:
    """A stable hash of one request: the endpoint and its body, as canonical JSON."""
    canonical = json.dumps([endpoint, body], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _summary(endpoint: str, body: dict[str, Any]) -> str:
    """A short readable hint of a request, for the file's reader and the miss message."""
    if endpoint == COMPLETIONS:
        return "... " + body["prompt"][-160:]
    if endpoint == "/tokenize":
        return body["content"][:160]
    return json.dumps(body, ensure_ascii=False)[-160:]


class Recordings:
    """One notebook's replies file: {request key: [reply, ...]} in the order they were recorded.

    A request made twice gets its replies in order (a cached prefix can change a reply); past the
    last one, the last one again.
    """

    def __init__(self, path: Path, *, model: str, meta: dict[str, Any] | None = None):
        self.path, self.model = path, model
        self.meta = meta or {}
        self.entries: dict[str, dict[str, Any]] = {}
        self._served: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path) -> Recordings:
        if not path.is_file():
            raise MissingRecording(f"No recorded model replies at {path.name}: {RERECORD}.")
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise MissingRecording(f"{path.name} has format {data.get('format')!r}, not {FORMAT}: {RERECORD}.")
        recordings = cls(path, model=data["model"], meta=data.get("recorded", {}))
        recordings.entries = {entry["key"]: entry for entry in data["requests"]}
        return recordings

    def add(self, endpoint: str, body: dict[str, Any], reply: Any) -> None:
        key = request_key(endpoint, body)
        with self._lock:
            entry = self.entries.setdefault(
                key, {"key": key, "endpoint": endpoint, "request": _summary(endpoint, body), "replies": []})
            entry["replies"].append(reply)
            self.save()

    def reply(self, endpoint: str, body: dict[str, Any]) -> Any:
        key = request_key(endpoint, body)
        with self._lock:
            entry = self.entries.get(key)
            if entry is None:
                message = (f"No recorded reply for this {endpoint} request in {self.path.name} "
                           f"(key {key[:12]}, request {_summary(endpoint, body)!r}). The notebook, a prompt "
                           f"or a setting changed since the recording: {RERECORD}.")
                print(message, file=sys.stderr)  # also in the cell's output, should the error be caught
                raise MissingRecording(message)
            n = self._served.get(key, 0)
            self._served[key] = n + 1
            return entry["replies"][min(n, len(entry["replies"]) - 1)]

    def save(self) -> None:
        data = {"format": FORMAT, "model": self.model, "recorded": self.meta,
                "requests": list(self.entries.values())}
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        os.replace(partial, self.path)


def _kept(chunk: Any) -> Any:
    """What a streamed chunk contributes to a completion record: its texts, counts and timings."""
    if not isinstance(chunk, dict) or "error" in chunk:
        return chunk
    kept: dict[str, Any] = {"choices": [{"text": c.get("text") or ""} for c in chunk.get("choices") or []]}
    kept.update({k: chunk[k] for k in ("timings", "usage") if k in chunk})
    return kept


class RecordingServer:
    """Passes completions to the live server and records the chunks the engine read."""

    def __init__(self, server: Any, recordings: Recordings):
        self.server, self.recordings = server, recordings
        self.listening_address = server.listening_address

    def handle_completions(self, request: dict[str, Any], callback: Callable[[Any], bool]) -> None:
        chunks: list[Any] = []

        def on_chunk(chunk: Any) -> bool:
            chunks.append(_kept(chunk))
            return callback(chunk)

        self.server.handle_completions(request, on_chunk)
        self.recordings.add(COMPLETIONS, request, chunks)


class ReplayServer:
    """Answers completions from the recording: the same chunks, so `until` and the counts behave alike."""

    def __init__(self, recordings: Recordings):
        self.recordings = recordings
        self.listening_address = f"replay:{recordings.path.name}"

    def handle_completions(self, request: dict[str, Any], callback: Callable[[Any], bool]) -> None:
        for chunk in self.recordings.reply(COMPLETIONS, request):
            if callback(chunk):
                return


class RecordingLLM(EmbeddedLLM):
    """The live engine, recording every reply it gets (its template and tokenizer replies too)."""

    def __init__(self, model_path: Path, server: Any, recordings: Recordings, api_key: str | None = None):
        super().__init__(model_path, server=RecordingServer(server, recordings),
                         api_key=api_key or getattr(server, "api_key", None))
        self.recordings = recordings

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = super()._post(path, body)
        self.recordings.add(path, body, {"n_tokens": len(reply["tokens"])} if path == "/tokenize" else reply)
        return reply


class ReplayLLM(EmbeddedLLM):
    """An engine that answers from a recording and never loads the model."""

    def __init__(self, recordings: Recordings):
        super().__init__(recordings.path, server=ReplayServer(recordings))
        self.recordings = recordings
        when = recordings.meta.get("at", "at an unknown time")
        self.backend_reason = (f"REPLAYING recorded replies of the embedded local model ({recordings.path.name}, "
                               f"recorded {when}): the model does not run here.")

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = self.recordings.reply(path, body)
        return {"tokens": [0] * reply["n_tokens"]} if path == "/tokenize" else reply


def _replies_file() -> Path:
    path = os.environ.get(REPLIES_ENV)
    if not path:
        raise MissingRecording(f"{FACTORY_ENV} is set but {REPLIES_ENV} (the replies file) is not.")
    return Path(path)


def replaying_engine() -> ReplayLLM:
    """The factory nbval's and the browser tests' kernels use."""
    recordings = Recordings.load(_replies_file())
    if recordings.model != model_name():
        raise MissingRecording(f"{recordings.path.name} was recorded on {recordings.model}, but this run uses "
                               f"{model_name()}: {RERECORD}.")
    return ReplayLLM(recordings)


def recording_engine() -> RecordingLLM:
    """The factory `make notebooks` uses: the live model (the shared server if AGENT_MEMORY_LLM_URL is set)."""
    path = _replies_file()
    meta = {"at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}"}
    recordings = Recordings(path, model=model_name(), meta=meta)
    recordings.save()  # a notebook that asks nothing still gets its (empty) file
    url = os.environ.get("AGENT_MEMORY_LLM_URL")
    if url:
        return RecordingLLM(Path(url), RemoteServer(url, os.environ.get(KEY_VARIABLE)), recordings)
    live = EmbeddedLLM(resolve_model_file())
    return RecordingLLM(live.model_path, live._server, recordings, api_key=live.api_key)
