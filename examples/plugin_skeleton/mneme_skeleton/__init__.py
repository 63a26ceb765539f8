"""A skeleton Mneme plugin: one hook, `extra_prompt_sections`, adding a line to the system prompt."""

from __future__ import annotations

from mneme_core.hookspecs import hookimpl

QUESTION_HINT = "When they ask you something, answer it first, then ask one thing back."


@hookimpl
def extra_prompt_sections(subject: str, query: str) -> str | None:
    """A line for the system prompt when the message is a question; None adds nothing."""
    if query.rstrip().endswith(("?", "？")):
        return QUESTION_HINT
    return None
