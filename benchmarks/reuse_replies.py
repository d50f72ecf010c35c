"""An engine for benchmark runs that asks the live model only what it was not asked before.

    AGENT_MEMORY_MODEL_FACTORY=benchmarks.reuse_replies:reusing_engine AGENT_MEMORY_REPLIES=<file>

Built on the notebooks' record/replay (tests/replay.py): a completion whose request key (the
rendered prompt, the grammar and the settings) is already in the replies file is answered from it,
any other goes to the live model (the shared server when AGENT_MEMORY_LLM_URL is set) and is
recorded. Two uses in benchmarks/concierge_requests.py:
- `--reverse-policy`: the precedence order lives in code (helpers.arguments), not in the prompt,
  so a reversed-order turn sends byte-identical requests and gets the model's same replies; only a
  request that differs (e.g. one made after a tool result) reaches the model;
- a stopped run started again with the same file gets its finished requests back for free.
Run with PYTHONHASHSEED=0 so a restarted process renders the same prompts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.replay import (
    COMPLETIONS,
    RecordingLLM,
    RecordingServer,
    Recordings,
    _replies_file,
    model_name,
    request_key,
)

from helpers.llm import EmbeddedLLM, RemoteServer, resolve_model_file
from helpers.llm.engine import KEY_VARIABLE


class _Reuses:
    """Counts of requests answered from the file and sent to the model (printed by the benchmark)."""

    reused = 0
    asked = 0


def _known(recordings: Recordings, endpoint: str, body: dict[str, Any]) -> list[Any] | None:
    entry = recordings.entries.get(request_key(endpoint, body))
    return entry["replies"] if entry else None


class ReusingServer(RecordingServer):
    def handle_completions(self, request: dict[str, Any], callback: Callable[[Any], bool]) -> None:
        if (replies := _known(self.recordings, COMPLETIONS, request)) is not None:
            _Reuses.reused += 1
            for chunk in replies[0]:
                if callback(chunk):
                    return
            return
        _Reuses.asked += 1
        super().handle_completions(request, callback)


class ReusingLLM(RecordingLLM):
    def __init__(self, model_path: Path, server: Any, recordings: Recordings, api_key: str | None = None):
        EmbeddedLLM.__init__(self, model_path, server=ReusingServer(server, recordings),
                             api_key=api_key or getattr(server, "api_key", None))
        self.recordings = recordings

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if (replies := _known(self.recordings, path, body)) is not None and path != "/tokenize":
            return replies[0]
        return super()._post(path, body)


def reusing_engine() -> ReusingLLM:
    path = _replies_file()
    if path.is_file():
        recordings = Recordings.load(path)
    else:
        meta = {"at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        recordings = Recordings(path, model=model_name(), meta=meta)
    url = os.environ.get("AGENT_MEMORY_LLM_URL")
    if url:
        return ReusingLLM(Path(url), RemoteServer(url, os.environ.get(KEY_VARIABLE)), recordings)
    live = EmbeddedLLM(resolve_model_file())
    return ReusingLLM(live.model_path, live._server, recordings, api_key=live.api_key)


def counts() -> tuple[int, int]:
    """(completions answered from the file, completions sent to the model) in this process."""
    return _Reuses.reused, _Reuses.asked


__all__ = ["ReusingLLM", "counts", "reusing_engine"]
