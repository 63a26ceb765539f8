"""`mneme config show | template | set | apply | check | defaults`: a companion's config by hand.

These commands open the store and the companion's `Config` directly, not a whole `Mneme`. With `--config`
(or `MNEME_CONFIG`) a space the database has not met yet takes that file first, as a companion would. Every
refusal is one line on stderr and exit code 2; nothing is written by a refused command.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager

import click

from .. import files
from ..bot.hooks import ready
from ..config import Config, keys, toml
from ..config.meeting import command
from ..errors import MnemeError
from ..from_mneme_llm import database as mneme_llm_database
from ..plugins import Manager, PluginError, make_manager
from ..store import open_store
from ..store.location import is_url
from . import Context, Refused, main, one_line, unopenable


def installed() -> Manager | None:
    """The plugins installed here, the bot's built-in ones included, so the keys every adapter and plugin
    reads are checked as theirs; None (with one line saying why) when they cannot be loaded."""
    try:
        return ready(make_manager())
    except PluginError as err:
        click.echo(f"mneme: plugins left out, their settings unchecked: {one_line(err)}", err=True)
        return None


@contextmanager
def opened(ctx: Context, *, reads: bool = False) -> Iterator[Config]:
    if reads:
        ctx.exists()
    try:
        if not is_url(ctx.db):  # a mneme-llm file is converted, after a backup
            mneme_llm_database.adopt(ctx.db, time.time())
        store = open_store(ctx.db)
    except MnemeError as err:
        raise Refused(str(err)) from err
    except (OSError, sqlite3.Error) as err:
        raise Refused(unopenable(ctx.db, err)) from err
    manager = installed()
    try:
        config = Config(store, ctx.space, declared=manager.settings if manager else None)
        if ctx.config:
            config.meet(ctx.config)
        yield config
    except MnemeError as err:
        raise Refused(str(err)) from err
    finally:
        store.close()


@main.group(name="config")
def config_group() -> None:
    """The companion's config: its name, languages, mood, roles, prompts and sentences."""


@config_group.command()
@click.argument("prefix", default="")
@click.option("--origins", is_flag=True, help="One key a line, with where its value came from.")
@click.pass_obj
def show(ctx: Context, prefix: str, origins: bool) -> None:
    """The config in effect, or the part under PREFIX (mood, prompts.reflect, messages.zh)."""
    with opened(ctx, reads=True) as config:
        if not origins:
            click.echo(config.to_toml(prefix), nl=False)
            return
        rows = [r for r in config.rows() if not prefix or r.key == prefix or r.key.startswith(prefix + ".")]
        if prefix and not rows:
            keys.lookup(prefix)
        for row in rows:
            shown = "(not readable)" if row.value is None else toml.inline(row.value)
            click.echo(f"{row.key} = {shown}  # {row.origin}")


@config_group.command()
def template() -> None:
    """Every key with this version's defaults, as a commented file to start from, and every key each
    installed adapter and plugin reads (commented out)."""
    manager = installed()
    if manager is None:
        click.echo(toml.template(), nl=False)
        return
    declared = manager.settings
    click.echo(toml.template(declared, lambda key: _short(declared.owner(key))), nl=False)


def _short(plugin: str) -> str:
    """Who reads a table, as a person knows it: a plugin by its name, Mneme's own built-in plugins as such."""
    return "mneme-bots itself" if plugin.startswith("mneme_core.") else f"the plugin {plugin}"


@config_group.command(name="set")
@click.argument("key")
@click.argument("value", required=False)
@click.option(
    "--file", "path", type=click.Path(exists=True, dir_okay=False), help="Take the value from a file."
)
@click.pass_obj
def set_(ctx: Context, key: str, value: str | None, path: str | None) -> None:
    """Change one KEY: text keys take VALUE as it is, others a TOML value (0.5, true, { luna = 0.45 })."""
    if (value is None) == (path is None):
        raise Refused("config set takes a VALUE or --file FILE, not both or neither")
    if path is not None:
        try:
            value = files.read_text(path).removesuffix("\n")
        except files.FileRefused as err:
            raise Refused(str(err)) from err
    assert value is not None
    with opened(ctx) as config:
        stored = config.set(key, keys.parse(key, value))
        click.echo(f"{key} = {toml.inline(stored)}")


@config_group.command()
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False))
@click.pass_obj
def apply(ctx: Context, path: str) -> None:
    """Apply a TOML file whole, or nothing of it."""
    with opened(ctx) as config:
        click.echo(f"applied {config.apply(path)} keys from {path}")
        for key, why in config.left_out.items():  # a mneme-llm config's keys without an equivalent
            click.echo(f"left out {key}: {why}", err=True)


@config_group.command()
@click.argument("path", metavar="[FILE]", required=False)
@click.pass_obj
def check(ctx: Context, path: str | None) -> None:
    """Defaults a newer version improved, keys it added, values that no longer pass; with FILE, where that
    file and the database's copy part, and what becomes of each difference at the next start."""
    if path is not None:
        compare(ctx, path)
        return
    with opened(ctx, reads=True) as config:
        report = config.check()
    for key in report.newer:
        click.echo(f"newer default: {key} (take it with `mneme config defaults {key}`)")
    for key in report.added:
        click.echo(f"new key: {key} (its default is used; `mneme config defaults` stores it)")
    for why in report.invalid.values():
        click.echo(f"not used: {why} (the default is used instead)")
    for key in report.unknown:
        click.echo(f"unknown: {key} (kept, not used by this version)")
    for key, why in report.refused.items():
        click.echo(f"refused by its plugin: {why} (fix it with `mneme config set {key} VALUE`)")
    if report.ok:
        click.echo("the config is up to date")


def compare(ctx: Context, path: str) -> None:
    """`config check FILE`: each key where FILE and the stored copy part, one line each."""
    ctx.config = None  # FILE is compared, not met: nothing is written
    with opened(ctx, reads=True) as config:
        if not config.rows() or all(row.origin == "default" for row in config.rows()):
            click.echo(f"{ctx.space} has no config of its own yet: {path} is taken whole the first time")
            return
        found = config.compare(path)
    unread = [d for d in found if not d.deployment]
    for d in found:
        if d.deployment:
            click.echo(f"taken at the next start: {d.key}: {d.says()}")
        else:
            click.echo(f"not read: {d.key}: {d.says()}")
    if unread:
        click.echo(
            f"the database's copy is used where the file is not read: `{command(ctx.db, ctx.space)} config "
            f"apply {path}` takes the file's ([adapters.*] and [plugins.*] are taken from it at each start)"
        )
    if not found:
        click.echo(f"{path} and the database's copy agree")


@config_group.command()
@click.argument("names", metavar="[KEYS]...", nargs=-1)
@click.pass_obj
def defaults(ctx: Context, names: tuple[str, ...]) -> None:
    """Load this version's defaults: for KEYS (or sections), else those `config check` lists."""
    with opened(ctx) as config:
        loaded = config.load_defaults(names or None)
    click.echo(f"loaded {len(loaded)} defaults" + (f": {', '.join(loaded)}" if loaded else ""))
