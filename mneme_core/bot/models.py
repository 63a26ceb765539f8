"""The model a bot talks through: made from the config, asked with a bound, let go at the end.

A model is a provider object (what `register_providers` factories make) or a plain function. It is asked in
the richest way it offers: `chat(messages)` (a method, or a function of one argument; plain or async) gets
the system prompt and the conversation as chat messages (`conversation.Prompted`); otherwise
`complete(system, user)` (or a function of two arguments) gets the system prompt and the current line.
Either way the call is bounded (`answer`: a `TimeoutError` after `timeout` seconds) and must return text.

`build_model` makes the provider a config names (or the first one configured, else the offline stand-in);
`close_model` lets it go (its `aclose`, if any).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..decide import Complete, acomplete
from ..errors import InvalidType, describe
from ..plugins import Manager, PluginError
from .conversation import Prompted
from .hooks import plugins_of, ready

__all__ = ["answer", "build_model", "chat_of", "close_model", "completer", "model_from_config"]


def chat_of(model: Any) -> Callable[[list[dict[str, str]]], Any] | None:
    """The model's `chat(messages)`: its method, or the model itself when it is a function of one
    argument; None when it only completes."""
    found = getattr(model, "chat", None)
    if callable(found):
        return found
    if callable(model) and not callable(getattr(model, "complete", None)) and _arity(model) == 1:
        return model
    return None


def _arity(function: Any) -> int | None:
    """How many positional arguments a function needs, or None when it cannot be told."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in kinds and p.default is inspect.Parameter.empty)


def completer(model: Any) -> Complete:
    """The model's `complete(system, user)`: its method, or the model itself when it is a function."""
    found = getattr(model, "complete", None)
    if callable(found):
        return found
    if callable(model):
        return model
    if callable(getattr(model, "chat", None)):
        return lambda system, user: model.chat(
            [{"role": "system", "content": system}, {"role": "user", "content": user}]
        )
    raise InvalidType(
        f"a model is a function complete(system, user) -> text or an object with complete() or chat(), "
        f"not {describe(model)}"
    )


async def answer(model: Any, prompted: Prompted, *, timeout: float) -> str:
    """The model's reply to `prompted` within `timeout` seconds (chat messages when it takes them)."""
    chat = chat_of(model)
    if chat is None:
        return await acomplete(completer(model), prompted.system, prompted.current, timeout=timeout)
    messages = prompted.messages()

    async def call() -> object:
        if inspect.iscoroutinefunction(chat):
            return await chat(messages)
        result = await asyncio.to_thread(chat, messages)
        return await result if inspect.isawaitable(result) else result

    try:
        async with asyncio.timeout(timeout):
            reply = await call()
    except TimeoutError as err:
        raise TimeoutError(f"the model gave no reply within {timeout:g} s") from err
    if not isinstance(reply, str):
        raise InvalidType(f"a model's chat() returns a string, not {type(reply).__name__}")
    return reply


def build_model(manager: Manager, name: str | None, tables: Mapping[str, Mapping[str, Any]]) -> Any:
    """The provider named, made from its `[plugins.<name>]` table. Without a name: the first registered
    provider that has a table, else the offline stand-in."""
    providers = ready(manager).providers
    if name is None:
        name = next((n for n in providers if tables.get(n)), "offline")
    if name not in providers:
        known = ", ".join(providers) or "none"
        raise PluginError(f"no model provider is called {name!r} (installed: {known})")
    try:
        return providers[name](tables.get(name, {}))
    except Exception as err:  # a plugin boundary at start-up: name the provider and its plugin
        owner = providers.owner(name)
        raise PluginError(f"model provider {name} (of plugin {owner}) could not be made: {err}") from err


def model_from_config(mneme: Any, provider: str | None = None, plugins: Manager | None = None) -> Any:
    """The provider named (or the first configured one, else the offline stand-in), made from its
    `[plugins.<name>]` table of the companion's config."""
    manager = ready(plugins if plugins is not None else plugins_of(mneme))
    tables = {name: mneme.config.table(f"plugins.{name}") for name in manager.providers}
    return build_model(manager, provider, tables)


async def close_model(model: Any) -> None:
    """Let a provider go (its `aclose`, if it has one)."""
    close = getattr(model, "aclose", None)
    if callable(close):
        await close()
