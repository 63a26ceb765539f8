"""An MCP server for one companion's memory, on the official MCP Python SDK (the `mcp` extra).

What a client gets:
- Tools: `remember`, `recall`, `forget`, `mood`, `notes`, `update`, `relationship`, `profile` and any a
  plugin registered, defined by `tools.specs("mcp")` (with their read-only and destructive hints) and run
  by a `tools.Toolbox`. A refused call (a bad argument, a note the daily quota or a filter refused, a note
  that is not there to update) is a tool result flagged `isError: true`, taken from `Reply.error`, never
  guessed from the wording, so custom sentences and every display language flag alike. A result carries
  its data (ids, kinds, keys, dates) as `structuredContent` beside the text.
- Writes are made with the server's `source` (`mneme mcp --source`): "auto", the default, puts the notes a
  client's model writes under the daily quota for model-written notes; any other word does not.
- The memory block for the start of a session, what `Mneme.aprompt` puts in a system prompt: as the
  resource `mneme://memory` (or the template `mneme://memory/{subject}` when no subject is bound) and as the
  prompt `memory` (arguments: an optional `query`; `subject` when none is bound).

Transports:
- stdio (`serve_stdio`), for a client that starts the server itself.
- Streamable HTTP at `/mcp` (`serve_http`), bound to 127.0.0.1 unless told otherwise. On an address that is
  not loopback a bearer token is required: the server refuses to start without one, and a request without
  `Authorization: Bearer <token>` (or with another token) is answered 401 before it reaches MCP. On
  loopback the token is optional, and the SDK's DNS-rebinding guard checks the Host and Origin headers.
  These rules are `mneme_core.guard`'s, shared with the web page (`mneme serve`, which can mount this
  server at `/mcp` in its own process: `streamable_app`).

The low-level `Server` is used rather than `MCPServer`: the tools' schemas are ours (`specs("mcp")`), not
derived from Python signatures, and a refused call must be an `isError` result, not a protocol error.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import uvicorn
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from . import __version__
from .errors import InvalidType, InvalidValue, describe
from .guard import RequireToken, allowed_hosts, allowed_origins, exposure, is_loopback
from .loopback import listen, url_of
from .memory.note import subject_of
from .prompting import who
from .tools import QUERY_LIMIT, Registry, Toolbox

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.types import ASGIApp

    from .mneme import Mneme

log = logging.getLogger(__name__)

NAME = "mneme"
RESOURCE = "mneme://memory"
TEMPLATE = RESOURCE + "/{subject}"
PROMPT = "memory"
PATH = "/mcp"
HOST = "127.0.0.1"
PORT = 8765
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource
BLOCK_ABOUT = "What the companion remembers of the person: read it at the start of a session."


# -- the server -------------------------------------------------------------------------------------------


async def block(m: Mneme, subject: str, query: str = "") -> str:
    """The memory block for `subject`: for the query, else (nothing bears on it) what matters about them
    (recall's overview), else the display language's sentence that nothing is remembered yet."""
    found = await m.aprompt(subject, query)
    if not found and query.strip():
        found = await m.aprompt(subject, "")
    return found or m.words.say("tool.block_empty", who=who(None, subject))


def _subject(bound: str | None, given: object) -> str:
    if bound is not None:
        return bound
    try:
        return subject_of(given)
    except (InvalidValue, InvalidType) as err:
        raise MCPError(types.INVALID_PARAMS, f"subject: {err}") from None


def _query(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > QUERY_LIMIT:
        raise MCPError(types.INVALID_PARAMS, f"query is text of at most {QUERY_LIMIT} characters")
    return value


def build(
    m: Mneme,
    subject: str | None = None,
    *,
    prefix: str = "",
    tools: Registry | None = None,
    source: str = "auto",
) -> Server[Any]:
    """The MCP server for `m`; with `subject`, every call, resource and prompt is about that person;
    `source` is written on the notes its calls keep ("auto": under the daily quota)."""
    box = Toolbox(m, subject, prefix=prefix, tools=tools, source=source)
    bound = box.subject

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in box.specs("mcp")])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        reply = await box.areply(params.name, params.arguments)
        content = [types.TextContent(type="text", text=reply.text)]
        data = None if reply.data is None else dict(reply.data)
        return types.CallToolResult(content=content, structured_content=data, is_error=reply.error)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        found = [] if bound is None else [_resource(RESOURCE)]
        return types.ListResourcesResult(resources=found)

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        found = [] if bound is not None else [_template()]
        return types.ListResourceTemplatesResult(resource_templates=found)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if bound is not None and uri == RESOURCE:
            person = bound
        elif bound is None and uri.startswith(RESOURCE + "/"):
            person = _subject(None, unquote(uri[len(RESOURCE) + 1 :]))
        else:
            raise MCPError(RESOURCE_NOT_FOUND, f"no resource {describe(uri)}; read {_resources(bound)}")
        found = types.TextResourceContents(uri=uri, mime_type="text/plain", text=await block(m, person))
        return types.ReadResourceResult(contents=[found])

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[_prompt(bound)])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(
                types.INVALID_PARAMS, f"no prompt {describe(params.name)}; the prompt is {PROMPT!r}"
            )
        given = params.arguments or {}
        person = _subject(bound, given.get("subject"))
        found = await block(m, person, _query(given.get("query")))
        content = types.TextContent(type="text", text=found)
        message = types.PromptMessage(role="user", content=content)
        return types.GetPromptResult(description=BLOCK_ABOUT, messages=[message])

    return Server(
        NAME,
        version=__version__,
        instructions=m.words.say(
            "tool.instructions", **{t: prefix + t for t in ("recall", "remember", "forget", "update")}
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _resource(uri: str) -> types.Resource:
    return types.Resource(uri=uri, name=PROMPT, description=BLOCK_ABOUT, mime_type="text/plain")


def _template() -> types.ResourceTemplate:
    about = BLOCK_ABOUT + " The subject is the person's id, like discord:42, percent-encoded."
    return types.ResourceTemplate(
        uri_template=TEMPLATE, name=PROMPT, description=about, mime_type="text/plain"
    )


def _resources(bound: str | None) -> str:
    return RESOURCE if bound is not None else RESOURCE + "/" + quote("discord:42", safe="")


def _prompt(bound: str | None) -> types.Prompt:
    arguments = [types.PromptArgument(name="query", description="A topic to recall first.", required=False)]
    if bound is None:
        whose = types.PromptArgument(
            name="subject", description="Whose memory, like discord:42.", required=True
        )
        arguments.insert(0, whose)
    return types.Prompt(name=PROMPT, description=BLOCK_ABOUT, arguments=arguments)


# -- stdio ------------------------------------------------------------------------------------------------


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over stdin/stdout until it closes them."""
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


# -- streamable HTTP --------------------------------------------------------------------------------------


def http_app(server: Server[Any], *, host: str = HOST, token: str | None = None) -> ASGIApp:
    """The streamable HTTP app at `/mcp`, behind the token when there is one (see `exposure`)."""
    token = exposure(host, token)
    app = streamable_app(server, host)
    return RequireToken(app, token) if token else app


def streamable_app(server: Server[Any], host: str = HOST) -> Starlette:
    """The SDK's streamable HTTP app at `/mcp`, without the token (`http_app` adds it; the web app mounts
    this behind its own), and with the SDK's DNS-rebinding guard on `guard`'s lists on loopback. Its
    lifespan runs the session manager: whoever mounts it runs that lifespan."""
    security = None
    if is_loopback(host):
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=allowed_hosts(host),
            allowed_origins=allowed_origins(host),
        )
    return server.streamable_http_app(streamable_http_path=PATH, host=host, transport_security=security)


async def serve_http(
    server: Server[Any],
    *,
    host: str = HOST,
    port: int = PORT,
    token: str | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP until interrupted; `ready(url)` is told the address once it listens (port 0
    picks a free one)."""
    app = http_app(server, host=host, token=token)
    sock = listen(host, port)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5)
    runner = uvicorn.Server(config)
    (ready or _announce)(url_of(sock, PATH))
    await runner.serve(sockets=[sock])


def _announce(url: str) -> None:
    print(f"mneme: MCP over streamable HTTP at {url}", file=sys.stderr, flush=True)


__all__ = [
    "RequireToken",
    "block",
    "build",
    "exposure",
    "http_app",
    "is_loopback",
    "serve_http",
    "serve_stdio",
    "streamable_app",
]
