"""The bot-level hooks, called from the bot layer only: adapters, model providers, `resolve_subject` and
`extra_prompt_sections`.

The engine's plugin manager (`mneme_core.plugins`) loads every plugin and collects the engine's registries;
the bot's families are collected here, when a bot starts (`ready`), so making a `Mneme` never calls a
bot-level hook nor loads this package. `ready` also registers the bot's built-in plugins
(`default_plugins`: the console adapter, the offline stand-in, the fallback subject), `trylast` so any
plugin goes before them, and collects the adapters and providers at once, so a bad registration fails when
the bot starts rather than when its first message arrives.

The policies of the two bot-level hooks with a meaning of their own live here: `resolve_subject` takes the
first answer that is a valid subject (an invalid one is logged, naming the plugin, and passed over), and
`extra_sections` keeps the text sections in call order, leaving out blank ones and anything that is not
text.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from .. import calling
from ..errors import describe
from ..memory.note import subject_of as checked_subject
from ..plugins import BOT_FAMILIES, DISTRIBUTION, Manager, Origin, make_manager
from .incoming import subject_for

__all__ = ["BUILT_IN", "extra_sections", "plugins_of", "ready", "resolve_subject"]

log = logging.getLogger(__name__)

BUILT_IN = (
    "mneme_core.bot.default_plugins.subjects",
    "mneme_core.bot.default_plugins.adapters",
    "mneme_core.bot.default_plugins.offline",
)


def plugins_of(mneme: Any) -> Manager:
    """The engine's plugin manager; a fresh one for an engine without (a host's own stand-in)."""
    found = getattr(mneme, "plugins", None)
    return found if isinstance(found, Manager) else make_manager()


def ready(manager: Manager) -> Manager:
    """`manager` with the bot's built-in plugins registered (once) and the bot's registries collected."""
    for name in BUILT_IN:
        if not manager.has_plugin(name):
            manager.origins[name] = Origin("built in", DISTRIBUTION)
            manager.register(importlib.import_module(name), name=name)
    for family in BOT_FAMILIES:
        manager.registry(family)
    return manager


async def resolve_subject(manager: Manager, platform: str, user_id: str, within: float | None = None) -> str:
    """The subject of a platform user: the first plugin's answer that is a valid subject, else
    `platform:user_id`. A plugin that takes over `within` seconds is passed over, as one that fails."""
    found = await calling.afirst(
        manager.hook.resolve_subject, checked_subject, within=within, platform=platform, user_id=user_id
    )
    return found if found is not None else subject_for(platform, user_id)


async def extra_sections(manager: Manager, mneme: Any, subject: str, query: str) -> list[str]:
    """The prompt sections plugins add, in call order; blank ones and anything not text left out."""
    found = await calling.aeach(manager.hook.extra_prompt_sections, mneme=mneme, subject=subject, query=query)
    sections = []
    for plugin, value in found:
        for section in value if isinstance(value, list | tuple) else [value]:
            if not isinstance(section, str):
                log.warning("plugin %s gave a prompt section that is not text: %s", plugin, describe(section))
            elif section.strip():
                sections.append(section.strip())
    return sections
