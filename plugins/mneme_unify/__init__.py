"""Unify: the companion's own model as a meaning tier, between word centroids and words.

Registered through the entry-point group `mneme` (`unify = "mneme_unify"`) like a third party's plugin. It
works for a companion with a model (`Mneme(complete=...)`) and a memory language (`memory_language`,
"English" by default; "" turns it off), and does nothing for one without. Notes in another script are
glossed once into the memory language in the background; a query in another script is translated, once,
and matched as words (see `tier`). Settings, all optional, are the `[plugins.unify]` table: `timeout`
(seconds a translation may take on the reply's path, 8), `batch` (notes per gloss request, 16), `cache`
(translations kept, 256) and `background` (gloss on a thread of its own, true).
"""

from __future__ import annotations

from typing import Any

from mneme_core.hookspecs import hookimpl

from .settings import SETTINGS
from .tier import Unify

__all__ = ["Unify", "make_tier", "register_migrations", "register_settings", "register_tiers"]


def make_tier(mneme: Any) -> Unify | None:
    """The tier for one companion; None without a model or a memory language."""
    if mneme.complete is None or not mneme.memory_language:
        return None
    settings = SETTINGS.read(mneme.config.table("plugins.unify"))
    return Unify(mneme.store, mneme.complete, mneme.memory_language, mneme.prompts, **settings)


make_tier.name = "unify"  # type: ignore[attr-defined]


@hookimpl
def register_migrations(register: Any) -> None:
    register(
        "0001_marks",
        "create table if not exists unify_marks(language text primary key, upto integer not null) "
        "without rowid;",
    )


@hookimpl
def register_tiers(register: Any) -> None:
    register(make_tier, name="unify")


@hookimpl
def register_settings(register: Any) -> None:
    SETTINGS.register(register)
