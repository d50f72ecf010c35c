"""Wall time of each notebook, executed top to bottom as nbval would, on a copy (never in place).

    flock /tmp/embedded-model.lock python benchmarks/bench_notebooks.py            (all 11, in-process model)
    python benchmarks/bench_notebooks.py --lock /tmp/embedded-model.lock         (takes the lock per notebook)
    python benchmarks/bench_notebooks.py --shared 00 05                          (one model server, as `make lab`)

Each notebook is copied into a temporary folder and run there by nbclient in a fresh kernel (the
kernel's working directory is that folder; `helpers` comes from this checkout). The model backend is
the one a reader without a key gets: the embedded model loaded in each kernel (as nbval and
`make notebooks` run them), or with `--shared` one model server for all kernels (as `make lab` runs
them). For each notebook it prints the wall time (kernel start included), the model calls made and
their prompt tokens (computed / served from the prompt cache), generated tokens, and the machine's
1-minute load average before and after, since other work on the cores slows every number here.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from helpers.paths import repo_root

STATS = """\
import json as _json
from helpers import llm as _llm
_history = _llm.engine._embedded.history if _llm.engine._embedded is not None else []
print("BENCH-STATS " + _json.dumps({
    "backend": _llm.active_backend().kind, "model": _llm.active_backend().model_name,
    "calls": len(_history), "prompt_tokens": sum(r.prompt_tokens for r in _history),
    "cached_tokens": sum(r.cached_tokens for r in _history),
    "completion_tokens": sum(r.completion_tokens for r in _history),
    "model_seconds": sum(r.wall_seconds for r in _history),
    "load_seconds": getattr(_llm.engine._embedded, "load_seconds", 0.0)}))
"""


@contextmanager
def maybe_locked(path: str | None):
    if not path:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def stats_of(notebook: nbformat.NotebookNode) -> dict:
    for output in notebook.cells[-1].get("outputs", []):
        for line in output.get("text", "").splitlines():
            if line.startswith("BENCH-STATS "):
                return json.loads(line.removeprefix("BENCH-STATS "))
    return {}


def run_notebook(source: Path, work: Path, env: dict[str, str], timeout: float) -> tuple[float, str, dict]:
    """Execute a copy of `source` in `work`; return (wall seconds, "ok" or the error, model stats)."""
    copy = work / source.name
    shutil.copy2(source, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(STATS))
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}})
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # the kernel inherits this process's environment
    started = time.perf_counter()
    try:
        client.execute()
        outcome = "ok"
    except CellExecutionError as error:
        outcome = "error: " + str(error).strip().splitlines()[-1][:120]
    finally:
        seconds = time.perf_counter() - started
        os.environ.clear()
        os.environ.update(saved)
    nbformat.write(notebook, copy)  # the executed copy stays in the temp folder, never in notebooks/
    return seconds, outcome, stats_of(notebook)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="notebook number prefixes (default: every main notebook)")
    parser.add_argument("--shared", action="store_true", help="one shared model server, as `make lab`")
    parser.add_argument("--lock", help="take this lock file around each notebook (not with an outer flock)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per cell")
    args = parser.parse_args()

    notebooks = sorted((repo_root() / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if args.only:
        notebooks = [n for n in notebooks if n.name.split("_")[0] in args.only]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "AGENT_MEMORY_LLM_URL")}
    env["PYTHONPATH"] = str(repo_root()) + os.pathsep + env.get("PYTHONPATH", "")
    server = None
    if args.shared:
        from helpers.notebook import start_model_server

        with maybe_locked(args.lock):  # loading the model is model work too
            server = start_model_server()
        env["AGENT_MEMORY_LLM_URL"] = server.url
    backend = (f"shared model server {server.url} (loaded in {server.seconds:.0f} s)" if server
               else "embedded model loaded in each kernel (as nbval)")
    model = env.get("AGENT_MEMORY_GGUF") or env.get("AGENT_MEMORY_MODEL", "qwen2.5-coder-1.5b")
    print(f"{platform.node()}: {os.cpu_count()} cores, {platform.python_version()}; model {model}; {backend}")
    print(f"started {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n")
    print(f"{'notebook':30} {'wall s':>7} {'calls':>5} {'prompt tok':>10} {'cached':>7} {'gen tok':>7} "
          f"{'model s':>7} {'load1 before/after':>18}  outcome")
    total = 0.0
    try:
        with tempfile.TemporaryDirectory() as work:
            for source in notebooks:
                with maybe_locked(args.lock):
                    load_before = os.getloadavg()[0]
                    seconds, outcome, stats = run_notebook(source, Path(work), env, args.timeout)
                    load_after = os.getloadavg()[0]
                total += seconds
                print(f"{source.name:30} {seconds:7.0f} {stats.get('calls', 0):5d} "
                      f"{stats.get('prompt_tokens', 0):10,d} {stats.get('cached_tokens', 0):7,d} "
                      f"{stats.get('completion_tokens', 0):7,d} {stats.get('model_seconds', 0):7.0f} "
                      f"{load_before:8.2f} / {load_after:<7.2f}  {outcome}", flush=True)
    finally:
        if server is not None:
            server.stop()
    print(f"\ntotal {total:.0f} s ({total / 60:.1f} min) for {len(notebooks)} notebooks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
