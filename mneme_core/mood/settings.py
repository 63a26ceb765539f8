"""How a companion's mood behaves, as one frozen value checked when it is made.

Glossary:
    baseline   where the value rests (70 of 100) and drifts back to, with a half-life of `mood_half_life_h`.
    floor, ceiling
               the band the value is kept in; `floor <= baseline <= ceiling`.
    step       how far one judged exchange moves the value per level (-2..+2), so at most 2 x step.
    gain       how far one judged exchange bumps a feeling at probability 1.
    threshold  how sure a judge must be for a change to be told (recorded either way); `thresholds` per judge
               (Luna's confidence runs lower, hence 0.45).
    tell       "event" tells the state and what moved it, "mood" the state only, "off" nothing.
    weights    how much each source moves the mood: the person talking (user), the companion reaching out
               on its own (speak-up), a scheduled task (duty). Other sources count 1.
    skip       sources that never move the mood (the host's runtime turns, clock ticks).

A setting out of range is refused here, naming the field and what is allowed, so a bad config never reaches
the decay maths (a half-life of 0 would divide by zero; a negative weight would turn joy into grief).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import InvalidType, InvalidValue, describe
from ..finite import finite
from .feelings import EMOTIONS, Emotion

TELLS = ("event", "mood", "off")
MAX_WEIGHT = 10.0


def number(name: str, value: object, low: float, high: float) -> float:
    """`value` as a float in [low, high], or `InvalidValue` naming `name` and the range (bools refused)."""
    found = finite(value)
    if found is not None and low <= found <= high:
        return found
    if low == -math.inf and high == math.inf:
        raise InvalidValue(f"{name} is a finite number, not {describe(value)}")
    if high == math.inf:
        raise InvalidValue(f"{name} is a finite number, {low:g} or more, not {describe(value)}")
    raise InvalidValue(f"{name} is a number from {low:g} to {high:g}, not {describe(value)}")


def number_or(value: object, low: float, high: float, default: float | None) -> float | None:
    """Lenient `number` for imports: a finite number clamped to [low, high], anything else `default`."""
    found = finite(value)
    return default if found is None else min(high, max(low, found))


def _word(name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 40 or value != value.strip():
        raise InvalidValue(
            f"{name} are words of 1 to 40 characters without outer spaces, not {describe(value)}"
        )
    return value


def _table(name: str, value: object, high: float) -> dict[str, float]:
    if not isinstance(value, Mapping):
        raise InvalidType(f"{name} is a table of names to numbers, not {type(value).__name__}")
    return {_word(name, k): number(f"{name}.{k}", v, 0.0, high) for k, v in value.items()}


@dataclass(frozen=True)
class MoodSettings:
    """The mood's rules; the defaults are mneme-llm's."""

    baseline: float = 70.0
    floor: float = 0.0
    ceiling: float = 100.0
    mood_half_life_h: float = 3.0
    emotion_half_life_min: float = 90.0
    step: float = 6.0
    gain: float = 40.0
    threshold: float = 0.6
    thresholds: Mapping[str, float] = field(default_factory=lambda: {"luna": 0.45}, hash=False)
    tell: str = "event"
    emotions: tuple[Emotion, ...] = EMOTIONS
    weights: Mapping[str, float] = field(
        default_factory=lambda: {"user": 1.0, "speak-up": 0.7, "duty": 0.5}, hash=False
    )
    skip: frozenset[str] = frozenset({"runtime", "time"})

    def __post_init__(self) -> None:
        put = object.__setattr__
        floor = number("floor", self.floor, 0.0, 100.0)
        ceiling = number("ceiling", self.ceiling, floor, 100.0)
        put(self, "floor", floor)
        put(self, "ceiling", ceiling)
        put(self, "baseline", number("baseline", self.baseline, floor, ceiling))
        put(self, "mood_half_life_h", number("mood_half_life_h", self.mood_half_life_h, 0.01, 8760.0))
        put(
            self,
            "emotion_half_life_min",
            number("emotion_half_life_min", self.emotion_half_life_min, 0.01, 525_600.0),
        )
        put(self, "step", number("step", self.step, 0.0, 50.0))
        put(self, "gain", number("gain", self.gain, 0.0, 100.0))
        put(self, "threshold", number("threshold", self.threshold, 0.0, 1.0))
        put(self, "thresholds", _table("thresholds", self.thresholds, 1.0))
        if self.tell not in TELLS:
            raise InvalidValue(f"tell is one of {', '.join(TELLS)}, not {describe(self.tell)}")
        put(self, "emotions", _emotions(self.emotions))
        put(self, "weights", _table("weights", self.weights, MAX_WEIGHT))
        if isinstance(self.skip, str) or not isinstance(self.skip, Iterable):
            raise InvalidType(f"skip is a list of sources, not {describe(self.skip)}")
        put(self, "skip", frozenset(_word("skip", s) for s in self.skip))

    def threshold_of(self, judge: str) -> float:
        """How sure `judge` must be for its change to be told; 'luna+prompt' is judged by its first tier."""
        first = (judge or "").split("+", 1)[0].strip()
        return self.thresholds.get(first, self.threshold)

    def emotion(self, key: str) -> Emotion | None:
        """The feeling with this key, or None for a key these settings do not know."""
        for emotion in self.emotions:
            if emotion.key == key:
                return emotion
        return None

    def weight_of(self, source: str) -> float:
        """How much a source moves the mood (1 for a source without a weight of its own)."""
        return self.weights.get(source, 1.0)


def _emotions(value: object) -> tuple[Emotion, ...]:
    if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
        raise InvalidType(f"emotions is a list of Emotion, not {describe(value)}")
    found = tuple(value)
    if not found or not all(isinstance(e, Emotion) for e in found):
        raise InvalidValue(f"emotions is a list of at least one Emotion, not {describe(found)}")
    keys = [e.key for e in found]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise InvalidValue(f"emotions name each feeling once; {', '.join(twice)} came more than once")
    return found
