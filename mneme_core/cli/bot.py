"""`mneme demo | chat | run | plugins`: the engine as a bot, and what is plugged into it."""

from __future__ import annotations

import asyncio
import json

import click

from ..bot.console import achat
from ..bot.demo import ademo
from ..bot.hooks import ready
from ..bot.runner import run_bot
from ..bot.settings import BotSettings
from ..errors import MnemeError
from ..plugins import PluginError, describe, make_manager
from . import Context, Refused, bot_logging, main, one_line


@main.command()
@click.option("--keep", type=click.Path(dir_okay=False), default=None, help="Keep the demo's file here.")
def demo(keep: str | None) -> None:
    """A short scripted conversation over two simulated days: what is remembered, recalled and felt.

    Needs no key and no network; without --keep it uses a temporary file and never touches --db."""
    asyncio.run(ademo(keep))


@main.command()
@click.option("--model", default=None, help="A model provider's name (see `mneme plugins`).")
@click.option("--persona", default=None, help="Who the companion is (default: companion.persona).")
@click.option("--user", "user_name", default=None, help="How the companion calls you.")
@click.pass_obj
def chat(ctx: Context, model: str | None, persona: str | None, user_name: str | None) -> None:
    """Talk to the companion in the terminal (/quit to leave). Without a model: an offline stand-in."""
    with ctx.open(embed=None) as m:  # the configured embedder (memory.embed), as the bot has
        persona = persona if persona is not None else m.config.get("companion.persona") or ""
        try:
            asyncio.run(achat(m, provider=model, persona=persona, user_name=user_name))
        except PluginError as err:
            raise Refused(str(err)) from err


class Run(click.Command):
    """`mneme run`, whose help ends with the adapters and model providers installed here."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        try:
            manager = ready(make_manager())
        except PluginError as err:  # the help still shows; what could not load is named
            installed = [("plugins left out", one_line(err))]
        else:
            installed = [
                ("adapters", ", ".join(sorted(manager.adapters))),
                ("model providers", ", ".join(sorted(manager.providers))),
            ]
        with formatter.section("Installed here"):
            formatter.write_dl(installed)
        formatter.write_paragraph()
        formatter.write_text(
            "Each reads its own table of the config, [adapters.<name>] or [plugins.<name>]; "
            "`mneme config template` lists every key they read."
        )


@main.command(cls=Run)
@click.argument("adapters", nargs=-1, required=True)
@click.option("--model", default=None, help="A model provider's name (see `mneme plugins`).")
@click.option("--persona", default=None, help="Who the companion is (default: companion.persona).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="The companion's TOML config (as the group's --config).",
)
@click.pass_obj
def run(
    ctx: Context, adapters: tuple[str, ...], model: str | None, persona: str | None, config_file: str | None
) -> None:
    """Start a whole bot with the named adapters (e.g. `mneme run discord telegram --config bot.toml`)."""
    if config_file is not None:
        ctx.config = config_file
    bot_logging()
    with ctx.open(embed=None) as m:  # the configured embedder (memory.embed)
        settings = BotSettings.from_config(m.config, persona=persona)
        try:
            asyncio.run(run_bot(m, adapters, provider=model, settings=settings, plugins=m.plugins))
        except MnemeError as err:  # a plugin that cannot start, a missing token: one line, not a traceback
            raise Refused(str(err)) from err


@main.command()
@click.option("--all", "everything", is_flag=True, help="Show the built-in plugins too.")
@click.option("--json", "as_json", is_flag=True, help="As JSON.")
def plugins(everything: bool, as_json: bool) -> None:
    """What is loaded: each plugin, from which distribution, with the hooks it implements."""
    try:
        manager = ready(make_manager())
    except PluginError as err:
        raise Refused(str(err)) from err
    found = describe(manager, builtin=everything)
    if as_json:
        click.echo(json.dumps([info.as_dict() for info in found], ensure_ascii=False, indent=1))
        return
    for info in found:
        click.echo(info.line())
    if not found:
        click.echo("no plugins installed (--all shows the built-in ones)")
