"""The shared model server and the command line: `python -m helpers.llm [serve [slots]]`.

Taught in notebook 00 (one model process for every notebook, `make lab`). Without arguments it
prepares and checks the model file, as `make setup` does.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from helpers.llm.backend import active_backend
from helpers.llm.engine import KEY_VARIABLE, EmbeddedLLM, new_secret
from helpers.llm.modelfile import resolve_model_file


def serve(slots: int = 4) -> None:
    """`python -m helpers.llm serve [slots]`: load the model once and keep it for every notebook.

    Every endpoint wants the server's secret: AGENT_MEMORY_LLM_KEY from the environment (what
    `make lab` does: the secret never appears in a log), else a new one, printed for you to export
    with the address before starting JupyterLab.
    """
    given = os.environ.get(KEY_VARIABLE)
    engine = EmbeddedLLM(resolve_model_file(), slots=slots, api_key=given or new_secret())
    key = "" if given else f" {KEY_VARIABLE}={engine.api_key}"
    print(f"model server ready ({slots} slots): export AGENT_MEMORY_LLM_URL="
          f"{engine._server.listening_address}{key}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


def main(argv: list[str] | None = None) -> int:
    """`python -m helpers.llm`: prepare and check the model; `serve [slots]`: the shared server."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        serve(int(argv[1]) if len(argv) > 1 else 4)
        return 0
    backend = active_backend()
    print(f"backend: {backend.kind} ({backend.model_name}) - {backend.reason}")
    if backend.kind == "embedded" and not os.environ.get("AGENT_MEMORY_LLM_URL"):
        started = time.perf_counter()
        path = resolve_model_file()
        print(f"model file: {path} ({path.stat().st_size:,} bytes, verified in {time.perf_counter() - started:.1f} s)")
    return 0
