"""The `mneme` command: look into a companion's file, fix it, move it.

One command group per file in this package; this file holds the group and its shared options. Options fall
back to the environment (`MNEME_DB`, `MNEME_SPACE`), so a shell session can name its file once.
"""

from __future__ import annotations

import click

from .. import __version__
from ..errors import MnemeError
from ..mneme import Mneme


class Context:
    """What every command needs: where the file is and whose memory (space) to open."""

    def __init__(self, db: str, space: str) -> None:
        self.db, self.space = db, space

    def open(self) -> Mneme:
        try:
            return Mneme(self.db, space=self.space)
        except MnemeError as err:
            raise click.ClickException(str(err)) from err


@click.group()
@click.version_option(__version__, prog_name="mneme")
@click.option("--db", envvar="MNEME_DB", default="mneme.db", show_default=True, help="The companion's file.")
@click.option("--space", envvar="MNEME_SPACE", default="default", show_default=True, help="Whose memory.")
@click.pass_context
def main(ctx: click.Context, db: str, space: str) -> None:
    """Memory and mood for AI companions, in one SQLite file."""
    ctx.obj = Context(db, space)


from . import notes  # noqa: E402  (registers the note commands on `main`)

__all__ = ["main", "notes"]
