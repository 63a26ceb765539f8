"""The `[plugins.openai]` table, declared once: `Settings.of` reads it with these checks, and the plugin
registers them (`register_settings`) so `mneme config set`, `check` and `template` know every key. What
each key means is in `provider`'s docstring; each rule below is the line the template shows."""

from __future__ import annotations

import math
import urllib.parse
from typing import Any

from mneme_core.config import checks
from mneme_core.config.checks import Check
from mneme_core.config.declared import Setting, Table
from mneme_core.errors import InvalidValue, describe

__all__ = ["NAME", "SETTINGS"]

NAME = "openai"


def _at_least(low: float, *, whole: bool = False) -> Check:
    kind = "a whole number" if whole else "a number"

    def check(key: str, value: object) -> Any:
        finite = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not finite or value < low or (whole and value != int(value)):  # type: ignore[operator]
            raise InvalidValue(f"{key} is {kind} of {low:g} or more, not {describe(value)}")
        return int(value) if whole else float(value)  # type: ignore[arg-type]

    return check


def _word(key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise InvalidValue(f"{key} is one line of text, not {describe(value)}")
    return value.strip()


def _url(key: str, value: object) -> str:
    url = urllib.parse.urlsplit(_word(key, value))
    if url.scheme not in ("http", "https") or not url.netloc:
        raise InvalidValue(f"{key} is an http(s) URL, not {describe(value)}")
    return url.geturl()


SECONDS = _at_least(0.001)
SETTINGS = Table(
    f"plugins.{NAME}",
    (
        Setting("base_url", _url, "the API root, up to /v1", "https://api.openai.com/v1"),
        Setting("model", _word, "the chat model to ask (required for replies)", example="deepseek-chat"),
        Setting(
            "judge_model",
            _word,
            "the model that judges exchanges and writes notes (default: model)",
            example="deepseek-chat",
        ),
        Setting(
            "api_key",
            checks.secret("DEEPSEEK_API_KEY"),
            "by reference; without one, OPENAI_API_KEY if set, else no key (Ollama)",
            example={"$env": "DEEPSEEK_API_KEY"},
        ),
        Setting("embedding_model", _word, "the model of /embeddings", "text-embedding-3-small"),
        Setting(
            "embedding_dimensions",
            _at_least(1, whole=True),
            "sent as dimensions with each /embeddings",
            example=256,
        ),
        Setting("embedding_timeout", SECONDS, "seconds a recall waits for its query's vector", 5.0),
        Setting("temperature", _at_least(0.0), "sent with each reply when given", example=0.7),
        Setting("judge_temperature", _at_least(0.0), "sent with each judgement when given", example=0.0),
        Setting("max_tokens", _at_least(1, whole=True), "sent with each request when given", example=800),
        Setting("timeout", SECONDS, "seconds for one request", 60.0),
        Setting(
            "retries", _at_least(0, whole=True), "further tries after a 408, 409, 429, 5xx or no answer", 3
        ),
        Setting("backoff", SECONDS, "the first wait between tries, doubling, in seconds", 1.0),
        Setting("max_backoff", SECONDS, "the longest wait between tries, in seconds", 30.0),
        Setting("max_retry_after", SECONDS, "the longest Retry-After honoured, in seconds", 60.0),
        Setting("concurrency", _at_least(1, whole=True), "requests in flight at once", 8),
    ),
)
