"""A companion's config: one TOML file to start from, and the database's own copy from then on.

Everything that makes a companion itself is a config key: its name, languages and zone, the memory, mood
and relationship settings, its roles and feelings, every prompt its models are given and every sentence it
shows, and its adapters' and plugins' own tables. `mneme config template` prints every key with this
version's defaults.

The claims, and where they are kept:
- One file to start from, never silently unread. The first time a database meets a space it takes the file
  over the built-in defaults; from then on the database keeps its own copy (`stored.Config`). A file given
  again gives its `[adapters.*]` and `[plugins.*]` tables at each start; where it differs in the
  companion's own keys, one line names them and what to run (`meeting`).
- Nothing wrong gets in. Every key has a check (`keys`, `checks`); a file with one bad key is refused whole,
  the message naming the key and what is allowed, and nothing is written. A prompt may use only its own
  placeholders; any other brace is kept as it is, so a prompt can hold JSON.
- Nothing changes by itself. Upgrades never change a stored value; `Config.check()` lists the defaults a
  newer version improved and the values that no longer pass, and `load_defaults` takes them when asked.
- Arguments win for the process. What `Mneme(...)` is given overrides the config for that process and is
  never stored (`Config.settings(overrides)`).
- Secrets are references. `token = { "$env" = "DISCORD_TOKEN" }` is what is stored, shown and exported; the
  secret is read from the environment only for its owner (`secrets.resolve`).

Glossary:
    key      a flat, dotted name: `mood.step`, `prompts.reflect`, `messages.zh.notes.header`
    origin   where a stored value came from: default, file, set or import
    met      a space is met once it has config rows in the database
"""

from __future__ import annotations

from .keys import KEYS, MISSING, ConfigError, Key, lookup
from .secrets import is_reference, resolve
from .stored import ORIGINS, Config, Imported, Report, Row
from .toml import dumps, load, template
from .views import Settings, Snapshot, arguments

__all__ = [
    "KEYS",
    "MISSING",
    "ORIGINS",
    "Config",
    "ConfigError",
    "Imported",
    "Key",
    "Report",
    "Row",
    "Settings",
    "Snapshot",
    "arguments",
    "dumps",
    "is_reference",
    "load",
    "lookup",
    "resolve",
    "template",
]
