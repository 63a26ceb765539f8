"""Splitting a long reply into parts a platform takes.

`split_reply` cuts a long reply at the best boundary it can find: between paragraphs, then lines, then
sentences, then words, and only then inside a word. A fenced code block (```) is never cut unless it alone
is over the limit; then it is cut between lines and each part is fenced again, so every part still renders.
No part is empty or only spaces. Lengths are counted in characters (code points): an adapter whose platform
counts otherwise (Telegram counts UTF-16 units) gives a limit with room to spare.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import text
from ..errors import InvalidType, InvalidValue, describe

__all__ = ["MIN_LIMIT", "split_reply"]

MIN_LIMIT = 16
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)


def _blocks(reply: str) -> list[tuple[str, bool]]:
    """The reply as (text, is_code) pieces whose concatenation is the reply; a fenced block is one piece,
    with the line break after its closing fence; an unclosed fence runs to the end."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    while True:
        opening = FENCE.search(reply, at)
        if opening is None:
            break
        line_end = reply.find("\n", opening.end())
        if line_end < 0:  # a fence on the last line opens nothing
            break
        closing = re.compile(rf"^[ \t]*{re.escape(opening.group(1))}[ \t]*$", re.MULTILINE)
        close = closing.search(reply, line_end + 1)
        end = len(reply) if close is None else close.end()
        if end < len(reply) and reply[end] == "\n":
            end += 1
        if opening.start() > at:
            pieces.append((reply[at : opening.start()], False))
        pieces.append((reply[opening.start() : end], True))
        at = end
    if at < len(reply):
        pieces.append((reply[at:], False))
    return pieces


# Each level cuts a piece into smaller ones whose concatenation is the piece, keeping the separators.
_LEVELS = (
    re.compile(r".*?(?:\n[ \t]*\n\s*|\Z)", re.DOTALL),  # paragraphs
    re.compile(r".*?(?:\n|\Z)", re.DOTALL),  # lines
    text.SENTENCES,
    re.compile(r"\S*\s*|\s+"),  # words
)


def _cut(piece: str, level: int) -> list[str]:
    if level >= len(_LEVELS):
        return list(piece)
    return [found for found in _LEVELS[level].findall(piece) if found]


def _size(chunk: str) -> int:
    """A chunk's length as a part: the spaces and line breaks at its end go when it ends a part."""
    return len(chunk.rstrip())


def _prose(piece: str, limit: int, level: int = 0) -> list[str]:
    """A piece of plain text as chunks of at most `limit`, cut at the highest level that fits."""
    if _size(piece) <= limit:
        return [piece]
    chunks: list[str] = []
    for part in _cut(piece, level):
        chunks.extend(_prose(part, limit, level + 1) if _size(part) > limit else [part])
    return _pack(chunks, limit)


def _code(block: str, limit: int) -> list[str]:
    """A fenced block over the limit, cut between lines; each chunk fenced again with the same opening."""
    lines = block.rstrip("\n").split("\n")
    opening = lines[0]
    fence = opening.strip()[:3]
    body = lines[1:-1] if len(lines) > 1 and lines[-1].strip() == fence else lines[1:]
    room = limit - len(opening) - len(fence) - 2
    if room < 1:  # no room for a fence: plain text it is
        return _prose(block, limit)
    chunks: list[str] = []
    for line in body:
        pieces = [line[n : n + room] for n in range(0, len(line), room)] or [""]
        chunks.extend(piece + "\n" for piece in pieces)
    return [f"{opening}\n{chunk}{fence}" for chunk in _pack(chunks, room + 1, len)]


def _pack(chunks: list[str], limit: int, size: Callable[[str], int] = _size) -> list[str]:
    """Consecutive chunks joined while they fit (measured by `size`)."""
    packed: list[str] = []
    for chunk in chunks:
        if packed and size(packed[-1] + chunk) <= limit:
            packed[-1] += chunk
        else:
            packed.append(chunk)
    return packed


def split_reply(reply: str, limit: int) -> list[str]:
    """The reply in parts of at most `limit` characters, cut at the best boundaries; [] for a blank one."""
    if not isinstance(reply, str):
        raise InvalidType(f"a reply is a string, not {type(reply).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < MIN_LIMIT:
        raise InvalidValue(f"a length limit is a whole number of {MIN_LIMIT} or more, not {describe(limit)}")
    reply = reply.strip("\n").rstrip()
    if not reply.strip():
        return []
    if len(reply) <= limit:
        return [reply]
    chunks: list[str] = []
    for piece, is_code in _blocks(reply):
        if _size(piece) <= limit:
            chunks.append(piece)
        elif is_code:
            chunks.extend(chunk + "\n" for chunk in _code(piece, limit - 1))
        else:
            chunks.extend(_prose(piece, limit))
    parts = [part.strip("\n").rstrip() for part in _pack(chunks, limit)]
    return [part for part in parts if part.strip()]
