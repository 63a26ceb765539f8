"""The OpenAI-compatible provider against a real HTTP server on loopback that speaks the same JSON: replies,
errors, 429 with Retry-After, 5xx retried with backoff, slow answers, malformed bodies. No network."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import loopback
import mneme_openai
import pytest
from mneme_openai.provider import OpenAIProvider, ProviderError, _retry_after

from mneme_core import InvalidValue, Mneme
from mneme_core.bot import Adapter, BotSettings, Incoming, Runner
from mneme_core.plugins import make_manager
from mneme_core.runner import build_model

KEY = "sk-test-0123456789abcdef"


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(text: str) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
    }


class Endpoint:
    """What the server will answer, in order (the last answer repeats), and what it was asked."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.url = ""

    def answer(self, *replies: Reply) -> None:
        self.replies = list(replies)

    def next(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@pytest.fixture(autouse=True)
def no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy set in the environment must not carry requests meant for the loopback server."""
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    found = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"null")
            found.requests.append({"path": self.path, "headers": dict(self.headers.items()), "json": body})
            reply = found.next()
            time.sleep(reply.delay)
            data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up waiting (the slow-answer test)
                pass

        def log_message(self, *args: Any) -> None:
            pass

    with loopback.serving(Handler) as found.url:
        yield found


class Sleeps:
    """An injected `sleep` that records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def provider(endpoint: Endpoint, sleeps: Sleeps | None = None, **settings: Any) -> OpenAIProvider:
    table = {"base_url": endpoint.url, "model": "chat-model", "api_key": {"$env": "TEST_KEY"}, **settings}
    return OpenAIProvider(table, environ={"TEST_KEY": KEY}, sleep=sleeps or Sleeps())


async def test_complete_asks_the_chat_model_with_the_key(endpoint: Endpoint) -> None:
    endpoint.answer(Reply(body=completion("Hello, Leo!")))
    model = provider(endpoint, temperature=0.7, max_tokens=300)
    assert await model.complete("You are Mio.", "Hi") == "Hello, Leo!"
    (asked,) = endpoint.requests
    assert asked["path"] == "/v1/chat/completions"
    assert asked["headers"]["Authorization"] == f"Bearer {KEY}"
    assert asked["json"] == {
        "model": "chat-model",
        "messages": [{"role": "system", "content": "You are Mio."}, {"role": "user", "content": "Hi"}],
        "temperature": 0.7,
        "max_tokens": 300,
    }
    assert KEY not in repr(model) and endpoint.url.split("/v1")[0] in repr(model)
    await model.aclose()


async def test_judge_uses_the_judge_model_and_embed_the_embedding_model(endpoint: Endpoint) -> None:
    model = provider(endpoint, judge_model="small-judge", judge_temperature=0, embedding_model="embedder")
    endpoint.answer(Reply(body=completion('{"worth_remembering": {"probability": 0.9}}')))
    assert "0.9" in await model.judge("judge", "text")
    assert endpoint.requests[-1]["json"]["model"] == "small-judge"
    assert endpoint.requests[-1]["json"]["temperature"] == 0
    endpoint.answer(
        Reply(body={"data": [{"index": 1, "embedding": [0.0, 1]}, {"index": 0, "embedding": [0.5, 0.25]}]})
    )
    assert await model.embed(["first", "second"]) == [[0.5, 0.25], [0.0, 1.0]]
    assert endpoint.requests[-1]["path"] == "/v1/embeddings"
    assert endpoint.requests[-1]["json"] == {"model": "embedder", "input": ["first", "second"]}
    assert await model.embed([]) == []
    await model.aclose()


async def test_no_key_no_authorization_header(endpoint: Endpoint) -> None:
    endpoint.answer(Reply(body=completion("local")))
    model = OpenAIProvider({"base_url": endpoint.url, "model": "llama"}, environ={})
    assert await model.complete("", "hi") == "local"
    assert "Authorization" not in endpoint.requests[0]["headers"]
    assert endpoint.requests[0]["json"]["messages"] == [{"role": "user", "content": "hi"}]
    from_env = OpenAIProvider({"base_url": endpoint.url, "model": "m"}, environ={"OPENAI_API_KEY": "sk-env"})
    await from_env.complete("", "hi")
    assert endpoint.requests[1]["headers"]["Authorization"] == "Bearer sk-env"


async def test_an_error_answer_is_not_retried_and_says_what_the_server_said(endpoint: Endpoint) -> None:
    endpoint.answer(Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "auth"}}))
    sleeps = Sleeps()
    model = provider(endpoint, sleeps)
    with pytest.raises(ProviderError) as failure:
        await model.complete("s", "u")
    error = failure.value
    assert error.status == 401 and not error.retryable
    assert str(error) == f"{endpoint.url}/chat/completions answered 401: Incorrect API key provided: ***"
    assert len(endpoint.requests) == 1 and sleeps.waits == []
    assert model.report()["failures"] == 1 and KEY not in model.report()["last_error"]


async def test_a_429_waits_as_long_as_retry_after_says(endpoint: Endpoint) -> None:
    endpoint.answer(
        Reply(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "2"}),
        Reply(body=completion("ok")),
    )
    sleeps = Sleeps()
    model = provider(endpoint, sleeps)
    assert await model.complete("s", "u") == "ok"
    assert sleeps.waits == [2.0]
    assert len(endpoint.requests) == 2
    assert model.report()["retries"] == 1


async def test_5xx_is_retried_with_growing_backoff_then_given_up(endpoint: Endpoint, caplog) -> None:
    endpoint.answer(Reply(503, {"error": "overloaded"}))
    sleeps = Sleeps()
    model = provider(endpoint, sleeps, retries=2, backoff=0.5)
    with (
        caplog.at_level(logging.INFO, logger="mneme_openai.provider"),
        pytest.raises(ProviderError) as failure,
    ):
        await model.complete("s", "u")
    assert str(failure.value) == f"{endpoint.url}/chat/completions answered 503: overloaded (tried 3 times)"
    assert len(endpoint.requests) == 3
    first, second = sleeps.waits
    assert 0.25 <= first <= 0.5 and 0.5 <= second <= 1.0
    assert KEY not in caplog.text and "trying again" in caplog.text
    endpoint.answer(Reply(500, b"<html>Bad Gateway</html>"), Reply(body=completion("back")))
    assert await model.complete("s", "u") == "back"


async def test_a_retry_after_beyond_the_limit_fails_at_once(endpoint: Endpoint) -> None:
    endpoint.answer(Reply(429, {"message": "quota exhausted"}, {"Retry-After": "3600"}))
    model = provider(endpoint)
    with pytest.raises(ProviderError, match=r"answered 429: quota exhausted, and asks to wait 3600 s"):
        await model.complete("s", "u")
    assert len(endpoint.requests) == 1


async def test_a_slow_answer_hits_the_timeout(endpoint: Endpoint) -> None:
    endpoint.answer(Reply(body=completion("too late"), delay=1.0))
    model = provider(endpoint, timeout=0.2, retries=0)
    began = time.monotonic()
    with pytest.raises(
        ProviderError, match=r"/chat/completions gave no answer within 0.2 s \(tried 1 times\)"
    ):
        await model.complete("s", "u")
    assert time.monotonic() - began < 0.9
    await model.aclose()


async def test_an_endpoint_that_is_not_there(endpoint: Endpoint) -> None:
    model = OpenAIProvider({"base_url": "http://127.0.0.1:9/v1", "model": "m", "retries": 0}, environ={})
    with pytest.raises(ProviderError, match=r"http://127.0.0.1:9/v1/chat/completions could not be reached"):
        await model.complete("s", "u")


async def test_malformed_bodies_are_clear_errors(endpoint: Endpoint) -> None:
    model = provider(endpoint)
    endpoint.answer(Reply(body=b"<html>this is a proxy's page</html>"))
    with pytest.raises(ProviderError, match=r"answered 200 with a body that is not a JSON object: .<html>"):
        await model.complete("s", "u")
    endpoint.answer(Reply(body={"choices": []}))
    with pytest.raises(ProviderError, match=r"answered without the text in choices\[0\].message.content"):
        await model.complete("s", "u")
    endpoint.answer(Reply(body={"choices": [{"message": {"role": "assistant", "content": None}}]}))
    with pytest.raises(ProviderError, match=r"choices\[0\].message.content"):
        await model.complete("s", "u")
    endpoint.answer(Reply(body={"data": [{"index": 0, "embedding": [1.0]}]}))
    with pytest.raises(ProviderError, match=r"/embeddings answered without 2 vectors in data\[\].embedding"):
        await model.embed(["a", "b"])
    endpoint.answer(
        Reply(body={"choices": [{"message": {"content": [{"type": "text", "text": "in parts"}]}}]})
    )
    assert await model.complete("s", "u") == "in parts"
    assert len(endpoint.requests) == 5  # a malformed body is not asked again


def test_settings_are_checked_and_the_key_comes_from_the_environment() -> None:
    with pytest.raises(ValueError, match=r"plugins.openai.model is required"):
        OpenAIProvider({}, environ={})
    with pytest.raises(ValueError, match=r"plugins.openai has no setting modle"):
        OpenAIProvider({"modle": "x", "model": "y"}, environ={})
    with pytest.raises(ValueError, match=r"plugins.openai.base_url is an http"):
        OpenAIProvider({"model": "m", "base_url": "ftp://example.com"}, environ={})
    with pytest.raises(ValueError, match=r"plugins.openai.timeout is a number of 0.001 or more"):
        OpenAIProvider({"model": "m", "timeout": 0}, environ={})
    with pytest.raises(
        ValueError, match=r"plugins.openai.api_key: the environment variable DEEPSEEK_API_KEY is not set"
    ):
        OpenAIProvider({"model": "m", "api_key": {"$env": "DEEPSEEK_API_KEY"}}, environ={})
    given = OpenAIProvider(model="qwen-plus", base_url="https://user:pw@example.com/compatible-mode/v1?x=1")
    assert given.where == "https://example.com/compatible-mode/v1"


def test_retry_after_as_seconds_or_a_date() -> None:
    assert _retry_after({"retry-after": "1.5"}) == 1.5
    assert _retry_after({}) is None
    assert _retry_after({"Retry-After": "soon"}) is None
    later = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= (_retry_after({"Retry-After": later}) or 0) <= 31


async def test_registered_through_register_providers(endpoint: Endpoint) -> None:
    manager = make_manager(load_entry_points=False, environ={}, plugins=[mneme_openai])
    assert manager.providers["openai"] is OpenAIProvider
    assert manager.providers.owner("openai") == "mneme_openai"
    endpoint.answer(Reply(body=completion("from the config")))
    model = build_model(manager, None, {"openai": {"base_url": endpoint.url, "model": "m"}})
    assert isinstance(model, OpenAIProvider)
    assert await model.complete("s", "u") == "from the config"


async def test_a_bot_sends_the_conversation_as_chat_messages(endpoint: Endpoint, tmp_path, clock) -> None:
    endpoint.answer(Reply(body=completion("Nice to meet you, Leo!")))
    model = provider(endpoint)
    mneme = Mneme(tmp_path / "chat.db", space="chat", clock=clock, zone="UTC")
    runner = Runner(mneme, model, settings=BotSettings(persona="You are Mio."))
    adapter = Recording()
    try:
        for said in ("Hi, I'm Leo.", "My sister is called Leah.", "What is my sister called?"):
            await runner.handle(adapter, Incoming(platform="test", user_id="1", user_name="Leo", text=said))
        # The observes of the earlier turns ask the same endpoint (judge, note writer) off the reply's path,
        # so the last request need not be the reply's: take the last one that carries the persona.
        chats = [r["json"]["messages"] for r in endpoint.requests]
        sent = [c for c in chats if c[0]["content"].startswith("You are Mio.")][-1]
        assert sent[0]["role"] == "system"
        assert [(m["role"], m["content"]) for m in sent[1:]] == [
            ("user", "Hi, I'm Leo."),
            ("assistant", "Nice to meet you, Leo!"),
            ("user", "My sister is called Leah."),
            ("assistant", "Nice to meet you, Leo!"),
            ("user", "What is my sister called?"),
        ]
        with pytest.raises(InvalidValue, match="a chat message has a role"):
            await model.chat([{"role": "tool", "content": "x"}])
    finally:
        await runner.aclose()
        await model.aclose()
        await mneme.aclose()


class Recording(Adapter):
    name = "test"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    async def send(self, incoming: Incoming, text: str) -> None:
        self.sent.append(text)
