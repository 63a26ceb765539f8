"""A config file given again: what differs from the database's copy, and what becomes of each difference.

The database keeps the companion's own copy of its config: that is the design, so the setup travels with
the memory. But a file handed to every start (`--config bot.toml`, `MNEME_CONFIG`, `Mneme(config=...)`)
is never silently unread. The rule, each time the file meets a companion that has met one before:

- Deployment tables come from the file. `[adapters.*]` and `[plugins.*]` say where this process runs: a
  port, an endpoint, a model, which variable holds a token. Each key the file gives there is stored as the
  file has it (origin "file"), and a key an earlier file wrote in a table the file still has, but no longer
  gives, is removed. Keys written otherwise (`mneme config set`, or by an adapter itself, such as Telegram's
  opt-outs) stay unless the file gives them. A table the file does not have is left alone. One line says
  what was taken.
- The companion's own settings stay in the database: its name, persona, languages, mood, roles, prompts
  and sentences are what it has become, changed on purpose (`mneme config set|apply`). Where the file says
  otherwise, one line at start-up names each key and says what to run: `mneme config apply FILE` takes the
  file's values, `mneme config check FILE` shows each of them.

Why this split: the first hour's mistakes are in the deployment tables (a wrong port, a model name, an
endpoint) and fixing the file must fix the bot; a persona or a mood tuned through `config set` must not be
undone by a file that was written before it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import text
from .keys import FREE, MISSING
from .toml import inline

__all__ = ["Difference", "Met", "command", "differences", "is_deployment"]


def command(db: str, space: str) -> str:
    """How to call `mneme` on this companion: its file, and its space unless it is the default one."""
    named = "" if space == "default" else f" --space {shlex.quote(space)}"
    return f"mneme --db {shlex.quote(db)}{named}"


def is_deployment(key: str) -> bool:
    """Whether a key is in an adapter's or plugin's table, which the file gives at every start."""
    return key.partition(".")[0] in FREE


def _table(key: str) -> str:
    return key.rsplit(".", 1)[0]


@dataclass(frozen=True)
class Difference:
    """One key where a file and the database's copy part: each side's value (MISSING where it has none)."""

    key: str
    file: Any
    stored: Any

    @property
    def deployment(self) -> bool:
        return is_deployment(self.key)

    def says(self) -> str:
        """The two values, each on one short line."""
        return f"the file has {_shown(self.file)}, the database {_shown(self.stored)}"


def _shown(value: Any) -> str:
    return "nothing" if value is MISSING else text.clip(" ".join(inline(value).split()), 60)


def differences(
    given: Mapping[str, Any],
    values: Mapping[str, Any],
    rows: Mapping[str, tuple[Any, str, float]],
) -> list[Difference]:
    """Where a file's checked keys (`given`) part from the values in effect (`values`, of the stored `rows`):
    each key it gives otherwise, and each deployment key an earlier file wrote in a table this file has,
    which it no longer gives."""
    found = [Difference(key, value, values.get(key, MISSING)) for key, value in given.items()]
    found = [d for d in found if d.file != d.stored]
    tables = {_table(key) for key in given if is_deployment(key)}
    for key, (value, origin, _) in rows.items():
        if origin == "file" and is_deployment(key) and _table(key) in tables and key not in given:
            found.append(Difference(key, MISSING, value))
    return found


@dataclass(frozen=True)
class Met:
    """What meeting a file did: taken whole (`first`), and otherwise what it differed in."""

    name: str = ""
    first: bool = False
    """The file was taken whole: the space had no copy of its own yet (or only defaults)."""
    taken: tuple[Difference, ...] = ()
    """Deployment keys written from the file (or removed, those it no longer gives) this time."""
    kept: tuple[Difference, ...] = field(default=())
    """The companion's own keys where the file says otherwise; the database's values are used."""
    written: bool = False
    """Whether anything was written (the first meeting stores the defaults too)."""

    def __bool__(self) -> bool:
        return self.written

    def took(self) -> str:
        """The line saying what the deployment tables took from the file."""
        keys = ", ".join(d.key for d in self.taken)
        return (
            f"{self.name}: took {keys} from the file ([adapters.*] and [plugins.*] are read at every start)"
        )

    def unread(self, command: str) -> str:
        """The line naming the companion's keys the file differs in, and what to run (`command` is how
        to call `mneme` on this companion's file)."""
        keys = ", ".join(d.key for d in self.kept)
        return (
            f"{self.name} differs from the database's copy of the companion's config in {keys}: the "
            f"database's is used; `{command} config apply {self.name}` takes the file's, "
            f"`{command} config check {self.name}` shows each"
        )
