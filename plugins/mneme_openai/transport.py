"""One HTTP POST of JSON, with the standard library, off the event loop.

`urllib.request` on a thread of the provider's own pool: it speaks HTTPS with the system's certificates,
honours `HTTPS_PROXY`/`NO_PROXY`, and needs nothing installed. The socket timeout bounds each wait for the
server (connecting, then each read); `post` also bounds the whole exchange on the event loop, so a server
that trickles bytes cannot hold a caller longer than the timeout (its thread finishes on its own, within
the socket timeout).

Outcomes: a `Response` for any HTTP status (errors included: the caller decides what a 429 means), or
`Unreachable` when no answer came (refused, reset, name not found, timed out), saying which.
"""

from __future__ import annotations

import asyncio
import http.client
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

__all__ = ["Response", "Unreachable", "post"]


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str] = field(hash=False)
    body: bytes


class Unreachable(Exception):
    """No HTTP answer: `timed_out` says whether the server was too slow rather than not there."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


def _post(url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> Response:
    request = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.status, dict(answer.headers.items()), answer.read())
    except urllib.error.HTTPError as err:
        with err:
            return Response(err.code, dict((err.headers or {}).items()), err.read())
    except urllib.error.URLError as err:
        reason = err.reason
        raise Unreachable(str(reason), timed_out=isinstance(reason, TimeoutError)) from err
    except TimeoutError as err:
        raise Unreachable("timed out", timed_out=True) from err
    except (OSError, http.client.HTTPException) as err:
        raise Unreachable(f"{type(err).__name__}: {err}") from err


async def post(
    pool: ThreadPoolExecutor, url: str, body: bytes, headers: Mapping[str, str], timeout: float
) -> Response:
    """POST `body` to `url` on the pool; `Unreachable` when no answer came within `timeout` seconds."""
    loop = asyncio.get_running_loop()
    work = loop.run_in_executor(pool, _post, url, body, headers, timeout)
    try:
        return await asyncio.wait_for(work, timeout + 1.0)
    except TimeoutError as err:
        raise Unreachable("timed out", timed_out=True) from err
