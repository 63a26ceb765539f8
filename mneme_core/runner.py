"""Where the runner used to live: it is in the bot layer now (`mneme_core.bot.runner`); this module keeps
old imports working."""

from __future__ import annotations

from .bot.conversation import compose
from .bot.models import build_model, close_model, model_from_config
from .bot.runner import Outcome, Runner, build_adapters, run_bot
from .bot.settings import BotSettings, RunnerSettings

__all__ = [
    "BotSettings",
    "Outcome",
    "Runner",
    "RunnerSettings",
    "build_adapters",
    "build_model",
    "close_model",
    "compose",
    "model_from_config",
    "run_bot",
]
