"""The built-in adapter: the console, for `mneme chat` (and a bot run as `mneme run console`)."""

from __future__ import annotations

from typing import Any

from ...hookspecs import hookimpl
from ..console import ConsoleAdapter


@hookimpl(trylast=True)
def register_adapters(register: Any) -> None:
    register(ConsoleAdapter)
