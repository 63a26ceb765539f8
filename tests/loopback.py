"""A real HTTP server on loopback for the tests that stand in for an OpenAI-compatible endpoint, and our own
servers started as a person would start them (`spawn`)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def send_json(handler: BaseHTTPRequestHandler, status: int, body: object) -> None:
    """Answer the request `handler` is serving with `body` as JSON."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@contextlib.contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` served on 127.0.0.1 at a free port until the block ends; yields the base URL (".../v1")."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


ROOT = Path(__file__).resolve().parents[1]


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """`python ARGS` from the project's folder, with no input, its stderr to read (where our servers
    announce their address)."""
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
