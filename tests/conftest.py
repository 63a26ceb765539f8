"""Shared fixtures: a frozen clock that moves only when told, a fresh database path, an open `Mneme`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mneme_core import Mneme

# 2024-03-01 12:00:00 UTC, which is 20:00 in UTC+8.
START = 1_709_294_400.0


class Clock:
    """A frozen clock: `clock()` returns the same time until `advance` or `set` moves it."""

    def __init__(self, now: float = START) -> None:
        self.now = float(now)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float = 0.0, *, minutes: float = 0.0, hours: float = 0.0, days: float = 0.0):
        self.now += seconds + 60.0 * minutes + 3600.0 * hours + 86400.0 * days
        return self.now

    def set(self, now: float) -> float:
        self.now = float(now)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mneme.db"


@pytest.fixture
def mneme(db_path: Path, clock: Clock) -> Iterator[Mneme]:
    m = Mneme(db_path, space="test", clock=clock, zone="UTC+8")
    try:
        yield m
    finally:
        m.close()


@pytest.fixture(autouse=True)
def no_installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed plugins stay out of tests that did not ask for them (tests of loading set their own)."""
    monkeypatch.setenv("MNEME_LOAD_PLUGINS", "")
