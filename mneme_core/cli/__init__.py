"""The `mneme` command: look into a companion's file, fix it, move it.

One command group per file in this package; this file holds the group and its shared options. Options fall
back to the environment (`MNEME_DB`, `MNEME_SPACE`, `MNEME_CONFIG`), so a shell session can name its file
once.
"""

from __future__ import annotations

import click

from .. import __version__
from ..errors import MnemeError
from ..mneme import Mneme


class Context:
    """What every command needs: where the file is and whose memory (space) to open."""

    def __init__(self, db: str, space: str, config: str | None = None) -> None:
        self.db, self.space, self.config = db, space, config

    def open(self) -> Mneme:
        try:
            return Mneme(self.db, space=self.space, config=self.config)
        except MnemeError as err:
            raise click.ClickException(str(err)) from err


@click.group()
@click.version_option(__version__, prog_name="mneme")
@click.option("--db", envvar="MNEME_DB", default="mneme.db", show_default=True, help="The companion's file.")
@click.option("--space", envvar="MNEME_SPACE", default="default", show_default=True, help="Whose memory.")
@click.option(
    "--config",
    envvar="MNEME_CONFIG",
    type=click.Path(dir_okay=False),
    default=None,
    help="The companion's TOML config, taken the first time the file meets the companion.",
)
@click.pass_context
def main(ctx: click.Context, db: str, space: str, config: str | None) -> None:
    """Memory and mood for AI companions, in one SQLite file."""
    ctx.obj = Context(db, space, config)


from . import bot, config, notes, tools  # noqa: E402  (each registers its commands on `main`)

__all__ = ["bot", "config", "main", "notes", "tools"]
