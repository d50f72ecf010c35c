"""The lifecycle tests' clock: they start on 2026-11-02 (tests/conftest.py's `store` opens on it)."""

import pytest

from helpers.lifecycle import MovableClock


@pytest.fixture
def clock():
    return MovableClock("2026-11-02T09:00:00Z")
