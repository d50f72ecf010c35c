"""Stage 0 — setup (notebook 00): what every notebook starts with, and what runs around it.

`setup()` is the set-up cell: pinned date, backend banner, the shared model. `Progress`
shows a bar and the elapsed time while a model cell works, so a reader never stares at
`[*]`. `copy_course()` makes the reader's working copy that `make lab` opens, so running
the notebooks never rewrites the committed course. `python -m helpers.notebook lab` is
`make lab`: the working copy, one shared model server for every kernel, then JupyterLab.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agents.models.interface import Model

from helpers.llm import EMBEDDED_MODELS, Backend, active_backend, get_model
from helpers.llm.engine import KEY_VARIABLE, auth_headers

if TYPE_CHECKING:
    import asyncio
from helpers.paths import repo_root
from helpers.state import Clock, fixed_clock

COURSE_NOW = "2026-11-30T09:00:00Z"  # "today" for every notebook, so outputs are reproducible
WORKING_COPY = "notebooks-local"  # git-ignored; `make lab` opens it


@dataclass
class NotebookEnv:
    now: str
    clock: Clock
    backend: Backend
    model: Model | None


def setup(now: str = COURSE_NOW, *, load_model: bool = True) -> NotebookEnv:
    """Pin today's date, pick the backend and load the model once; print what was chosen and why.

    `load_model=False` is for notebooks that never call a model (e.g. most solutions).
    """
    backend = active_backend()
    model = get_model() if load_model else None
    print(f"Today is pinned to {now[:10]}.")
    print(banner(backend))
    return NotebookEnv(now=now, clock=fixed_clock(now), backend=backend, model=model)


def banner(backend: Backend) -> str:
    """One line: which backend this kernel uses, and why; a shared model server must answer."""
    url = os.environ.get("AGENT_MEMORY_LLM_URL")
    line = f"Backend: {backend.kind} ({backend.model_name}). {backend.reason}"
    if backend.kind != "embedded" or not url:
        return line
    try:
        models = urllib.request.Request(url.rstrip("/") + "/v1/models",
                                        headers=auth_headers(os.environ.get(KEY_VARIABLE)))
        with urllib.request.urlopen(models, timeout=5) as response:
            served = Path(json.loads(response.read())["models"][0]["model"]).name
    except (OSError, ValueError, LookupError) as error:
        return (f"Backend: embedded, shared model server at {url}, which does NOT answer ({error}). "
                "Restart `make lab`, or unset AGENT_MEMORY_LLM_URL to load the model in this kernel.")
    spec = EMBEDDED_MODELS.get(backend.model_name)
    if spec is not None and served != spec.filename:  # a server started with another model
        line += f" It serves {served}, not {spec.filename}."
    return line


# --------------------------------------------------------------------------- progress for model cells

def measured_speed() -> tuple[float, float] | None:
    """(prompt tokens/s, generated tokens/s) of the embedded model in this process so far, or None.

    Estimates come from what this machine has measured, never from a number in the docs.
    """
    from helpers import llm

    loaded = getattr(llm.engine, "_embedded", None)  # never load the model just to estimate
    history = getattr(loaded, "history", None) or []
    read = sum(r.prompt_tokens for r in history), sum(r.prompt_seconds for r in history)
    wrote = sum(r.completion_tokens for r in history), sum(r.generation_seconds for r in history)
    if read[1] <= 0 or wrote[1] <= 0:
        return None
    return read[0] / read[1], wrote[0] / wrote[1]


def estimate_seconds(prompt_tokens: int, calls: int = 2, output_tokens: int = 60) -> float | None:
    """A rough turn time: `calls` model calls that each read the prompt, then the answer's tokens."""
    speed = measured_speed()
    if speed is None:
        return None
    return calls * prompt_tokens / speed[0] + output_tokens / speed[1]


class Progress:
    """A progress line for work that takes seconds: elapsed time, and a bar against an estimate.

    In a notebook it is one output that updates in place while the cell runs (the model runs
    in a thread, so the kernel's event loop is free to tick); elsewhere one line on stderr
    at the end. The bar stops at 95 % until the work is done: an estimate is only a guide.
    """

    def __init__(self, label: str, estimate_s: float | None = None, detail: str = ""):
        self.label, self.estimate_s, self.detail = label, estimate_s, detail
        self.started = time.perf_counter()
        self.seconds: float | None = None
        self._handle = None
        self._task: asyncio.Task[None] | None = None

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def fraction(self) -> float:
        if self.seconds is not None:
            return 1.0
        return min(0.95, self.elapsed() / self.estimate_s) if self.estimate_s else 0.0

    def text(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        if self.seconds is not None:
            return f"{self.label}{detail}: done in {self.seconds:.0f} s"
        guess = f" of roughly {self.estimate_s:.0f} s" if self.estimate_s else ""
        return f"{self.label}{detail}: {self.elapsed():.0f} s{guess}"

    def html(self) -> str:
        import html

        bar = (f"<progress value='{self.fraction():.2f}' max='1' style='width: 12em'></progress> "
               if self.estimate_s or self.seconds is not None else "")
        return f"<div class='course-progress'>{bar}<code>{html.escape(self.text())}</code></div>"

    def _bundle(self) -> dict[str, str]:
        return {"text/plain": self.text(), "text/html": self.html()}

    def start(self) -> Progress:
        import asyncio

        if _in_kernel():
            from IPython.display import display

            self._handle = display(self._bundle(), raw=True, display_id=True)
            try:
                self._task = asyncio.get_running_loop().create_task(self._tick())
            except RuntimeError:  # no running loop: the line shows the start and the end only
                self._task = None
        return self

    async def _tick(self) -> None:
        import asyncio

        while self.seconds is None:
            await asyncio.sleep(1.0)
            if self.seconds is None and self._handle is not None:
                self._handle.update(self._bundle(), raw=True)

    def finish(self) -> None:
        self.seconds = self.elapsed()
        if self._task is not None:
            self._task.cancel()
        if self._handle is not None:
            self._handle.update(self._bundle(), raw=True)
        else:
            print(self.text(), file=sys.stderr)


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


@asynccontextmanager
async def progress(label: str, estimate_s: float | None = None, detail: str = "") -> AsyncIterator[Progress]:
    """Show progress around slow work: `async with progress("turn 1"): result = await run_turn(...)`."""
    shown = Progress(label, estimate_s, detail).start()
    try:
        yield shown
    finally:
        shown.finish()


# --------------------------------------------------------------------------- the reader's working copy

def copy_course(dest: str | Path | None = None, source: str | Path | None = None) -> list[Path]:
    """Copy the course's notebooks into `dest` (default notebooks-local/), never overwriting a file.

    Returns the files copied. A reader resets one notebook by deleting its copy and running
    `make lab` again; the committed notebooks in notebooks/ are never opened by the lab.
    """
    source = Path(source) if source else repo_root() / "notebooks"
    dest = Path(dest) if dest else repo_root() / WORKING_COPY
    copied = []
    for notebook in sorted(source.rglob("*.ipynb")):
        if ".ipynb_checkpoints" in notebook.parts:
            continue
        target = dest / notebook.relative_to(source)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(notebook, target)
            copied.append(target)
    trust(copied)
    return copied


def trust(notebooks: list[Path]) -> None:
    """Sign the course's own notebooks as trusted (what `jupyter trust` does), so JupyterLab does
    not report each one as "not trusted" when it opens: their committed outputs are the course's."""
    import nbformat
    from nbformat.sign import NotebookNotary

    notary = NotebookNotary()
    for path in notebooks:
        try:
            notary.sign(nbformat.read(path, as_version=4))
        except (OSError, ValueError):  # not a notebook JupyterLab could open either: nothing to trust
            continue


def working_copy(dest: Path) -> None:
    """Make or top up the working copy, and say in one line what happened."""
    copied = copy_course(dest)
    kept = sum(1 for _ in dest.rglob("*.ipynb")) - len(copied)
    where = dest.relative_to(Path.cwd()) if dest.is_relative_to(Path.cwd()) else dest
    print(f"Working copy {where}/: {len(copied)} notebook(s) copied, {kept} of yours kept as they are "
          f"(delete a file, or the folder, and run `make lab` again to start it afresh).")


# --------------------------------------------------------------------------- one model for every notebook

SERVER_SLOTS = 4  # conversations the shared server keeps a prompt cache for at once
_READY = re.compile(r"AGENT_MEMORY_LLM_URL=(\S+)")


@dataclass
class ModelServer:
    """`python -m helpers.llm serve` in the background, for as long as the lab runs.

    It runs in its own session, so the Ctrl-C that asks JupyterLab to stop does not kill it
    while kernels may still use it; it stops when `stop()` closes its stdin, or when the
    process that started it dies (its stdin closes then too).
    """

    process: subprocess.Popen[bytes]
    url: str
    seconds: float
    log: Path
    key: str = ""  # its secret, for kernels as AGENT_MEMORY_LLM_KEY

    def stop(self, timeout: float = 20) -> None:
        if self.process.poll() is not None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def why_no_shared_server(environ: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """None when `make lab` should start a model server; else the reason it does not."""
    environ = os.environ if environ is None else environ
    if environ.get("OPENAI_API_KEY"):
        return "OPENAI_API_KEY is set: the notebooks call OpenAI, no local model is loaded."
    if environ.get("AGENT_MEMORY_LLM_URL"):
        return f"AGENT_MEMORY_LLM_URL is set: every kernel uses the model server at {environ['AGENT_MEMORY_LLM_URL']}."
    return None


def start_model_server(slots: int = SERVER_SLOTS, *, timeout: float = 600, log: Path | None = None,
                       command: list[str] | None = None) -> ModelServer:
    """Load the model once in a background process on a free loopback port; return when it answers.

    `command` replaces the server's command line (tests): it must print AGENT_MEMORY_LLM_URL=<url>.
    """
    from helpers.paths import cache_dir

    log = log or cache_dir() / "model-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    from helpers.llm.engine import new_secret

    started, key = time.perf_counter(), new_secret()
    with open(log, "wb") as out:  # the child keeps its own handle
        process = subprocess.Popen(
            command or [sys.executable, "-m", "helpers.notebook", "model-server", str(slots)],
            stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, cwd=repo_root(),
            start_new_session=True, env={**os.environ, KEY_VARIABLE: key})
    server = ModelServer(process, "", 0.0, log, key)
    try:
        while not (found := _READY.search(log.read_text(errors="replace"))):
            if process.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the model server exited (code {process.returncode}): {tail}")
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"the model server did not start within {timeout:.0f} s (see {log})")
            time.sleep(0.2)
    except BaseException:
        server.stop(timeout=5)
        raise
    server.url, server.seconds = found.group(1), time.perf_counter() - started
    return server


def _model_server(slots: int) -> None:
    """The background process: `helpers.llm.serve`, until stdin closes (the launcher stopped or died)."""
    from helpers import llm

    def leave_with_the_launcher() -> None:
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=leave_with_the_launcher, daemon=True).start()
    llm.serve(slots)


def lab(dest: Path, jupyter_args: list[str], *, jupyter: list[str] | None = None,
        server_command: list[str] | None = None) -> int:
    """`make lab`: the working copy, a shared model server when one is needed, then JupyterLab.

    JupyterLab's own output ends with the URL and its token; the model server stops with it.
    `jupyter` and `server_command` replace the two command lines (tests).
    """
    working_copy(dest)
    env = dict(os.environ)
    server = None
    reason = why_no_shared_server(env)
    if reason:
        print(reason)
    else:
        print("Loading the model once, in a shared model server for every notebook...", flush=True)
        try:
            server = start_model_server(command=server_command)
        except RuntimeError as error:
            print(f"No shared model server ({error}); each notebook will load its own copy of the model.")
        else:
            env["AGENT_MEMORY_LLM_URL"], env["AGENT_MEMORY_LLM_KEY"] = server.url, server.key
            print(f"Model server ready at {server.url} in {server.seconds:.0f} s "
                  f"(stops with JupyterLab; log: {server.log}).")
    print("Starting JupyterLab; open the URL with the token below (Ctrl-C twice to stop).", flush=True)
    # The printed URL opens notebook 00 (JupyterLab prints its default URL, with the token).
    first = [f"--LabApp.default_url=/lab/tree/{p.name}" for p in sorted(dest.glob("*.ipynb"))[:1]]
    # Kernels get CurveZMQ keys (the kernelspec supports them): their traffic is encrypted, and no
    # kernel prints "running over TCP without encryption".
    command = [*(jupyter or [sys.executable, "-m", "jupyter", "lab"]), *first,
               f"--ServerApp.root_dir={dest}", "--log-level=WARN", "--LabApp.log_level=WARN",
               "--KernelManager.transport_encryption=auto", *jupyter_args]
    try:
        running = subprocess.Popen(command, env=env)
        # Asked to stop (kill, a closed terminal): JupyterLab stops first, then the model server.
        for stop in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(stop, lambda *_: running.terminate())
        while True:
            try:
                return running.wait()
            except KeyboardInterrupt:  # Ctrl-C reaches JupyterLab too: it asks, then stops on its own
                continue
    finally:
        if server is not None:
            server.stop()
            print("Model server stopped.")


def with_model_server(command: list[str], *, server_command: list[str] | None = None) -> int:
    """`make test`'s model steps: run `command` with one shared model server, as `make lab` does.

    Every process under `command` (pytest workers, notebook kernels, the lab the browser test
    starts) reaches the model through AGENT_MEMORY_LLM_URL: the model is loaded once, prompts one
    client computed stay in the server's prompt cache for the next, and concurrent clients'
    tokens are decoded in one batch. Returns the command's exit code; the server stops after it.
    `server_command` replaces the server's command line (tests).
    """
    env = dict(os.environ)
    reason = why_no_shared_server(env)
    if reason:
        print(reason, flush=True)
        return subprocess.call(command, env=env)
    # Its own log: a `make lab` running beside it keeps the default one.
    with tempfile.TemporaryDirectory(prefix="model-server-") as logs:
        server = start_model_server(command=server_command, log=Path(logs) / "server.log")
        env["AGENT_MEMORY_LLM_URL"], env["AGENT_MEMORY_LLM_KEY"] = server.url, server.key
        print(f"Model server ready at {server.url} in {server.seconds:.0f} s.", flush=True)
        try:
            return subprocess.call(command, env=env)
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    """`python -m helpers.notebook [DEST]`: make or top up the working copy.

    `python -m helpers.notebook lab DEST [JUPYTER ARGS]`: `make lab` (copy, model server, JupyterLab).
    `python -m helpers.notebook model-server [SLOTS]`: the shared server (started by `lab`).
    `python -m helpers.notebook with-model-server -- COMMAND...`: COMMAND on one shared server.
    """
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["lab"]:
        return lab(Path(args[1]) if len(args) > 1 else repo_root() / WORKING_COPY, args[2:])
    if args[:1] == ["with-model-server"]:
        command = args[2:] if args[1:2] == ["--"] else args[1:]
        if not command:
            print("usage: python -m helpers.notebook with-model-server -- COMMAND [ARGS...]", file=sys.stderr)
            return 2
        return with_model_server(command)
    if args[:1] == ["model-server"]:
        _model_server(int(args[1]) if len(args) > 1 else SERVER_SLOTS)
        return 0
    working_copy(Path(args[0]) if args else repo_root() / WORKING_COPY)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
