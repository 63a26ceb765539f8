"""Mood: each person's value (0-100) and feelings, decaying on read, moved by judged exchanges, told once.

`feelings` names the feelings, `settings` holds the rules, `decay` does the time maths, `changes` turns what
a caller or a judge says into a checked change, and `moods` holds the transaction functions the `Mneme`
facade runs in the store (`state`, `apply`, `apply_answers`, `news`, `describe`, `timeline`, `reset`,
`export_rows`, `import_rows`).
"""

from __future__ import annotations

from .changes import Change, Judgement, change_of
from .feelings import EMOTIONS, Emotion
from .moods import MoodEvent, MoodState
from .settings import MoodSettings

__all__ = [
    "EMOTIONS",
    "Change",
    "Emotion",
    "Judgement",
    "MoodEvent",
    "MoodSettings",
    "MoodState",
    "change_of",
]
