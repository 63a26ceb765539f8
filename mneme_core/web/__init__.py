"""A local page and a REST API to see and fix a companion's memory (`mneme serve`, the `web` extra).

The people who run a companion want to look: who it knows, what it remembers of each and why it recalled
what it did, how its mood toward someone went, who they are to it, what a health check found. This package
is that: an ASGI app on FastAPI (OpenAPI at `/api/openapi.json`), a page of plain HTML and a little
JavaScript served by the same app (nothing fetched from elsewhere: it works offline), Prometheus metrics at
`/metrics`, and, if asked, the MCP server at `/mcp` in the same process.

Rooms:
- `app`: `create_app(m)`, the guard (`mneme_core.guard`, the MCP server's rules), the page's files;
- `companions`: whose memory a call is about (the served space, or `?space=`);
- `problems`: every refusal as `{"error": "<one line>"}`;
- `about`, `people`, `notes`, `recall`, `mood`, `config`: the routes, by noun; every write is the
  engine's verb, as the CLI calls it;
- `models`: the bodies and answers; `words`: the page's sentences in English and Chinese;
- `metrics`: the file's gauges, the report's counters, each route's latency;
- `serving`: run it on uvicorn.

The engine never imports this package; this package never imports the bot layer.
"""

from __future__ import annotations

from .app import create_app
from .serving import serve

__all__ = ["create_app", "serve"]
