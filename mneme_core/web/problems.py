"""Every refusal as JSON, `{"error": "<one line>"}`, with the status that says whose mistake it was.

- 400: a value the engine refuses, in the engine's own sentence (the one the CLI prints);
- 404: nothing of that id or name; a route that does not exist;
- 422: a request of the wrong shape (a field missing, a string where a number goes), named by field;
- 501: a part this engine does not have yet; 503: the companion was closed;
- 500: what nobody meant to raise, logged whole, answered without its details.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from ..errors import ClosedError, MnemeError, describe
from .companions import NotFound, Unavailable
from .models import Problem

log = logging.getLogger(__name__)

OPENAPI = "/api/openapi.json"
STATUS = ((NotFound, 404), (Unavailable, 501), (ClosedError, 503), (MnemeError, 400))
RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "A value the engine refuses."},
    404: {"model": Problem, "description": "Nothing of that id or name."},
    422: {"model": Problem, "description": "A request of the wrong shape."},
}
NOT_YET: dict[int | str, dict[str, Any]] = {
    501: {"model": Problem, "description": "A part this engine does not have yet."}
}


def problem(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def refused(request: Request, err: Exception) -> JSONResponse:
    status = next(code for kind, code in STATUS if isinstance(err, kind))
    return problem(status, str(err))


def _field(error: dict[str, Any]) -> str:
    where = [str(part) for part in error.get("loc", ()) if part not in ("body", "query", "path")]
    return ".".join(where) or "the body"


async def misshapen(request: Request, err: RequestValidationError) -> JSONResponse:
    """The first thing wrong with a request's shape, on one line: the field, what it should be, what came."""
    first = err.errors()[0]
    said = f"{_field(first)}: {' '.join(str(first.get('msg', 'is not allowed')).split()).lower()}"
    if first.get("type") != "missing" and "input" in first:
        said += f", not {describe(first['input'])}"
    return problem(422, said)


async def http_problem(request: Request, err: HTTPException) -> JSONResponse:
    if err.status_code == 404:
        return problem(
            404, f"no route {request.method} {request.url.path}; the API is described at {OPENAPI}"
        )
    return problem(err.status_code, " ".join(str(err.detail).split()))


async def failed(request: Request, err: Exception) -> JSONResponse:
    log.error("%s %s failed", request.method, request.url.path, exc_info=err)
    return problem(500, f"the server failed on this request ({type(err).__name__}); see its log")


def install(api: FastAPI) -> None:
    api.add_exception_handler(MnemeError, refused)
    api.add_exception_handler(RequestValidationError, misshapen)
    api.add_exception_handler(HTTPException, http_problem)
    api.add_exception_handler(Exception, failed)
