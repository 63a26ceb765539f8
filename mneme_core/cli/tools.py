"""`mneme tools | mcp`: the tool definitions for a model API, and the MCP server.

`mneme tools --style anthropic` prints the definitions as JSON and needs no database. `mneme mcp` serves
the companion's memory over stdio, or over streamable HTTP with `--http` (127.0.0.1 unless `--host` says
otherwise; any other address needs `--token` or `MNEME_MCP_TOKEN`). `mneme mcp install claude-desktop |
claude-code | cursor` writes (or with `--print` shows) the client's entry that starts it for this database,
space and subject (see `mcp_clients`). Refusals are one line on stderr and exit code 2, before anything is
opened, bound or written.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import click

from ..errors import MnemeError
from ..memory.note import subject_of
from ..tools import STYLES, specs
from ..tools.toolbox import source_of
from . import Context, Refused, main, mcp_clients

SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


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


@main.group(name="mcp", invoke_without_command=True)
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
@click.pass_context
def mcp_(
    click_ctx: click.Context,
    subject: str | None,
    prefix: str,
    http: bool,
    host: str,
    port: int,
    token: str | None,
    source: str,
) -> None:
    """Serve this companion's memory to MCP clients (`mneme mcp install` writes a client's entry)."""
    if click_ctx.invoked_subcommand is not None:
        return
    ctx: Context = click_ctx.obj
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


@mcp_.command(name="install")
@click.argument("client", type=click.Choice(mcp_clients.CLIENTS))
@click.option("--subject", default=None, help="Bind every call to this person; else each call names one.")
@click.option("--prefix", default=None, help="Put this before each tool's name, like memory_.")
@click.option("--source", default=None, help="Written on the notes the client keeps (default: auto).")
@click.option("--name", default="mneme", show_default=True, help="The server's name in the client.")
@click.option(
    "--scope",
    type=click.Choice(mcp_clients.SCOPES),
    default="user",
    show_default=True,
    help="user: for every project; project: the current folder's file (claude-code, cursor).",
)
@click.option(
    "--file", "file", type=click.Path(dir_okay=False), default=None, help="Write this file instead."
)
@click.option("--print", "show", is_flag=True, help="Print the entry as JSON and write nothing.")
@click.pass_context
def install_(
    click_ctx: click.Context,
    client: str,
    subject: str | None,
    prefix: str | None,
    source: str | None,
    name: str,
    scope: str,
    file: str | None,
    show: bool,
) -> None:
    """Write the MCP client's entry that starts `mneme mcp` for this database, space and subject."""
    ctx: Context = click_ctx.find_root().obj
    served = click_ctx.parent.params if click_ctx.parent else {}  # `mneme mcp --subject S install ...`
    subject = subject if subject is not None else served.get("subject")
    prefix = prefix if prefix is not None else served.get("prefix") or ""
    source = source if source is not None else served.get("source") or "auto"
    try:
        if subject is not None:
            subject = subject_of(subject)
        specs("mcp", prefix=prefix)
        source_of(source)
        if not SERVER_NAME.fullmatch(name):
            raise Refused(f"a server name is 1 to 64 letters, digits, _ or -, not {name!r}")
        path = Path(file) if file else mcp_clients.config_path(client, scope)
        server = mcp_clients.entry(
            client,
            db=ctx.db,
            space=ctx.space,
            config=ctx.config,
            subject=subject,
            prefix=prefix,
            source=source,
        )
        if show:
            click.echo(json.dumps({mcp_clients.SERVERS: {name: server}}, ensure_ascii=False, indent=2))
            return
        outcome = mcp_clients.install(path, name, server)
    except MnemeError as err:
        raise Refused(str(err)) from err
    except OSError as err:
        raise Refused(f"cannot write {path}: {err}") from err
    said = {"added": "added to", "replaced": "replaced in", "unchanged": "already in"}[outcome]
    click.echo(f"mneme: the server {name!r} {said} {path}; restart {client} to load it.")
