"""The steps a plan yields (see `twins`), and the executor of a plan that only awaits.

A plan is a generator that yields what it needs from outside and is sent the outcome: `Read(work, *args)`
and `Write(work, *args)` (transaction functions, see `store`) and `Await(make)` (a coroutine on the
caller's event loop: a meaning tier, a plugin's async hook, a model). `twins` runs plans against a store.
`awaited` runs a plan of `Await` steps alone on the loop: a decision tier written as a plan (the judge's
prompt, `decide.Prompt`) is still an ordinary `async adecide` that way, and an observe, which takes the same
plan in with `yield from`, runs the prompt's text work and parsing on a store's thread instead (see
`observe`).

Kept apart from `twins` so that `decide`, which `twins` uses, can write plans too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import InvalidType

T = TypeVar("T")


class Read:
    """A read transaction function and its arguments: `work(conn, *args)` in one snapshot."""

    __slots__ = ("args", "work")

    def __init__(self, work: Callable[..., Any], *args: Any) -> None:
        self.work, self.args = work, args


class Write(Read):
    """A write transaction function and its arguments (committed with the writes waiting with it)."""

    __slots__ = ()


@dataclass(frozen=True)
class Await:
    """A coroutine to run on the caller's event loop, made when it is its turn."""

    make: Callable[[], Awaitable[Any]]


Plan = Generator[Read | Write | Await, Any, T]


def advance(plan: Plan[Any], value: Any, error: BaseException | None) -> tuple[bool, Any]:
    """The plan sent `value` (or thrown `error`, as the step would raise in plain code) up to its next
    step: (False, the step), or (True, its result) when it ended."""
    try:
        return False, plan.throw(error) if error is not None else plan.send(value)
    except StopIteration as done:
        return True, done.value


async def awaited(plan: Plan[T]) -> T:
    """The plan to its end on this event loop. It may only await: a store's step (which needs `twins`) is
    refused, the refusal thrown into the plan at that step like any step that fails."""
    done, step = advance(plan, None, None)
    while not done:
        try:
            if not isinstance(step, Await):
                raise InvalidType(f"a plan run by `awaited` only awaits, it cannot {type(step).__name__}")
            value = await step.make()
        except Exception as err:  # thrown into the plan at its step
            done, step = advance(plan, None, err)
        else:
            done, step = advance(plan, value, None)
    return step
