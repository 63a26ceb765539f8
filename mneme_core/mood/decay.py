"""Decay: how a mood settles with time, computed when it is read.

Nothing ticks. A mood row holds the value and feelings as they were last written and when; reading it at
any later moment gives what time has made of them:

    value    baseline + (stored - baseline) * 0.5 ** (hours / mood_half_life_h)
    feeling  stored * 0.5 ** (minutes / emotion_half_life_min), dropped once under 0.5

so a value of 61 is 65.5 three hours later (baseline 70, half-life 3 h) and a feeling of 45 is 11.25
(half-life 90 min). A clock that went back counts as no time passing: decay never runs backwards.

Faces name the value the way a person would, by its rounded value: 80 and up great, 62 good, 42 ok, 25 worry,
below that sad.
"""

from __future__ import annotations

from collections.abc import Mapping

KEEP = 0.5
"""A feeling weaker than this is gone."""

FACES = ((80, "great"), (62, "good"), (42, "ok"), (25, "worry"))
LOWEST_FACE = "sad"


def clamp(value: float, low: float, high: float) -> float:
    return min(high, max(low, value))


def halved(elapsed: float, half_life: float) -> float:
    """The factor left after `elapsed` of time with this half-life (same unit); 1 for elapsed <= 0."""
    return 0.5 ** (max(0.0, elapsed) / half_life)


def value_at(stored: float, baseline: float, seconds: float, half_life_h: float) -> float:
    """The value `seconds` after it was stored, drifted toward the baseline."""
    return baseline + (stored - baseline) * halved(seconds / 3600.0, half_life_h)


def feelings_at(stored: Mapping[str, float], seconds: float, half_life_min: float) -> dict[str, float]:
    """The feelings `seconds` after they were stored, faded; the ones under `KEEP` are gone."""
    factor = halved(seconds / 60.0, half_life_min)
    faded = {key: amount * factor for key, amount in stored.items()}
    return {key: amount for key, amount in faded.items() if amount >= KEEP}


def tidy(feelings: Mapping[str, float]) -> dict[str, float]:
    """Feelings as they are stored: at most 100, to 2 decimals, under `KEEP` dropped, strongest first."""
    kept = {key: round(min(100.0, amount), 2) for key, amount in feelings.items()}
    return dict(sorted(((k, v) for k, v in kept.items() if v >= KEEP), key=lambda kv: (-kv[1], kv[0])))


def face(value: float) -> str:
    """The face of a value: 'great', 'good', 'ok', 'worry' or 'sad' (see the module docstring)."""
    rounded = round(value)
    for low, name in FACES:
        if rounded >= low:
            return name
    return LOWEST_FACE
