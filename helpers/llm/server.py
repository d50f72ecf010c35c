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
from helpers.llm.engine import EmbeddedLLM
from helpers.llm.modelfile import resolve_model_file


def serve(slots: int = 4) -> None:
    """`python -m helpers.llm serve [slots]`: load the model once and keep it for every notebook.

    Then `export AGENT_MEMORY_LLM_URL=<the printed address>` before starting JupyterLab.
    """
    engine = EmbeddedLLM(resolve_model_file(), slots=slots)
    print(f"model server ready ({slots} slots): export AGENT_MEMORY_LLM_URL="
          f"{engine._server.listening_address}", flush=True)
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
