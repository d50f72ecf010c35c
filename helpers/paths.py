"""Stage 0 — setup (notebook 00): where the course's files live, found from the package, never the working directory."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    return repo_root() / "data"


def cache_dir() -> Path:
    """Where the joined model file is kept; AGENT_MEMORY_CACHE overrides it."""
    override = os.environ.get("AGENT_MEMORY_CACHE")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "agent-memory-notebooks"
