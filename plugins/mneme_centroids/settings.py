"""The `[plugins.centroids]` table, declared once: the tier reads its settings with these checks, and the
plugin registers them (`register_settings`) for `mneme config set`, `check` and `template`. No numpy here:
declaring must not need the `embed` extra."""

from __future__ import annotations

from mneme_core.config import checks
from mneme_core.config.declared import Setting, Table

__all__ = ["MIN_NOTES", "MIN_SHARE", "SETTINGS"]

MIN_NOTES = 40
MIN_SHARE = 0.6

SETTINGS = Table(
    "plugins.centroids",
    (
        Setting(
            "min_notes",
            checks.number(1, 1_000_000, whole=True),
            "notes a person must have taught before the tier answers (1 to 1000000)",
            MIN_NOTES,
        ),
        Setting(
            "min_share",
            checks.number(0, 1),
            "the share of a query's weight its known words must carry (0 to 1)",
            MIN_SHARE,
        ),
    ),
)
