"""Checking a call's arguments against its tool's schema, before any handler sees them.

Every refusal is a `ToolError` with a sentence key and the field, so the model reads it in the display
language; an absent or null optional argument is left out (OpenAI's strict mode sends null for what the
model leaves out), and arguments the tool does not declare are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..messages import Words
from .definitions import ARGUMENTS_LIMIT, Tool, ToolError, _is_number


def parse(arguments: object) -> dict[str, Any]:
    """A call's arguments as a dict: from a dict, a JSON string (bytes too) or None."""
    if arguments is None:
        return {}
    if isinstance(arguments, bytes | bytearray):
        try:
            arguments = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError:
            raise ToolError(key="tool.bad_json") from None
    if isinstance(arguments, str):
        if len(arguments) > ARGUMENTS_LIMIT:
            raise ToolError(key="tool.too_big", limit=ARGUMENTS_LIMIT)
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            raise ToolError(key="tool.bad_json") from None
    if not isinstance(arguments, Mapping):
        raise ToolError(key="tool.not_object")
    return dict(arguments)


def _value(field: str, schema: Mapping[str, Any], value: object, words: Words) -> object:
    kind = schema["type"]
    wrong = ToolError(key="tool.type", field=field, kind=words.say(f"tool.kind.{kind}"))
    if kind == "string":
        if not isinstance(value, str):
            raise wrong
        limit = schema.get("maxLength")
        if limit is not None and len(value) > limit:
            raise ToolError(key="tool.too_long", field=field, limit=limit)
        if "enum" in schema and value not in schema["enum"]:
            choices = words.say("tool.comma").join(schema["enum"])
            raise ToolError(key="tool.choice", field=field, choices=choices)
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise wrong
        return value
    if not _is_number(value):
        raise wrong
    if kind == "integer":
        if value != int(value):  # type: ignore[arg-type]
            raise wrong
        value = int(value)  # type: ignore[arg-type]
    low, high = schema.get("minimum"), schema.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):  # type: ignore[operator]
        if low is not None and high is not None:
            raise ToolError(key="tool.range", field=field, low=low, high=high)
        if low is not None:
            raise ToolError(key="tool.at_least", field=field, low=low)
        raise ToolError(key="tool.at_most", field=field, high=high)
    return value


def check(tool: Tool, arguments: Mapping[str, Any], words: Words) -> dict[str, Any]:
    """The arguments the tool declares, each checked; an absent or null optional one is left out, any
    argument the tool does not declare is ignored."""
    found: dict[str, Any] = {}
    for field, schema in tool.parameters["properties"].items():
        value = arguments.get(field)
        if value is None:
            if field in tool.parameters["required"]:
                raise ToolError(key="tool.missing", field=field)
            continue
        found[field] = _value(field, schema, value, words)
    return found
