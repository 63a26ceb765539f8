"""OneBot v11's string form of a message: text with CQ codes, read into segments and written back.

A message is a list of segments `{"type": ..., "data": {...}}` (the array form). The string form writes the
same message as text in which each non-text segment is a CQ code, `[CQ:at,qq=10001]`. Four characters are
escaped so that text never reads as a code: `&` as `&amp;`, `[` as `&#91;`, `]` as `&#93;` in text and in
parameter values, and `,` as `&#44;` in parameter values too. A `[CQ:` that never closes, or that does not
have the shape of a code, is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["escape", "format_message", "parse", "unescape"]

CODE = re.compile(r"\[CQ:([A-Za-z0-9_.-]+)((?:,[^,\[\]]*)*)\]")
_TEXT_ESCAPES = (("&", "&amp;"), ("[", "&#91;"), ("]", "&#93;"))
_UNESCAPES = {"&amp;": "&", "&#91;": "[", "&#93;": "]", "&#44;": ","}
_ENTITY = re.compile(r"&(?:amp|#91|#93|#44);")


def escape(text: str, *, in_parameter: bool = False) -> str:
    """`text` as it is written in a CQ string: in text, or as a code's parameter value (commas too)."""
    for plain, escaped in _TEXT_ESCAPES:  # `&` first, so the others' `&` are not escaped again
        text = text.replace(plain, escaped)
    return text.replace(",", "&#44;") if in_parameter else text


def unescape(text: str) -> str:
    """The text a CQ string means, in one pass (so `&amp;#91;` is `&#91;`, not `[`)."""
    return _ENTITY.sub(lambda found: _UNESCAPES[found.group(0)], text)


def parse(message: str) -> list[dict[str, Any]]:
    """The segments of a CQ string; text between codes becomes `text` segments (empty ones left out)."""
    segments: list[dict[str, Any]] = []
    at = 0
    for code in CODE.finditer(message):
        if code.start() > at:
            segments.append(_text(message[at : code.start()]))
        data: dict[str, str] = {}
        for pair in code.group(2).split(",")[1:]:
            key, _, value = pair.partition("=")
            if key:
                data[key] = unescape(value)
        segments.append({"type": code.group(1), "data": data})
        at = code.end()
    if at < len(message):
        segments.append(_text(message[at:]))
    return segments


def _text(raw: str) -> dict[str, Any]:
    return {"type": "text", "data": {"text": unescape(raw)}}


def format_message(segments: Iterable[Mapping[str, Any]]) -> str:
    """Segments as a CQ string (the inverse of `parse` for what it reads)."""
    parts: list[str] = []
    for segment in segments:
        kind = str(segment.get("type", ""))
        data = segment.get("data") or {}
        if kind == "text":
            parts.append(escape(str(data.get("text", ""))))
            continue
        params = "".join(
            f",{key}={escape(str(value), in_parameter=True)}"
            for key, value in data.items()
            if value is not None
        )
        parts.append(f"[CQ:{kind}{params}]")
    return "".join(parts)
