"""A verb written once, run by two executors: the plain twin on the caller's thread, the async twin off the
event loop.

A verb is a generator (a *plan*) that yields what it needs from outside and is sent the outcome:
`Read(work, *args)` and `Write(work, *args)` (transaction functions, see `store`) and `Await(make)` (a
coroutine on the caller's event loop: a meaning tier, a plugin's async hook, a model). Everything between
those steps is plain code: validating the arguments, scoring, building the block's text.

- `run` (the plain twins) does each step on the calling thread: reads and writes on its own connection, an
  `Await` to its end with `decide.run`.
- `arun` (the async twins) hands the plan to one of the store's threads, which runs it, and its
  reads, until a step needs a writer or the loop: only then does the loop see it again. So a prompt with
  words alone is one hop, and the loop spends a few microseconds on it instead of the ~2 ms of text work,
  scoring and formatting it used to run there between two awaits (1,000 people at once: the loop was late by
  up to a second, `benchmarks/busy.py`).

A step that fails is thrown into the plan at its `yield`, as the call would raise in plain code. The steps
themselves are in `steps` (so that `decide` can write plans too); they are named here as well.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .decide import run as run_coroutine
from .steps import Await, Plan, Read, Write, advance
from .store import breaks

__all__ = ["Await", "Keywords", "Plan", "Read", "Write", "arun", "run"]

T = TypeVar("T")


class Keywords:
    """A plain twin's keyword arguments and their defaults, so that its async twin can take `**options`
    and its plan one mapping: the signature and its defaults are written once, on the plain twin."""

    def __init__(self, plain: Callable[..., Any]) -> None:
        self.verb = plain.__name__
        self.defaults = {
            name: p.default
            for name, p in inspect.signature(plain).parameters.items()
            if p.kind is p.KEYWORD_ONLY
        }

    def given(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults with `options` over them; a name the plain twin does not take is a TypeError."""
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            raise TypeError(f"{self.verb}() got unexpected keyword arguments: {', '.join(unknown)}")
        return {**self.defaults, **options}

    def of(self, local: Mapping[str, Any]) -> dict[str, Any]:
        """The plain twin's own keyword arguments, from its `locals()`."""
        return {name: local[name] for name in self.defaults}


def run(store: Any, plan: Plan[T]) -> T:
    """The plan to its end on this thread (the plain twins)."""
    value: Any = None
    error: BaseException | None = None
    while True:
        done, step = advance(plan, value, error)
        if done:
            return step
        value, error = None, None
        try:
            if isinstance(step, Write):
                value = store.write(step.work, *step.args)
            elif isinstance(step, Read):
                value = store.read(step.work, *step.args)
            else:
                value = run_coroutine(step.make)
        except Exception as err:  # thrown into the plan at its step
            error = err


async def arun(store: Any, plan: Plan[T], *, later: bool = False) -> T:
    """The plan to its end off the loop (the async twins): on a store's thread up to each write or await;
    `later` for a plan off a reply's path (see `Store.aside`)."""
    value: Any = None
    error: BaseException | None = None
    while True:
        done, found = await store.aside(_advance, store, plan, value, error, later=later)
        if done:
            return found
        value, error = None, None
        try:
            writing = isinstance(found, Write)
            value = await (store.awrite(found.work, *found.args) if writing else found.make())
        except Exception as err:  # thrown into the plan at its step
            error = err


def _advance(store: Any, plan: Plan[Any], value: Any, error: BaseException | None) -> tuple[bool, Any]:
    """On a store's thread: the plan, and its reads, up to its end (True, the result) or to the next step
    that needs the loop or the writer (False, that step)."""
    while True:
        done, step = advance(plan, value, error)
        if done or isinstance(step, Write) or not isinstance(step, Read):
            return done, step
        breaks.take_if_due()  # between reads, the event loop's thread gets the GIL in a rush
        value, error = None, None
        try:
            value = store.read(step.work, *step.args)
        except Exception as err:  # thrown into the plan at its step
            error = err
