"""JSON out of a model's reply: the first complete value, wherever the model put it.

Models wrap their JSON in prose ("Sure! Here it is: ... Hope this helps {smile}"), in ```json fences, or
after a `<think>...</think>` block, and prose may hold braces of its own. A greedy `\\{.*\\}` spans from the
first brace to the last one and fails on all of these, so the answer is silently lost. Here a *scanner*
walks from an opening bracket to the bracket that balances it, skipping whole JSON strings (escapes
included), and the span is parsed; when it does not parse, the next opening bracket is tried.

Policy, in order: thinking is set aside (the text after the last `</think>`; the whole reply only when that
holds nothing), fenced blocks come before the rest of the text (a fence is where a model puts its answer),
and within a text the first value that parses wins. A value inside one already found is not offered again,
so `first_object` returns the outer object. A trailing comma (`[1, 2,]`), a slip small models make, is
forgiven. Work is bounded: at most `MAX_TEXT` characters, `MAX_TRIES` opening brackets and `MAX_TOKENS`
brackets walked per text, so a reply made of a hundred thousand brackets costs milliseconds, not minutes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

__all__ = ["first_array", "first_object", "unfence", "values", "visible"]

MAX_TEXT = 200_000
MAX_TRIES = 64
MAX_TOKENS = 200_000

_PAIRS = {"{": "}", "[": "]"}
# A whole JSON string (possessive, so a long unterminated one fails in linear time), or a bracket.
_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\]]', re.DOTALL)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\]++|\\.)*+"|,(\s*[}\]])', re.DOTALL)


def visible(reply: str) -> str:
    """The reply without its thinking: `<think>` blocks removed, or what follows a lone `</think>`."""
    text = _THINK.sub("", reply)
    closing = text.lower().rfind("</think>")
    return text[closing + len("</think>") :] if closing >= 0 else text


def unfence(text: str) -> str:
    """The content of a text that is one fenced block (```...```), else the text as it is."""
    fenced = _FENCE.fullmatch(text.strip())
    return fenced[1] if fenced else text


def _end(text: str, start: int, budget: list[int]) -> int | None:
    """The index just past the bracket that balances the one at `start`, or None; spends `budget[0]`."""
    stack = []
    for match in _TOKENS.finditer(text, start):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        token = match[0]
        if token[0] == '"':
            continue
        if token in _PAIRS:
            stack.append(_PAIRS[token])
        elif not stack or stack.pop() != token:
            return None
        if not stack:
            return match.end()
    return None


def _parse(span: str) -> Any:
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        pass
    repaired = _TRAILING_COMMA.sub(lambda m: m[1] if m[1] is not None else m[0], span)
    if repaired == span:
        return None
    try:
        return json.loads(repaired)
    except (ValueError, RecursionError):
        return None


def _whole(text: str, openers: str) -> Any:
    """The text's value when the whole text is one JSON value opening with one of `openers` (what a model
    asked for JSON mostly replies), else None: what `_scan` would find in it first and alone, without
    walking its brackets (the judge's and the note writer's replies, 40 µs an observe)."""
    shown = text.strip()
    if not shown or shown[0] not in openers or len(text) > MAX_TEXT or "```" in text:
        return None
    try:
        return json.loads(shown)
    except (ValueError, RecursionError):
        return None


def _scan(text: str, openers: str) -> Iterator[Any]:
    """Each JSON value that opens with one of `openers`, in text order, not descending into found ones."""
    whole = _whole(text, openers)
    if whole is not None:
        yield whole
        return
    text = text[:MAX_TEXT]
    position, tries, budget = 0, 0, [MAX_TOKENS]
    starts = re.compile("[" + re.escape(openers) + "]")
    while tries < MAX_TRIES and budget[0] > 0 and (found := starts.search(text, position)):
        tries += 1
        start = found.start()
        end = _end(text, start, budget)
        value = _parse(text[start:end]) if end is not None else None
        if value is None:
            position = start + 1
            continue
        yield value
        position = end


def values(reply: object, openers: str = "{[") -> Iterator[Any]:
    """Every JSON object or array (as `openers` allows) a reply holds, in the order of the policy above."""
    if not isinstance(reply, str) or not reply:
        return
    shown = visible(reply)
    texts = [shown, reply] if shown != reply else [shown]
    for text in texts:
        for fenced in _FENCE.finditer(text):
            yield from _scan(fenced[1], openers)
        yield from _scan(text, openers)


def first_object(reply: object) -> dict[str, Any] | None:
    """The first complete JSON object in a reply, or None."""
    return next((v for v in values(reply, "{") if isinstance(v, dict)), None)


def first_array(reply: object) -> list[Any] | None:
    """The first complete JSON array in a reply, or None."""
    return next((v for v in values(reply, "[") if isinstance(v, list)), None)
