"""Test-wide settings, and no silent skips.

A test marked `browser` needs Debian's chromium and pip's playwright; one marked `model` needs the
embedded model. Where they are missing the test does not run: under `CI=true` that fails the run
(CI must run every test), elsewhere the run ends with a list of what did not run and the one
command that installs what is missing.
"""

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agents import set_tracing_disabled

from helpers.lifecycle import MovableClock
from helpers.state import MemoryNote
from helpers.store import MemoryStore
from helpers.write_policy import DEFAULT_WRITE_POLICY, rules_only

# Tests never upload traces: there is no key, and retries would slow every exit.
set_tracing_disabled(True)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHROMIUM = Path(os.environ.get("AGENT_MEMORY_CHROMIUM", "/usr/bin/chromium"))
INSTALL = {
    "chromium": "sudo apt-get install chromium",
    "playwright": "python -m pip install -e '.[test]'",
}
NEEDS_ALL = ("browser", "model")  # markers of tests that may never be skipped in CI


def notes_dated(default_day: str) -> Callable[..., MemoryNote]:
    """A `note(text, observed_at=default_day, **fields)` factory: a memory note for a test, any
    other field by name. Imported by the tests (`from tests.conftest import note`)."""

    def note(text: str, observed_at: str = default_day, **fields: Any) -> MemoryNote:
        return MemoryNote(text=text, observed_at=observed_at, **fields)

    return note


note = notes_dated("2026-05-01")

# Storage-mechanics tests (a crash, a full disk, damaged pages) write synthetic filler in bulk
# ("merged note 17 mmm..."): the rules alone there, as the probe veto reads each new note (some
# 30 ms) and such filler means nothing to it. The veto at the store's boundary: tests/capture/test_veto.py.
RULES_ALONE = rules_only(DEFAULT_WRITE_POLICY)

NOW = "2026-06-01T09:00:00Z"  # the tests' "now", unless a stage's conftest.py or a module sets its own


@pytest.fixture
def clock():
    """A clock at NOW that a test can move (`clock.set(...)`, `clock.advance(days=...)`); a
    stage's conftest.py or a test module overrides it to start elsewhere."""
    return MovableClock(NOW)


@pytest.fixture
def store(clock):
    """An in-memory store on `clock`: the one `store` fixture every stage's tests share."""
    with MemoryStore.open(":memory:", clock=clock) as store:
        yield store


def _browser_missing() -> str | None:
    if not CHROMIUM.exists():
        return f"Debian's chromium is not at {CHROMIUM}; install it with: {INSTALL['chromium']}"
    if importlib.util.find_spec("playwright") is None:
        return f"pip's playwright is not installed; install it with: {INSTALL['playwright']}"
    return None


def pytest_collection_modifyitems(items):
    """nbval's cells carry the marker `notebook`, so `-m "model or notebook"` selects every model run."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker("notebook")


def pytest_runtest_setup(item):
    if item.get_closest_marker("browser"):
        missing = _browser_missing()
        if missing:
            pytest.skip(missing)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CI, a browser or model test that skips (for any reason) fails instead."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and any(item.get_closest_marker(m) for m in NEEDS_ALL):
        report.outcome = "failed"
        report.longrepr = (f"did not run, and CI=true requires every browser and model test to run: "
                           f"{_reason(report)}")


def _reason(report) -> str:
    longrepr = report.longrepr
    return longrepr[2].removeprefix("Skipped: ") if isinstance(longrepr, tuple) else str(longrepr)


def pytest_terminal_summary(terminalreporter):
    not_run = [r for r in terminalreporter.stats.get("skipped", [])
               if any(m in r.keywords for m in NEEDS_ALL)]
    if not not_run:
        return
    terminalreporter.section("tests that did not run", yellow=True, bold=True)
    for report in not_run:
        terminalreporter.write_line(f"{report.nodeid}: {_reason(report)}")
    commands = {c for r in not_run for c in INSTALL.values() if c in _reason(r)}
    for command in sorted(commands):
        terminalreporter.write_line(f"To run them: {command}", bold=True)
