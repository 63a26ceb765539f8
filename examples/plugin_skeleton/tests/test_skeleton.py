"""The skeleton's hook, through a fresh plugin manager that loads no installed plugin."""

from __future__ import annotations

import asyncio

import mneme_skeleton

from mneme_core.bot import hooks
from mneme_core.plugins import make_manager


def sections(query: str) -> list[str]:
    manager = make_manager(load_entry_points=False, environ={}, plugins=[mneme_skeleton])
    return asyncio.run(hooks.extra_sections(manager, None, "console:leo", query))


def test_a_question_gets_the_hint() -> None:
    assert sections("How was your day?") == [mneme_skeleton.QUESTION_HINT]


def test_anything_else_adds_nothing() -> None:
    assert sections("I had a long day.") == []
