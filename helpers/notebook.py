"""What every notebook starts with, and what runs around it.

`setup()` is the set-up cell: pinned date, backend banner, the shared model. `Progress`
shows a bar and the elapsed time while a model cell works, so a reader never stares at
`[*]`. `copy_course()` makes the reader's working copy that `make lab` opens, so running
the notebooks never rewrites the committed course.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agents.models.interface import Model

from helpers.llm import Backend, active_backend, get_model

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
    print(f"Backend: {backend.kind} ({backend.model_name}). {backend.reason}")
    return NotebookEnv(now=now, clock=fixed_clock(now), backend=backend, model=model)


# --------------------------------------------------------------------------- progress for model cells

def measured_speed() -> tuple[float, float] | None:
    """(prompt tokens/s, generated tokens/s) of the embedded model in this process so far, or None.

    Estimates come from what this machine has measured, never from a number in the docs.
    """
    from helpers import llm

    loaded = getattr(llm, "_embedded", None)  # never load the model just to estimate
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
    return copied


def main(argv: list[str] | None = None) -> int:
    """`python -m helpers.notebook [DEST]`: make or top up the working copy, say what happened."""
    args = sys.argv[1:] if argv is None else argv
    dest = Path(args[0]) if args else repo_root() / WORKING_COPY
    copied = copy_course(dest)
    kept = sum(1 for _ in dest.rglob("*.ipynb")) - len(copied)
    where = dest.relative_to(Path.cwd()) if dest.is_relative_to(Path.cwd()) else dest
    print(f"Working copy {where}/: {len(copied)} notebook(s) copied, {kept} of yours kept as they are "
          f"(delete a file, or the folder, and run `make lab` again to start it afresh).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
