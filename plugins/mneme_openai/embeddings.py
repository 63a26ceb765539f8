"""Embeddings from an OpenAI-compatible endpoint (POST /embeddings), registered as the family "openai".

A bot names one in its config, with the endpoint in the same `[plugins.openai]` table as its chat model:

    [memory]
    embed = "openai:text-embedding-3-small@256"   # OpenAI's model, shortened to 256 dimensions
    # embed = "openai:bge-m3"                     # Ollama's, at the base_url below, as many as it gives
    # embed = "openai"                            # embedding_model (and embedding_dimensions) below

    [plugins.openai]
    base_url = "http://localhost:11434/v1"
    api_key = { "$env" = "OPENAI_API_KEY" }       # not needed for Ollama

The name is what the vectors are stored under: `openai:<model>@<dims>`, or `openai:<model>` when the model
decides its dimensions. Another model or other dimensions is another name, so vectors of two models are
never compared. `@<dims>` is sent as `dimensions` and every answer must have exactly that many: a server
that ignores it answers with vectors that are not the ones asked for, and the query falls through to words
(as it does on an HTTP error, no answer in `embedding_timeout` seconds, or a malformed body).

Requests go through `OpenAIProvider` (its retries, timeouts, error messages and key handling, `chat=False`):
nothing is connected to until the first texts are embedded, and the key is read from the environment only
when the embedder is made, for its Authorization header.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from mneme_core.errors import InvalidValue, describe
from mneme_core.meaning import Embeddings

from .provider import NAME, OpenAIProvider, Settings

__all__ = ["OpenAIEmbeddings", "openai_embeddings"]

MAX_DIMENSIONS = 100_000


class OpenAIEmbeddings(Embeddings):
    """`Embeddings` of one model at an OpenAI-compatible endpoint, named `openai:<model>[@<dims>]`."""

    def __init__(
        self,
        settings: Mapping[str, Any] | None = None,
        *,
        model: str | None = None,
        dimensions: int | None = None,
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        table = dict(settings or {})
        if model is not None:
            table["embedding_model"] = model
        if dimensions is not None:
            table["embedding_dimensions"] = dimensions
        self.provider = OpenAIProvider(table, environ=environ, sleep=sleep, chat=False)
        chosen: Settings = self.provider.settings
        dims = chosen.embedding_dimensions
        name = f"{NAME}:{chosen.embedding_model}" + (f"@{dims}" if dims is not None else "")
        super().__init__(self.vectors, name=name, dimensions=dims, timeout=chosen.embedding_timeout)

    async def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, from the endpoint (`Embeddings` checks their number and dimensions)."""
        return await self.provider.embed(list(texts))

    def report(self) -> dict[str, Any]:
        """The endpoint's calls, retries and failures so far, and the last error."""
        return self.provider.report()

    async def aclose(self) -> None:
        await self.provider.aclose()


def _spec(spec: str) -> tuple[str, int | None]:
    """`<model>@<dims>` or `<model>`, checked; the message names the whole embedder name."""
    model, at, dims = spec.rpartition("@") if "@" in spec else (spec, "", "")
    whole = f"{NAME}:{spec}"
    if not model or any(c.isspace() for c in model):
        raise InvalidValue(
            f"{whole} is not an embedder: {NAME}:<model> or {NAME}:<model>@<dims> names the endpoint's "
            f'embedding model, like "{NAME}:text-embedding-3-small@256", not {describe(whole)}'
        )
    if not at:
        return model, None
    if not dims.isdigit() or not 1 <= int(dims) <= MAX_DIMENSIONS:
        raise InvalidValue(
            f"{whole}: the dimensions after @ are a whole number from 1 to {MAX_DIMENSIONS}, "
            f"not {describe(dims)}"
        )
    return model, int(dims)


def openai_embeddings(spec: str | None = None, settings: Mapping[str, Any] | None = None) -> OpenAIEmbeddings:
    """The factory registered as "openai": `openai:<model>@<dims>` names the model and dimensions (the
    spec), plain "openai" takes them from `embedding_model` and `embedding_dimensions`; the endpoint and
    key come from `settings`, the `[plugins.openai]` table."""
    table = dict(settings or {})
    if spec is None:
        return OpenAIEmbeddings(table)
    model, dims = _spec(spec)
    table.pop("embedding_dimensions", None)  # the name says the dimensions, or that the model decides
    return OpenAIEmbeddings(table, model=model, dimensions=dims)
