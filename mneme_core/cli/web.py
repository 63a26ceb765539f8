"""`mneme serve`: the companion's memory as a local page and a REST API (the `web` extra).

On 127.0.0.1 by default; any other address needs `--token` or `MNEME_WEB_TOKEN` (the MCP server's rules,
`mneme_core.guard`). `--mcp` serves the MCP server at `/mcp` in the same process, behind the same guard.
Refusals are one line on stderr and exit code 2, before anything is opened, bound or written.
"""

from __future__ import annotations

import asyncio

import click

from ..errors import MnemeError
from ..guard import exposure
from . import Context, Refused, main
from .notes import CONFIGURED, meaning_option

WEB_TOKEN = "--token or MNEME_WEB_TOKEN"


@main.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8766, show_default=True, help="0 picks one.")
@click.option(
    "--token",
    envvar="MNEME_WEB_TOKEN",
    default=None,
    help="The bearer token every API call must carry; required off loopback. Prefer the environment "
    "variable: a command line is visible to other users of the machine.",
)
@click.option("--mcp", "with_mcp", is_flag=True, help="Also serve the MCP server at /mcp.")
@meaning_option("Recall by meaning too, with the embedder named or else memory.embed's (else words only).")
@click.pass_obj
def serve(ctx: Context, host: str, port: int, token: str | None, with_mcp: bool, meaning: str | None) -> None:
    """Serve this companion's memory as a page and a REST API (OpenAPI at /api/openapi.json)."""
    try:
        from .. import web  # the web extra; only this command imports it
    except ImportError as err:
        raise Refused(f"the page needs the web extra: pip install 'mneme-bots[web]' ({err})") from err
    try:
        token = exposure(host, token, give=WEB_TOKEN)
    except MnemeError as err:
        raise Refused(str(err)) from err
    embed = "" if meaning is None else (None if meaning == CONFIGURED else meaning)
    with ctx.open(embed=embed) as m:
        server = None
        if with_mcp:
            try:
                from .. import mcp_server
            except ImportError as err:
                raise Refused(f"--mcp needs the mcp extra: pip install 'mneme-bots[mcp]' ({err})") from err
            server = mcp_server.build(m)
        serving = web.serve(m, host=host, port=port, token=token, mcp=server, embed=embed, ready=_ready)
        try:
            asyncio.run(serving)
        except KeyboardInterrupt:
            pass
        except OSError as err:  # the address is taken or cannot be bound
            raise Refused(f"cannot serve on {host}:{port}: {err}") from err


def _ready(url: str) -> None:
    click.echo(f"mneme: the page at {url} (the API at {url}api/openapi.json)", err=True)
