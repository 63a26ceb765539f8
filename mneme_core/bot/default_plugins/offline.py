"""The built-in provider: the offline stand-in (`mneme_core.bot.offline`), what answers when no model is
configured."""

from __future__ import annotations

from typing import Any

from ...hookspecs import hookimpl
from ..offline import OfflineModel


@hookimpl(trylast=True)
def register_providers(register: Any) -> None:
    register(OfflineModel)
