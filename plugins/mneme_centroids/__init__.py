"""Word centroids: a tier between the embedder and words, learned from the embedder's own vectors.

Registered through the entry-point group `mneme` (`centroids = "mneme_centroids"`) like a third party's
plugin; it needs numpy (the `embed` extra) and a companion with an embedder (`Mneme(embed=...)`), and does
nothing for one without. Leave it out with `MNEME_LOAD_PLUGINS`.

Each term of a person's term index keeps a running mean of the vectors of the notes holding it (`schema`,
`learning`); when the embedder cannot place a query, the query's words place it (`tier`). Its settings, all
optional, are the `[plugins.centroids]` table: `min_notes` (40) and `min_share` (0.6).
"""

from __future__ import annotations

from typing import Any

from mneme_core.hookspecs import hookimpl
from mneme_core.store.postgres.dialect import Dialects

from .schema import CENTROIDS_0001, CENTROIDS_0001_POSTGRES, REINDEXED_0002, REINDEXED_0002_POSTGRES
from .settings import SETTINGS

__all__ = ["Centroids", "make_tier", "register_migrations", "register_settings", "register_tiers"]


def __getattr__(name: str) -> Any:
    # The tier needs numpy, which only the `embed` extra brings: imported when used, never at start-up, so
    # installing Mneme without extras never stops a companion from opening.
    if name == "Centroids":
        from .tier import Centroids

        return Centroids
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_tier(mneme: Any) -> Any:
    """The tier for one companion, with its `[plugins.centroids]` settings; none for a companion without an
    embedder (it has no vectors to learn from, and its writes should not pay for looking)."""
    if mneme.meaning is None:
        return None
    from .tier import Centroids

    return Centroids(mneme, **SETTINGS.read(mneme.config.table("plugins.centroids")))


make_tier.name = "centroids"  # type: ignore[attr-defined]


@hookimpl
def register_migrations(register: Any) -> None:
    register("0001_centroids", Dialects(CENTROIDS_0001, CENTROIDS_0001_POSTGRES))
    register("0002_reindexed", Dialects(REINDEXED_0002, REINDEXED_0002_POSTGRES))


@hookimpl
def register_tiers(register: Any) -> None:
    register(make_tier, name="centroids")


@hookimpl
def register_settings(register: Any) -> None:
    SETTINGS.register(register)
