"""The built-in adapter: the console, for `mneme chat` (and a bot run as `mneme run console`)."""

from __future__ import annotations

from typing import Any

from ..console import ConsoleAdapter
from ..hookspecs import hookimpl


@hookimpl(trylast=True)
def register_adapters(register: Any) -> None:
    register(ConsoleAdapter)
