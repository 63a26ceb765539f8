"""`OpenAIProvider`: chat completions, the judge and embeddings against an OpenAI-compatible endpoint.

The settings (`[plugins.openai]`, or keyword arguments in code):

    base_url         the API root, up to /v1 (https://api.openai.com/v1, http://localhost:11434/v1)
    model            the chat model (required)
    judge_model      the model that judges exchanges and writes notes (default: model)
    embedding_model  for `embed` (default text-embedding-3-small)
    embedding_dimensions   sent as `dimensions` with each /embeddings request when given (OpenAI's
                     text-embedding-3 models shorten their vectors to it)
    embedding_timeout      seconds a recall waits for its query's vector before it goes on with words, 5
    api_key          a reference, { "$env" = "DEEPSEEK_API_KEY" }; without one, OPENAI_API_KEY if set;
                     without either, no Authorization header (Ollama, a local vLLM)
    temperature, judge_temperature, max_tokens   sent only when given
    timeout          seconds for one request, 60
    retries          further tries after a 408, 409, 429 or 5xx answer or no answer at all, 3
    backoff          the first wait between tries, doubling each time (with jitter) up to max_backoff, 1 / 30
    max_retry_after  the longest Retry-After honoured, 60: a server asking for longer is an error now
    concurrency      requests in flight at once, 8

The key is read once, from the environment, and goes only into the Authorization header: it is never
logged, shown in `repr`, or put in an error (a server that echoes it has it replaced by `***`).

Errors are `ProviderError`s saying what was asked of whom and what came back: the status and the server's
own message, "gave no answer within 60 s", or, for a 200 whose body is not the JSON of a completion
(malformed, cut off, an HTML page from a proxy), what was missing and the start of the body. A 4xx other
than 408/409/429 is not retried: asking again would get the same answer.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import re
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from mneme_core.config import is_reference, resolve
from mneme_core.errors import InvalidType, InvalidValue, MnemeError, describe

from . import transport
from .settings import NAME, SETTINGS

__all__ = ["OpenAIProvider", "ProviderError", "Settings"]

log = logging.getLogger(__name__)

KEY_VARIABLE = "OPENAI_API_KEY"
RETRIED = frozenset({408, 409, 429})
SNIPPET = 200
USER_AGENT = "mneme-bots (mneme_openai)"


class ProviderError(MnemeError, RuntimeError):
    """A request the endpoint did not answer usefully; `status` is its HTTP status, if it answered."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


def _default(name: str) -> Any:
    return SETTINGS.default(name)


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The provider's settings, checked; see the module docstring. The key is not among them."""

    base_url: str = _default("base_url")
    model: str
    judge_model: str | None = None
    embedding_model: str = _default("embedding_model")
    embedding_dimensions: int | None = None
    embedding_timeout: float = _default("embedding_timeout")
    temperature: float | None = None
    judge_temperature: float | None = None
    max_tokens: int | None = None
    timeout: float = _default("timeout")
    retries: int = _default("retries")
    backoff: float = _default("backoff")
    max_backoff: float = _default("max_backoff")
    max_retry_after: float = _default("max_retry_after")
    concurrency: int = _default("concurrency")

    @classmethod
    def of(cls, table: Mapping[str, Any], *, chat: bool = True) -> Settings:
        """Settings from a `[plugins.openai]` table (its `api_key` is read by `_key`), every value checked by
        the declared checks (`settings.SETTINGS`). `chat=False` for embeddings alone, which need no chat
        model (`model` is then "" unless given)."""
        checked = SETTINGS.read(table)
        if "model" not in checked and chat:
            raise InvalidValue(
                f'plugins.{NAME}.model is required: the chat model to ask, like "deepseek-chat"'
            )
        checked.pop("api_key", None)
        checked.setdefault("model", "")
        return cls(**checked)


def _key(table: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    value = table.get("api_key")
    if value is None:
        return environ.get(KEY_VARIABLE) or None
    if is_reference(value):
        return resolve(value, environ, key=f"plugins.{NAME}.api_key")
    if isinstance(value, str) and value.strip():
        return value.strip()  # given in code; a config file may only hold a reference
    raise InvalidValue(f'plugins.{NAME}.api_key is a reference like {{ "$env" = "DEEPSEEK_API_KEY" }}')


def _shown_url(base_url: str) -> str:
    """The base URL without user, password or query, for messages."""
    url = urllib.parse.urlsplit(base_url)
    host = url.hostname or ""
    if url.port:
        host = f"{host}:{url.port}"
    return urllib.parse.urlunsplit((url.scheme, host, url.path.rstrip("/"), "", ""))


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Retry-After in seconds (a number or an HTTP date), or None."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _server_says(body: bytes) -> str:
    """The server's own error message, from the usual JSON shapes, else the start of the body."""
    try:
        found = json.loads(body)
    except ValueError:
        found = None
    if isinstance(found, dict):
        error = found.get("error")
        for said in (
            error.get("message") if isinstance(error, dict) else error,
            found.get("message"),
            found.get("detail"),
        ):
            if isinstance(said, str) and said.strip():
                return said.strip()[:SNIPPET]
    return body[:SNIPPET].decode("utf-8", "replace").strip() or "(an empty body)"


def _content(message: object) -> str | None:
    """A chat message's text: a string, or the text parts of a list of parts."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


class OpenAIProvider:
    """`OpenAIProvider({"model": "deepseek-chat", "base_url": ...})` or `OpenAIProvider(model=...)`.

    `chat=False` makes one for embeddings alone (`embeddings.OpenAIEmbeddings`), which needs no chat model."""

    name = NAME

    def __init__(
        self,
        settings: Mapping[str, Any] | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        chat: bool = True,
        **given: Any,
    ) -> None:
        if settings is not None and not isinstance(settings, Mapping):
            raise InvalidType(f"plugins.{NAME} settings are a table, not {type(settings).__name__}")
        table = {**(settings or {}), **given}
        self.settings = Settings.of(table, chat=chat)
        self._key = _key(table, os.environ if environ is None else environ)
        self._sleep = sleep
        self._pool: ThreadPoolExecutor | None = None
        self.where = _shown_url(self.settings.base_url)
        self.counts: dict[str, int] = {"calls": 0, "retries": 0, "failures": 0}
        self.last_error = ""

    def __repr__(self) -> str:
        return f"OpenAIProvider(base_url={self.where!r}, model={self.settings.model!r})"

    # -- the calls ---------------------------------------------------------------------------------------

    async def complete(self, system: str, user: str) -> str:
        """The chat model's reply to one system prompt and one user message."""
        return await self._chat(self.settings.model, self.settings.temperature, system, user)

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> str:
        """The chat model's reply to a conversation, sent as the chat messages it is: each a role (system,
        user or assistant), its text, and optionally a speaker's `name`. The bot layer gives the
        system prompt, the conversation's earlier lines and the current line this way."""
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence) or not messages:
            raise InvalidType(f"chat takes a list of chat messages, not {describe(messages)}")
        return await self._reply(
            self.settings.model, self.settings.temperature, [_message(m) for m in messages]
        )

    async def judge(self, system: str, user: str) -> str:
        """The same, with the judge's model: for `Mneme(complete=...)`, the note writer and the judge."""
        model = self.settings.judge_model or self.settings.model
        return await self._chat(model, self.settings.judge_temperature, system, user)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise InvalidType("embed takes a list of strings")
        if not texts:
            return []
        payload: dict[str, Any] = {"model": self.settings.embedding_model, "input": list(texts)}
        if self.settings.embedding_dimensions is not None:
            payload["dimensions"] = self.settings.embedding_dimensions
        found = await self._post("/embeddings", payload)
        data = found.get("data")
        rows = sorted(data, key=lambda r: r.get("index", 0)) if _all_dicts(data) else None
        vectors = [row.get("embedding") for row in rows] if rows is not None else None
        if (
            vectors is None
            or len(vectors) != len(texts)
            or not all(isinstance(v, list) and v and all(_is_number(x) for x in v) for v in vectors)
        ):
            raise self._malformed("/embeddings", found, f"{len(texts)} vectors in data[].embedding")
        return [[float(x) for x in vector] for vector in vectors]

    async def _chat(self, model: str, temperature: float | None, system: str, user: str) -> str:
        if not isinstance(system, str) or not isinstance(user, str):
            raise InvalidType("a chat call takes a system prompt and a user message, both strings")
        messages = [{"role": "system", "content": system}] if system.strip() else []
        messages.append({"role": "user", "content": user})
        return await self._reply(model, temperature, messages)

    async def _reply(self, model: str, temperature: float | None, messages: list[dict[str, str]]) -> str:
        payload: dict[str, Any] = {"model": model, "messages": messages}
        if temperature is not None:
            payload["temperature"] = temperature
        if self.settings.max_tokens is not None:
            payload["max_tokens"] = self.settings.max_tokens
        found = await self._post("/chat/completions", payload)
        choices = found.get("choices")
        first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        reply = _content(first.get("message"))
        if reply is None:
            raise self._malformed("/chat/completions", found, "the text in choices[0].message.content")
        return reply

    # -- one request, with retries -------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": USER_AGENT}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _redacted(self, said: str) -> str:
        return said.replace(self._key, "***") if self._key else said

    def _wait(self, attempt: int) -> float:
        base = min(self.settings.max_backoff, self.settings.backoff * 2**attempt)
        return base * (0.5 + random.random() / 2)

    async def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        url = self.settings.base_url.rstrip("/") + path
        body = json.dumps(payload, ensure_ascii=False).encode()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="mneme-openai")
        tries = self.settings.retries + 1
        self.counts["calls"] += 1
        attempt = 0
        while True:
            try:
                answer = await transport.post(self._pool, url, body, self._headers(), self.settings.timeout)
            except transport.Unreachable as err:
                error, wait = self._unreachable(path, err), self._wait(attempt)
            else:
                if 200 <= answer.status < 300:
                    return self._json(path, answer)
                error = self._refused(path, answer)
                if not error.retryable:
                    raise self._failed(error)
                asked = _retry_after(answer.headers)
                if asked is not None and asked > self.settings.max_retry_after:
                    raise self._failed(
                        ProviderError(f"{error}, and asks to wait {asked:g} s", status=error.status)
                    )
                wait = self._wait(attempt) if asked is None else asked
            attempt += 1
            if attempt == tries:
                raise self._failed(ProviderError(f"{error} (tried {tries} times)", status=error.status))
            self.counts["retries"] += 1
            log.info("%s; trying again in %.1f s (%d of %d)", error, wait, attempt + 1, tries)
            await self._sleep(wait)

    def _failed(self, error: ProviderError) -> ProviderError:
        """Count a failure and keep its message for `report`; the caller raises it."""
        self.counts["failures"] += 1
        self.last_error = str(error)
        return error

    def _unreachable(self, path: str, err: transport.Unreachable) -> ProviderError:
        if err.timed_out:
            message = f"{self.where}{path} gave no answer within {self.settings.timeout:g} s"
        else:
            message = f"{self.where}{path} could not be reached: {self._redacted(str(err))}"
        return ProviderError(message, retryable=True)

    def _refused(self, path: str, answer: transport.Response) -> ProviderError:
        said = self._redacted(_server_says(answer.body))
        retryable = answer.status in RETRIED or answer.status >= 500
        return ProviderError(
            f"{self.where}{path} answered {answer.status}: {said}", status=answer.status, retryable=retryable
        )

    def _json(self, path: str, answer: transport.Response) -> dict[str, Any]:
        try:
            found = json.loads(answer.body)
        except ValueError:
            found = None
        if not isinstance(found, dict):
            snippet = self._redacted(answer.body[:SNIPPET].decode("utf-8", "replace"))
            raise self._failed(
                ProviderError(
                    f"{self.where}{path} answered {answer.status} with a body that is not a JSON object: "
                    f"{snippet!r}",
                    status=answer.status,
                )
            )
        return found

    def _malformed(self, path: str, found: dict[str, Any], wanted: str) -> ProviderError:
        snippet = self._redacted(json.dumps(found, ensure_ascii=False)[:SNIPPET])
        return self._failed(ProviderError(f"{self.where}{path} answered without {wanted}: {snippet}"))

    # -- the rest ------------------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Calls, retries and failures so far, and the last error."""
        return {**self.counts, "last_error": self.last_error}

    async def aclose(self) -> None:
        """Let go of the request threads (a request still running finishes on its own)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


ROLES = frozenset({"system", "user", "assistant"})
SPEAKER = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _message(message: object) -> dict[str, str]:
    """One chat message as the endpoint takes it, checked: a role, text, and a name if one was given."""
    if not isinstance(message, Mapping):
        raise InvalidType(f"a chat message is a mapping with role and content, not {describe(message)}")
    role, content, name = message.get("role"), message.get("content"), message.get("name")
    if role not in ROLES or not isinstance(content, str):
        raise InvalidValue(
            f"a chat message has a role ({', '.join(sorted(ROLES))}) and text content, "
            f"not {describe(message)}"
        )
    found = {"role": role, "content": content}
    if isinstance(name, str) and SPEAKER.fullmatch(name):  # what OpenAI takes as a name; others are left out
        found["name"] = name
    return found


def _all_dicts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
