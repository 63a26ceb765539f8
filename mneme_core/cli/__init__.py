"""The `mneme` command: look into a companion's file, fix it, move it.

One command group per file in this package; this file holds the group and its shared options. Options fall
back to the environment (`MNEME_DB`, `MNEME_SPACE`, `MNEME_CONFIG`), so a shell session can name its file
once.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import click

from .. import __version__
from ..errors import MnemeError
from ..mneme import Mneme

log = logging.getLogger(__name__)


class OneLine(logging.Formatter):
    """Log lines for a person at a terminal: the message alone, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        return "mneme: " + record.getMessage()


def quiet_logging() -> None:
    """Warnings as one line each on stderr, unless the host configured logging itself."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(OneLine())
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


class Refused(click.ClickException):
    """A command that cannot do what it was asked: its message on one line, exit code 2."""

    exit_code = 2


def echo_json(value: Any) -> None:
    """What a script would want: one JSON document on stdout."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=1, default=str))


class Context:
    """What every command needs: where the file is and whose memory (space) to open."""

    def __init__(self, db: str, space: str, config: str | None = None, *, space_given: bool = False) -> None:
        self.db, self.space, self.config = db, space, config
        self.space_given = space_given
        """Whether `--space` was written on the command line (not taken from MNEME_SPACE or the default)."""

    def open(self, embed: Any = "", space: str | None = None) -> Mneme:
        """The companion's `Mneme` (of `space`, else the context's), with words only unless a command asks
        for an embedder (`embed=None` takes `memory.embed`, a name takes that one): a quick look at the file
        never loads a model or calls an endpoint, and still opens when `memory.embed` names something not
        installed here."""
        try:
            return Mneme(self.db, space=space or self.space, config=self.config, embed=embed)
        except MnemeError as err:
            raise Refused(str(err)) from err


class Commands(click.Group):
    """The `mneme` group, with the commands plugins add (`register_commands`) found on first use.

    A plugin that fails is named in the log and left out: the rest of the CLI keeps working."""

    _plugged = False

    def _plug(self) -> None:
        if self._plugged:
            return
        self._plugged = True
        quiet_logging()
        from ..plugins import PluginError, make_manager  # the manager loads plugins: only when needed

        try:
            make_manager().add_commands(self)
        except PluginError as err:
            click.echo(f"mneme: plugins left out: {err}", err=True)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._plug()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        found = super().get_command(ctx, name)
        if found is None:
            self._plug()
            found = super().get_command(ctx, name)
        return found


@click.group(cls=Commands)
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
    given = ctx.get_parameter_source("space") == click.core.ParameterSource.COMMANDLINE
    ctx.obj = Context(db, space, config, space_given=given)


from . import bot, check, config, notes, people, tools  # noqa: E402  (each registers its commands on `main`)

__all__ = ["Refused", "bot", "check", "config", "echo_json", "main", "notes", "people", "tools"]
