"""Fixtures the lifecycle tests share: a movable clock and an in-memory store on it (a test module
that needs another store defines its own `store`, which takes precedence)."""

import pytest

from helpers.lifecycle import MovableClock
from helpers.store import MemoryStore


@pytest.fixture
def clock():
    return MovableClock("2026-11-02T09:00:00Z")


@pytest.fixture
def store(clock):
    with MemoryStore.open(":memory:", clock=clock) as store:
        yield store
