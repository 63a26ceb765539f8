"""The plugin's settings, the NoneBot way: keys of the driver's config (`.env`, `.env.prod`, or the
environment), each with the `mneme_` prefix, read through NoneBot's plugin config model
(`nonebot.get_plugin_config(Config)`) when the driver starts.

    MNEME_DB=companion.db          # the companion's file (the one `mneme --db` opens)
    MNEME_SPACE=default            # the companion in it
    MNEME_CONFIG=bot.toml          # its config (persona, [plugins.openai], bot.*, [adapters.onebot]),
                                   # taken the first time the file meets the space, as `mneme` does
    MNEME_ANSWER=false             # true: the plugin answers by itself, through the bot layer's runner
    MNEME_MODEL=openai             # answering: the model provider; default the first configured one
    MNEME_PERSONA="You are Mio."   # default: companion.persona of the config

They are the names `mneme` and the Discord cog read from the environment, so one `.env` serves the
command line and the bot. Everything else (timeouts, how much of the conversation the model sees, the
platform of a OneBot v11 bridge) is in the companion's own config, as for every other adapter.

Nothing here imports NoneBot: only pydantic, which NoneBot brings.
"""

from __future__ import annotations

from pydantic import BaseModel

from mneme_core import text
from mneme_core.errors import InvalidValue, describe

__all__ = ["Config"]


class Config(BaseModel):
    """The `mneme_*` keys of NoneBot's config."""

    mneme_db: str = "mneme.db"
    mneme_space: str = "default"
    mneme_config: str | None = None
    mneme_answer: bool = False
    mneme_model: str | None = None
    mneme_persona: str | None = None

    def checked(self) -> Config:
        """The settings, each checked: a blank or multi-line value is refused, naming its key."""
        for key in ("mneme_db", "mneme_space", "mneme_config", "mneme_model"):
            value = getattr(self, key)
            if value is not None and (not value.strip() or text.clean(value) != value):
                raise InvalidValue(f"{key.upper()} is one line of text, not {describe(value)}")
        return self
