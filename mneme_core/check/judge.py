"""The model as the health check's judge, within a budget of calls per run.

Each phase that asks the model sends notes as data, one line each (`#12 (fact, importance 3, user.car,
written 2024-03-01) Leo drives a Skoda`), under a system prompt of the companion's config
(`prompts.check_*`), and reads a JSON array back. A run may make at most `budget` calls (a call that fails or
times out counts too: it was made); once they are spent, `ask` answers None without calling and the phase
leaves what it could not judge for the next run. A model that fails is logged and counted, never raised: the
check goes on with what the words found.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import tzinfo
from typing import Any

from .. import dates, text
from ..decide import acomplete, json_reply
from ..memory.note import Note
from ..prompts import PROMPTS

__all__ = ["Judge", "line_of", "lines_of"]

log = logging.getLogger(__name__)

LINE = 300
CALL_CHARS = 12_000  # the notes one call carries at most


def line_of(note: Note, zone: tzinfo | None = None) -> str:
    """One note as the model sees it: its id, what it is, when it was written, its text on one line."""
    day = dates.local(note.created_at, zone)
    about = [note.kind, f"importance {note.importance}"]
    if note.key:
        about.append(note.key)
    about.append(f"written {day.year:04d}-{day.month:02d}-{day.day:02d}")
    return f"#{note.id} ({', '.join(about)}) {text.one_line(note.text, LINE)}"


def lines_of(notes: Sequence[Note], zone: tzinfo | None = None) -> str:
    return "\n".join(line_of(note, zone) for note in notes)


def batches(notes: Sequence[Note], size: int) -> list[list[Note]]:
    """Notes in calls of at most `size` notes and `CALL_CHARS` characters."""
    found: list[list[Note]] = []
    current: list[Note] = []
    chars = 0
    for note in notes:
        length = len(line_of(note)) + 1
        if current and (len(current) >= size or chars + length > CALL_CHARS):
            found.append(current)
            current, chars = [], 0
        current.append(note)
        chars += length
    if current:
        found.append(current)
    return found


class Judge:
    """A model's `complete(system, user)` with a budget of calls (see the module docstring)."""

    def __init__(
        self,
        complete: Any,
        budget: int,
        *,
        prompts: Mapping[str, str] = PROMPTS,
        timeout: float = 60.0,
    ) -> None:
        self.complete = complete
        self.left = budget
        self.prompts = prompts
        self.timeout = timeout
        self.calls = 0
        self.failed = 0

    @property
    def present(self) -> bool:
        """Whether there is a model at all (a run without one does the word-level phases only)."""
        return self.complete is not None

    @property
    def can(self) -> bool:
        """Whether a call may still be made in this run."""
        return self.present and self.left > 0

    async def ask(self, prompt: str, user: str) -> list[dict[str, Any]] | None:
        """The model's answer to `user` under the prompt named `prompt`, as its items (objects); None when
        no call may be made or the call failed (then nothing it was asked about counts as judged)."""
        if not self.can:
            return None
        self.left -= 1
        self.calls += 1
        system = self.prompts.get(prompt) or PROMPTS[prompt]
        try:
            reply = await acomplete(self.complete, system, user, timeout=self.timeout)
        except Exception as err:  # the host's model: anything can go wrong there; the words' findings stand
            self.failed += 1
            log.warning("the health check's %s call failed: %s", prompt, err)
            return None
        return _items(reply)


def _items(reply: object) -> list[dict[str, Any]]:
    """The objects of the first array in a reply (or of an object's one list, or one object alone)."""
    for found in json_reply.values(reply, "[{"):
        if isinstance(found, list):
            return [item for item in found if isinstance(item, dict)]
        if isinstance(found, dict):
            lists = [value for value in found.values() if isinstance(value, list)]
            if len(lists) == 1:
                return [item for item in lists[0] if isinstance(item, dict)]
            return [found]
    return []


def note_id(value: object) -> int | None:
    """An id as a model writes it: 12, "12" or "#12"; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("#").strip().isdigit():
        return int(value.strip().lstrip("#").strip())
    return None


def unit(value: object, default: float) -> float:
    """A probability or confidence from 0 to 1 as a model writes it; `default` when it gave none."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return default
    try:
        number = float(value)
    except ValueError:
        return default
    if number != number:  # NaN
        return default
    if 1 < number <= 100:  # a percentage
        number /= 100
    return min(1.0, max(0.0, number))
