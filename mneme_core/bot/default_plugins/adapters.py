"""The built-in adapter: the console, for `mneme chat` (and a bot run as `mneme run console`)."""

from __future__ import annotations

from typing import Any

from ...hookspecs import hookimpl
from ..console import SETTINGS, ConsoleAdapter


@hookimpl(trylast=True)
def register_adapters(register: Any) -> None:
    register(ConsoleAdapter)


@hookimpl
def register_settings(register: Any) -> None:
    """`[adapters.console]`: who is at the terminal."""
    SETTINGS.register(register)
