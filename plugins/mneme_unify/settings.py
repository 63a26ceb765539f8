"""The `[plugins.unify]` table, declared once: the tier reads its settings with these checks, and the
plugin registers them (`register_settings`) for `mneme config set`, `check` and `template`."""

from __future__ import annotations

from mneme_core.config import checks
from mneme_core.config.declared import Setting, Table

__all__ = ["BATCH", "CACHE", "SETTINGS", "TIMEOUT"]

TIMEOUT = 8.0  # a translation on the reply's path
BATCH = 16  # notes per gloss request
CACHE = 256

SETTINGS = Table(
    "plugins.unify",
    (
        Setting(
            "timeout",
            checks.number(0.1, 600),
            "seconds a translation may take on the reply's path (0.1 to 600)",
            TIMEOUT,
        ),
        Setting("batch", checks.number(1, 256, whole=True), "notes per gloss request (1 to 256)", BATCH),
        Setting("cache", checks.number(0, 100_000, whole=True), "translations kept (0 to 100000)", CACHE),
        Setting("background", checks.boolean, "gloss notes on a thread of its own", True),
    ),
)
