"""Mneme: memory and mood for AI companions and chat bots, kept in one SQLite file.

`Mneme(path, space=...)` is the companion's memory; `aprompt(subject, query)` gives the block for the
system prompt before each reply. See README.md for a tour and DESIGN.md for the map.
"""

from __future__ import annotations

from .config import Config, ConfigError, Settings
from .errors import ClosedError, InvalidType, InvalidValue, MnemeError, SchemaError
from .memory.note import KINDS, Note
from .memory.recall import Recall, Recalled
from .mneme import Mneme

__version__ = "0.1.0"

__all__ = [
    "KINDS",
    "ClosedError",
    "Config",
    "ConfigError",
    "InvalidType",
    "InvalidValue",
    "Mneme",
    "MnemeError",
    "Note",
    "Recall",
    "Recalled",
    "SchemaError",
    "Settings",
    "__version__",
]
