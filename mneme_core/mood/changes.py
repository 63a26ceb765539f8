"""Changes to a mood, as values: what a caller asks for (`Change`) and what a judge answered (`Judgement`).

Both are checked when they are made, so a wrong number (NaN, infinity, a bool, a confidence of 2) is refused
before any work reaches the store, naming the field and what is allowed.

`change_of` turns a judge's answers into a change. The judge is asked how the exchange moved the mood (a
level from -2 to +2) and which feeling it stirred (or 'none'); expected values are used, not the most likely
answers, so an unsure judge moves the mood little:

    delta       expected level x step (6): at most 12 per exchange, before weights
    feelings    gain (40) x p for each feeling with p >= 0.15
    confidence  the feeling question's when a feeling was chosen, else the mood question's
    reason      the judge's; else, when a feeling was chosen, the person's last line ("Leo said “…”") or,
                for speak-up, "you reached out to Leo"
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import errors, text
from ..errors import InvalidType, InvalidValue
from ..messages import Words
from . import decay
from .feelings import NONE
from .settings import MoodSettings, number

MIN_PROBABILITY = 0.15
TOP_LEVEL = 2.0
REASON_LIMIT = 300
SAID_LIMIT = 40
NAME_LIMIT = 80


def _label(name: str, value: object) -> str:
    if not isinstance(value, str) or not text.clean(value) or len(value) > 40 or text.clean(value) != value:
        raise InvalidValue(
            f"{name} is a one-line word of 1 to 40 characters, like 'user', not {errors.describe(value)}"
        )
    return value


@dataclass(frozen=True, kw_only=True)
class Change:
    """A change to apply, checked when made so a wrong number is refused before anything is written."""

    delta: float = 0.0
    emotions: Mapping[str, float] = field(default_factory=dict, hash=False)
    reason: str = ""
    confidence: float = 1.0
    source: str = "manual"
    judge: str = "manual"
    weight: float = 1.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "delta", number("delta", self.delta, -math.inf, math.inf))
        feelings = {} if self.emotions is None else self.emotions
        if not isinstance(feelings, Mapping):
            raise InvalidType(
                f"emotions map a feeling to a number, like {{'happy': 20}}, not {errors.describe(feelings)}"
            )
        put(
            self,
            "emotions",
            {str(k): number(f"the feeling {k!r}", v, 0.0, 100.0) for k, v in feelings.items()},
        )
        if not isinstance(self.reason, str):
            raise InvalidType(f"a reason is a string, not {type(self.reason).__name__}")
        put(self, "reason", text.one_line(self.reason, REASON_LIMIT))
        put(self, "confidence", number("confidence", self.confidence, 0.0, 1.0))
        put(self, "source", _label("source", self.source))
        put(self, "judge", _label("judge", self.judge))
        put(self, "weight", number("weight", self.weight, 0.0, math.inf))


@dataclass(frozen=True, kw_only=True)
class Judgement:
    """What a judge answered about one exchange, before it becomes a `Change` (`change_of`).

    `level` is the expected level of the mood question (sum of p x level over -2..+2); `feelings` the
    probability of each feeling key, 'none' included; `exchange` and `user_name` only give a reason when the
    judge gave none ("Leo said “…”").
    """

    level: float
    feelings: Mapping[str, float] = field(default_factory=dict, hash=False)
    level_confidence: float = 1.0
    feeling_confidence: float | None = None
    judge: str = "manual"
    reason: str = ""
    source: str = "user"
    weight: float = 1.0
    exchange: str = ""
    user_name: str = "the user"

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "level", number("level", self.level, -math.inf, math.inf))
        if not isinstance(self.feelings, Mapping):
            raise InvalidType(
                f"feelings map a feeling to a probability, not {errors.describe(self.feelings)}"
            )
        put(self, "feelings", {str(k): number(f"p({k})", p, 0.0, 1.0) for k, p in self.feelings.items()})
        put(self, "level_confidence", number("level_confidence", self.level_confidence, 0.0, 1.0))
        if self.feeling_confidence is not None:
            put(self, "feeling_confidence", number("feeling_confidence", self.feeling_confidence, 0.0, 1.0))
        for name in ("reason", "exchange", "user_name"):
            if not isinstance(getattr(self, name), str):
                raise InvalidType(f"{name} is a string, not {type(getattr(self, name)).__name__}")
        put(self, "source", _label("source", self.source))
        put(self, "judge", _label("judge", self.judge))
        put(self, "weight", number("weight", self.weight, 0.0, math.inf))


def change_of(judged: Judgement, settings: MoodSettings, words: Words) -> Change:
    """A judgement as a change: level x step, gain x p for each feeling with p >= 0.15, and the confidence
    of the chosen feeling (or of the mood question when the choice was 'none')."""
    known = {k: p for k, p in judged.feelings.items() if k == NONE or settings.emotion(k)}
    chosen = max(known, key=lambda k: known[k]) if known else NONE
    bumps = {k: settings.gain * p for k, p in known.items() if k != NONE and p >= MIN_PROBABILITY}
    confidence = judged.level_confidence
    if chosen != NONE and judged.feeling_confidence is not None:
        confidence = judged.feeling_confidence
    reason = judged.reason
    if not reason and chosen != NONE:
        reason = _said(judged, words)
    level = decay.clamp(judged.level, -TOP_LEVEL, TOP_LEVEL)
    return Change(
        delta=level * settings.step,
        emotions=bumps,
        reason=reason,
        confidence=confidence,
        source=judged.source,
        judge=judged.judge,
        weight=judged.weight,
    )


def _said(judged: Judgement, words: Words) -> str:
    """The reason when the judge gave none: the person's last line, or that the companion reached out."""
    name = text.one_line(judged.user_name, NAME_LIMIT) or "the user"
    if judged.source == "speak-up":
        return words.say("mood.reached_out", user=name)
    prefix = f"{judged.user_name}:"
    for line in reversed(judged.exchange.splitlines()):
        if line.startswith(prefix) and text.clean(line[len(prefix) :]):
            return words.say("mood.said", user=name, said=text.one_line(line[len(prefix) :], SAID_LIMIT))
    return ""
