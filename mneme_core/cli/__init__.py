"""The `mneme` command: look into a companion's file, fix it, move it.

One command group per file in this package; this file holds the group and its shared options. Options fall
back to the environment (`MNEME_DB`, `MNEME_SPACE`, `MNEME_CONFIG`), so a shell session can name its file
once.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from typing import Any

import click

from .. import __version__
from ..config.toml import database as database_in
from ..errors import MnemeError
from ..mneme import Mneme
from ..store.location import is_url

log = logging.getLogger(__name__)


class OneLine(logging.Formatter):
    """Log lines for a person at a terminal: the message alone on one line, never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        return "mneme: " + one_line(record.getMessage())


def one_line(message: object) -> str:
    """A message on one line: a library's error text often runs over several ("Got: ...\nAn error...")."""
    return " ".join(str(message).split())


TERMINAL = "mneme terminal"
"""The name of the handler `quiet_logging` puts on the root logger (and `bot_logging` turns into a log)."""


def quiet_logging() -> None:
    """Warnings as one line each on stderr, unless the host configured logging itself."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.set_name(TERMINAL)
        handler.setFormatter(OneLine())
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


def bot_logging() -> None:
    """A bot's log rather than a person's terminal (`mneme run`): every line timed, from INFO, tracebacks
    kept. Only the handler `quiet_logging` made changes; a host's own logging is left as it is."""
    root = logging.getLogger()
    for handler in root.handlers:
        if handler.get_name() == TERMINAL:
            handler.setLevel(logging.INFO)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            root.setLevel(logging.INFO)


class Refused(click.ClickException):
    """A command that cannot do what it was asked: its message on one line, exit code 2."""

    exit_code = 2

    def __init__(self, message: object) -> None:
        super().__init__(one_line(message))


def echo_json(value: Any) -> None:
    """What a script would want: one JSON document on stdout."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=1, default=str))


class Context:
    """What every command needs: where the file is and whose memory (space) to open."""

    def __init__(self, db: str, space: str, config: str | None = None, *, space_given: bool = False) -> None:
        self.db, self.space, self.config = db, space, config
        self.space_given = space_given
        """Whether `--space` was written on the command line (not taken from MNEME_SPACE or the default)."""

    def open(self, embed: Any = "", space: str | None = None, *, reads: bool = False) -> Mneme:
        """The companion's `Mneme` (of `space`, else the context's), with words only unless a command asks
        for an embedder (`embed=None` takes `memory.embed`, a name takes that one): a quick look at the file
        never loads a model or calls an endpoint, and still opens when `memory.embed` names something not
        installed here. A command that `reads` only refuses a file that is not there rather than make it
        (and its folders) for a mistyped --db."""
        if reads:
            self.exists()
        try:
            return Mneme(self.db, space=space or self.space, config=self.config, embed=embed)
        except MnemeError as err:
            raise Refused(str(err)) from err
        except (OSError, sqlite3.Error) as err:  # a folder in the way, a disk that refuses: one line
            raise Refused(unopenable(self.db, err)) from err

    def exists(self) -> None:
        """Refuse, in one line, to read a companion's file that is not there."""
        if self.db != ":memory:" and not is_url(self.db) and not os.path.exists(self.db):
            raise Refused(
                f"no companion file at {self.db}: nothing to read, and a command that only reads makes none "
                "(check --db or MNEME_DB; `mneme remember` or `mneme run` starts one)"
            )


def unopenable(db: str, err: BaseException) -> str:
    """Why the companion's file cannot be opened or made, in one line."""
    if isinstance(err, FileExistsError | NotADirectoryError):  # a file where a folder of the path should be
        return f"{db} cannot be opened: {err.filename or os.path.dirname(db)} is a file, not a folder"
    why = getattr(err, "strerror", None) or str(err)
    return f"{db} cannot be opened: {why} (is its folder there, and may this user write in it?)"


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
@click.option(
    "--db",
    envvar="MNEME_DB",
    default="mneme.db",
    show_default=True,
    help="The companion's file, or a postgresql:// URL (without it, the config's [storage] database).",
)
@click.option("--space", envvar="MNEME_SPACE", default="default", show_default=True, help="Whose memory.")
@click.option(
    "--config",
    envvar="MNEME_CONFIG",
    type=click.Path(dir_okay=False),
    default=None,
    help="The companion's TOML config: taken whole the first time; after that its [adapters.*] and "
    "[plugins.*] at each start, and the keys it differs in otherwise named (see `config check FILE`).",
)
@click.pass_context
def main(ctx: click.Context, db: str, space: str, config: str | None) -> None:
    """Memory and mood for AI companions, in one SQLite file."""
    quiet_logging()  # a library's warning (an embedder that cannot load) is one line, never a traceback
    given = ctx.get_parameter_source("space") == click.core.ParameterSource.COMMANDLINE
    if ctx.get_parameter_source("db") == click.core.ParameterSource.DEFAULT and config:
        try:
            db = database_in(config) or db
        except MnemeError as err:
            raise Refused(str(err)) from err
    ctx.obj = Context(db, space, config, space_given=given)


from . import bot, check, config, move, notes, people, tend, tools, web  # noqa: E402  (each registers its commands)

__all__ = [
    "Refused",
    "bot",
    "check",
    "config",
    "echo_json",
    "main",
    "move",
    "notes",
    "one_line",
    "people",
    "tend",
    "tools",
    "web",
]
