"""Calling hooks: the one place where what plugins return is resolved.

pluggy calls implementations and hands back what they return; it does not await. An `async def`
implementation therefore returns a coroutine, and a hook that pluggy called as a whole stops at the first
implementation that raises, without saying which plugin it was. So the core never calls `pm.hook.x(...)`
itself: it calls through here, which runs each implementation on its own, in pluggy's call order
(`tryfirst` first, `trylast` last, otherwise the plugin registered last first), and

- awaits what may be awaited (`await_me_maybe`, datasette's idea);
- names a plugin that raises in the log (with its traceback, for whoever reads the log) and goes on without
  it: a broken plugin costs its own contribution, never the reply;
- drops None, which means "nothing to add" everywhere in the catalogue.

`acall` collects (the implementations' awaitables run concurrently; the results keep the call order),
`afirst` stops at the first answer, one implementation at a time, so a `tryfirst` plugin can pre-empt the
rest. Both take `within`, seconds an implementation's awaitable may take: one that takes longer is logged,
named, and passed over like one that raised (the bot layer bounds the hooks on a message's path so).
`call` is the plain twin of `acall`: an awaitable an implementation returns is run to its end on a
private event loop (`decide.run`), so a plain caller honours async plugins too (better call from async
code: an async plugin's resources then live on the caller's loop).

Hook wrappers are refused by the plugin manager (they would see coroutines rather than results), so every
implementation here is a plain one. Calls take keyword arguments only, exactly the spec's.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pluggy import HookCaller, HookImpl

from .decide import run

__all__ = [
    "acall",
    "aeach",
    "afirst",
    "await_me_maybe",
    "call",
    "failed",
    "impls",
    "invoke",
]

log = logging.getLogger(__name__)

T = TypeVar("T")


async def await_me_maybe(value: T | Awaitable[T]) -> T:
    """The value, awaited if it is awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value


def impls(hook: HookCaller) -> list[HookImpl]:
    """The hook's implementations in the order they are called (pluggy keeps them in reverse)."""
    return [impl for impl in reversed(hook.get_hookimpls()) if not (impl.wrapper or impl.hookwrapper)]


def _check(hook: HookCaller, kwargs: dict[str, Any]) -> None:
    """The core calls each hook with exactly its spec's arguments; anything else is the core's bug."""
    spec = hook.spec
    if spec is not None and set(spec.argnames) != kwargs.keys():
        raise TypeError(
            f"hook {hook.name} takes {', '.join(spec.argnames) or 'no arguments'}, "
            f"called with {', '.join(kwargs) or 'none'}"
        )


def invoke(impl: HookImpl, kwargs: dict[str, Any]) -> Any:
    """One implementation's raw result (maybe a coroutine): it gets the arguments it names."""
    return impl.function(*(kwargs[name] for name in impl.argnames))


def failed(hook: HookCaller, impl: HookImpl, err: BaseException, outcome: str = "skipped") -> None:
    """Log a plugin's failure, naming it; its traceback goes to the log, never to the person."""
    log.warning(
        "plugin %s failed in hook %s (%s): %s: %s",
        impl.plugin_name,
        hook.name,
        outcome,
        type(err).__name__,
        err,
        exc_info=err,
    )


class PluginTimeout(TimeoutError):
    """A plugin's awaitable took longer than the caller's `within`."""


async def _awaited(value: Any, within: float | None) -> Any:
    """`await_me_maybe(value)`, within `within` seconds when given (else `PluginTimeout`)."""
    if within is None or not inspect.isawaitable(value):
        return await await_me_maybe(value)
    try:
        async with asyncio.timeout(within):  # no task of its own, as wait_for makes: hooks on every message
            return await value
    except TimeoutError as err:
        raise PluginTimeout(f"no answer within {within:g} s") from err


async def _settle(hook: HookCaller, impl: HookImpl, value: Any, within: float | None = None) -> Any:
    """An awaitable result, or None (nothing to add) when it raised or took longer than `within`."""
    try:
        return await _awaited(value, within)
    except Exception as err:  # a plugin boundary: its failure costs its own contribution only
        failed(hook, impl, err)
        return None


async def aeach(hook: HookCaller, /, *, within: float | None = None, **kwargs: Any) -> list[tuple[str, Any]]:
    """(plugin name, result) for every implementation, in call order, awaited, without the Nones and the
    failures. The awaitables run concurrently: one at a time would make a slow plugin delay the others."""
    _check(hook, kwargs)
    results: list[tuple[HookImpl, Any]] = []
    waiting: list[int] = []
    for impl in impls(hook):
        try:
            value = invoke(impl, kwargs)
        except Exception as err:  # a plugin boundary, as in _settle
            failed(hook, impl, err)
            continue
        if inspect.isawaitable(value):
            waiting.append(len(results))
        results.append((impl, value))
    if waiting:
        settled = await asyncio.gather(*(_settle(hook, *results[n], within) for n in waiting))
        for n, value in zip(waiting, settled, strict=True):
            results[n] = (results[n][0], value)
    return [(impl.plugin_name, value) for impl, value in results if value is not None]


async def acall(hook: HookCaller, /, *, within: float | None = None, **kwargs: Any) -> list[Any]:
    """Every implementation's result, in call order, awaited, without the Nones and the failures."""
    return [value for _, value in await aeach(hook, within=within, **kwargs)]


async def afirst(
    hook: HookCaller,
    accept: Callable[[Any], Any] | None = None,
    /,
    *,
    within: float | None = None,
    **kwargs: Any,
) -> Any:
    """The first result that is not None, asking one implementation at a time in call order; else None.
    `accept(result)` may check or convert each answer: one it raises on is logged, naming the plugin, and
    the next plugin gets its turn."""
    _check(hook, kwargs)
    for impl in impls(hook):
        try:
            value = await _awaited(invoke(impl, kwargs), within)
            if value is not None:
                return value if accept is None else accept(value)
        except Exception as err:  # a plugin boundary: the next plugin gets its turn
            failed(hook, impl, err, "answer passed over")
    return None


def call(hook: HookCaller, /, **kwargs: Any) -> list[Any]:
    """`acall` for plain code: every result in call order, without the Nones and the failures."""
    _check(hook, kwargs)
    results = []
    for impl in impls(hook):
        try:
            value = invoke(impl, kwargs)
            if inspect.isawaitable(value):
                value = run(lambda awaitable=value: await_me_maybe(awaitable))
        except Exception as err:  # a plugin boundary, as in acall
            failed(hook, impl, err)
            continue
        if value is not None:
            results.append(value)
    return results
