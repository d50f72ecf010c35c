"""The set-up cell every notebook starts with: pinned date, backend banner, shared model."""

from __future__ import annotations

from dataclasses import dataclass

from agents.models.interface import Model

from helpers.llm import Backend, active_backend, get_model
from helpers.state import Clock, fixed_clock

COURSE_NOW = "2026-11-30T09:00:00Z"  # "today" for every notebook, so outputs are reproducible


@dataclass
class NotebookEnv:
    now: str
    clock: Clock
    backend: Backend
    model: Model


def setup(now: str = COURSE_NOW) -> NotebookEnv:
    """Pin today's date, pick the backend and load the model once; print what was chosen and why."""
    backend = active_backend()
    model = get_model()
    print(f"Today is pinned to {now[:10]}.")
    print(f"Backend: {backend.kind} ({backend.model_name}). {backend.reason}")
    return NotebookEnv(now=now, clock=fixed_clock(now), backend=backend, model=model)
