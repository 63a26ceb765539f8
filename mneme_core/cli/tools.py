"""`mneme tools | mcp`: the tool definitions for a model API, and the MCP server.

`mneme tools --style anthropic` prints the definitions as JSON and needs no database. `mneme mcp` serves
the companion's memory over stdio, or over streamable HTTP with `--http` (127.0.0.1 unless `--host` says
otherwise; any other address needs `--token` or `MNEME_MCP_TOKEN`). Refusals are one line on stderr and
exit code 2, before anything is opened or bound.
"""

from __future__ import annotations

import asyncio
import json

import click

from ..errors import MnemeError
from ..memory.note import subject_of
from ..tools import STYLES, specs
from ..tools.toolbox import source_of
from . import Context, Refused, main


@main.command(name="tools")
@click.option("--style", type=click.Choice(STYLES), default="openai", show_default=True)
@click.option("--prefix", default="", help="Put this before each tool's name, like memory_.")
@click.option("--with-subject", is_flag=True, help="Each tool asks for the subject (whose memory).")
@click.option("--strict", is_flag=True, help="OpenAI strict-mode functions (openai and responses styles).")
def tools_(style: str, prefix: str, with_subject: bool, strict: bool) -> None:
    """Print the tool definitions for a model API as JSON."""
    try:
        found = specs(style, prefix=prefix, with_subject=with_subject, strict=strict)
    except MnemeError as err:
        raise Refused(str(err)) from err
    click.echo(json.dumps(found, ensure_ascii=False, indent=2))


@main.command(name="mcp")
@click.option("--subject", default=None, help="Bind every call to this person; else each call names one.")
@click.option("--prefix", default="", help="Put this before each tool's name, like memory_.")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to bind with --http.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0 picks one.")
@click.option(
    "--token",
    envvar="MNEME_MCP_TOKEN",
    default=None,
    help="The bearer token every HTTP request must carry; required off loopback. Prefer the environment "
    "variable: a command line is visible to other users of the machine.",
)
@click.option(
    "--source",
    default="auto",
    show_default=True,
    help="Written on the notes clients keep; 'auto' puts them under the daily quota for model notes, any "
    "other word (like mcp) does not.",
)
@click.pass_obj
def mcp_(
    ctx: Context,
    subject: str | None,
    prefix: str,
    http: bool,
    host: str,
    port: int,
    token: str | None,
    source: str,
) -> None:
    """Serve this companion's memory to MCP clients."""
    try:
        # The server needs the `mcp` extra; only this command imports it, so the rest of the CLI works
        # without it.
        from .. import mcp_server
    except ImportError as err:
        raise Refused(f"the MCP server needs the mcp extra: pip install 'mneme-bots[mcp]' ({err})") from err
    try:
        if subject is not None:
            subject = subject_of(subject)
        specs("mcp", prefix=prefix)  # refuses a prefix that would break a name
        source_of(source)
        if http:
            token = mcp_server.exposure(host, token)
    except MnemeError as err:
        raise Refused(str(err)) from err
    with ctx.open() as m:
        try:
            server = mcp_server.build(m, subject, prefix=prefix, source=source)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if http:
            serve = mcp_server.serve_http(server, host=host, port=port, token=token, ready=_ready)
        else:
            serve = mcp_server.serve_stdio(server)
        try:
            asyncio.run(serve)
        except KeyboardInterrupt:
            pass
        except OSError as err:  # the address is taken or cannot be bound
            if not http:
                raise
            raise Refused(f"cannot serve on {host}:{port}: {err}") from err


def _ready(url: str) -> None:
    click.echo(f"mneme: MCP over streamable HTTP at {url}", err=True)
