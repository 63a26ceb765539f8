"""Numbers from callers and imports, read as finite floats.

A Python int can be larger than any float: `float(10**400)` and `math.isfinite(10**400)` raise
`OverflowError`, which is neither the `ValueError` nor the `TypeError` a wrong value must give. Validation
asks `finite(value)` instead, which answers None for anything that is not a finite real number (a bool, a
string, NaN, an infinity, an int beyond float's range), so the caller refuses it, or falls back to a
default, with its own message.
"""

from __future__ import annotations

import math


def finite(value: object) -> float | None:
    """`value` as a finite float, or None when it is not a finite number (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
