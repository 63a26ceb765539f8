"""What the embedding tests share: an OpenAI-compatible /embeddings served by a real HTTP server on loopback.

Its vectors have the dimensions asked for (`dimensions`, else 3): axis 0 when the text speaks of a cat
("cat", "kitten", "年糕"), axis 1 when it does not, so meaning links exactly the texts about cats, in any
language. It records what it was asked and can be told to misbehave: refuse questions with a 401, or answer
with 3 dimensions whatever was asked (a server that ignores `dimensions`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import loopback

CAT = ("cat", "kitten", "年糕")


def vector(text: str, dims: int) -> list[float]:
    found = [0.0] * dims
    found[0 if any(w in text.lower() for w in CAT) else 1] = 1.0
    return found


class Endpoint:
    """What /v1/embeddings was asked, and how it is told to answer."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.url = ""
        self.refuse_queries = False  # 401 for texts that are questions (they end with "?")
        self.ignore_dimensions = False  # always 3 dimensions, whatever was asked

    def answer(self, asked: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        texts = asked["input"]
        if self.refuse_queries and any(t.endswith("?") for t in texts):
            return 401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
        dims = 3 if self.ignore_dimensions else asked.get("dimensions", 3)
        data = [{"index": i, "embedding": vector(t, dims)} for i, t in enumerate(texts)]
        return 200, {"object": "list", "data": data, "model": asked["model"]}


@contextlib.contextmanager
def serving() -> Iterator[Endpoint]:
    """An `Endpoint` at http://127.0.0.1:<free port>/v1 until the block ends."""
    found = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            asked = json.loads(self.rfile.read(length))
            found.requests.append({"path": self.path, "headers": dict(self.headers.items()), "json": asked})
            status, body = found.answer(asked) if self.path == "/v1/embeddings" else (404, {})
            loopback.send_json(self, status, body)

        def log_message(self, *args: Any) -> None:
            pass

    with loopback.serving(Handler) as found.url:
        yield found
