"""Mneme: memory and mood for AI companions and chat bots, kept in one SQLite file.

`Mneme(path, space=...)` is the companion's memory; `aprompt(subject, query)` gives the block for the
system prompt before each reply and `aobserve(subject, exchange)` the judgement after it. See README.md for
a tour and `docs/design.md` for the map.
"""

from __future__ import annotations

from .config import Config, ConfigError, Settings
from .decide import Answer, Chain, Choice, Predicate, Prompt, Score, Unavailable
from .errors import (
    BusyError,
    ClosedError,
    DiskFullError,
    InvalidType,
    InvalidValue,
    MnemeError,
    SchemaError,
    StorageError,
)
from .hookspecs import hookimpl
from .memory.note import KINDS, Note
from .memory.recall import Recall, Recalled
from .mneme import Mneme
from .mood import EMOTIONS, Emotion, MoodEvent, MoodSettings, MoodState
from .observe import Observation
from .relations import ROLES, Relationship, Role

__version__ = "0.1.0"

__all__ = [
    "EMOTIONS",
    "KINDS",
    "ROLES",
    "Answer",
    "BusyError",
    "Chain",
    "Choice",
    "ClosedError",
    "Config",
    "ConfigError",
    "DiskFullError",
    "Emotion",
    "InvalidType",
    "InvalidValue",
    "Mneme",
    "MnemeError",
    "MoodEvent",
    "MoodSettings",
    "MoodState",
    "Note",
    "Observation",
    "Predicate",
    "Prompt",
    "Recall",
    "Recalled",
    "Relationship",
    "Role",
    "SchemaError",
    "Score",
    "Settings",
    "StorageError",
    "Unavailable",
    "__version__",
    "hookimpl",
]
