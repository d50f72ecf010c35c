"""The pytest side of tests/replay.py: nbval's kernels replay each notebook's recorded model replies.

Under `--model-replies=replay` (the default), the kernel nbval starts for a notebook (at its first
cell) gets `replay_env(notebook)`: the replaying engine, that notebook's replies file, and no model
server address, so every cell, model cells included, is compared exactly and no model runs.
`--model-replies=live` (`make test-live`) runs the notebooks on the live model instead, and there a
cell tagged `model-output` (its output is the model's words: exact under replay) is not compared,
as a live model's wording may differ from the recording on another CPU. The browser
tests give JupyterLab the same environment. Loaded for every path by the repository's conftest.py:
a conftest under tests/ would not see the notebooks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.replay import FACTORY_ENV, HASH_SEED, REPLAY_FACTORY, REPLIES_ENV, replies_path

ROOT = Path(__file__).resolve().parent.parent
LIVE_ONLY = ("AGENT_MEMORY_LLM_URL",)  # a replaying kernel reaches no model server
MODEL_OUTPUT = "model-output"  # the cell tag: compared under replay, not against a live model


def pytest_addoption(parser):
    parser.addoption("--model-replies", choices=("replay", "live"), default="replay",
                     help="notebooks (nbval, browser tests): replay the replies `make notebooks` recorded "
                          "(default), or run the live model")


def replaying(config: pytest.Config) -> bool:
    return config.getoption("--model-replies") == "replay"


def replay_env(notebook: Path) -> dict[str, str]:
    """What a kernel needs to replay `notebook`'s recorded replies (tests/ must be importable)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {FACTORY_ENV: REPLAY_FACTORY, REPLIES_ENV: str(replies_path(notebook.resolve())), "PYTHONPATH": path,
            **HASH_SEED}


@contextmanager
def environment(changes: dict[str, str], *, drop: tuple[str, ...] = LIVE_ONLY) -> Iterator[None]:
    """os.environ with `changes` and without `drop`, restored afterwards."""
    saved = {k: os.environ.get(k) for k in (*drop, *changes)}
    for key in drop:
        os.environ.pop(key, None)
    os.environ.update(changes)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if item.path.suffix != ".ipynb" or not replaying(item.config):
        yield
        return
    with environment(replay_env(item.path)):
        yield


def pytest_collection_modifyitems(config, items):
    if replaying(config):
        return
    for item in items:
        cell = getattr(item, "cell", None)  # nbval's cells
        if cell is not None and MODEL_OUTPUT in cell.metadata.get("tags", []):
            item.options["check"] = False
