"""Feelings: the named states a mood carries besides its value.

A feeling is a key ("tender"), its labels in each display language ("aching for them", "心疼") and one flag:
whether it `lowers` the mood. The flag is the guardrail of the whole mood model: the value only drops when
the strongest feeling of a change is one that lowers it (aching for them, worry, sadness), never when the
companion is merely cross or jealous, so a companion does not sulk at the people it cares for.

Plugins add feelings of their own through `register_emotions`; a feeling without a cue sentence of its own
gets the plain "You feel {feeling}." in the news.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InvalidType, InvalidValue, describe
from ..messages import base

KEY = re.compile(r"[a-z][a-z0-9_-]{0,39}")
NONE = "none"
"""What a judge answers when nothing in particular was felt; never a feeling's key."""


@dataclass(frozen=True)
class Emotion:
    """One feeling: `Emotion("proud", names={"en": "proud", "zh": "自豪"})`."""

    key: str
    lowers: bool = False
    names: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not KEY.fullmatch(self.key) or self.key == NONE:
            raise InvalidValue(
                "a feeling's key is a lowercase word of up to 40 letters, digits, _ or - "
                f"(and not 'none'), not {describe(self.key)}"
            )
        if not isinstance(self.lowers, bool):
            raise InvalidType(
                f"lowers (for the feeling {self.key}) is True or False, not {describe(self.lowers)}"
            )
        if not isinstance(self.names, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() and "\n" not in v
            for k, v in self.names.items()
        ):
            raise InvalidValue(
                f"names (for the feeling {self.key}) map a language to a one-line label, like "
                f"{{'en': 'proud'}}, not {describe(self.names)}"
            )
        # A copy, so the caller's dict cannot change a frozen feeling afterwards.
        object.__setattr__(self, "names", dict(self.names))

    def label(self, lang: str = "en") -> str:
        """The feeling's name in a display language, then its base language, then English, then the key."""
        for name in (lang, base(lang), "en"):
            if name in self.names:
                return self.names[name]
        return self.key

    def description(self) -> str:
        """How a judge is shown the feeling: 'happy (开心)', the English and Chinese labels together."""
        en, zh = self.label("en"), self.names.get("zh")
        return f"{en} ({zh})" if zh and zh != en else en


EMOTIONS: tuple[Emotion, ...] = (
    Emotion("happy", names={"en": "happy", "zh": "开心"}),
    Emotion("calm", names={"en": "at ease", "zh": "踏实"}),
    Emotion("sweet", names={"en": "sweet", "zh": "甜蜜"}),
    Emotion("tender", lowers=True, names={"en": "aching for them", "zh": "心疼"}),
    Emotion("worried", lowers=True, names={"en": "worried", "zh": "担心"}),
    Emotion("sad", lowers=True, names={"en": "sad", "zh": "难过"}),
    Emotion("jealous", names={"en": "jealous", "zh": "吃醋"}),
)
"""The seven built-in feelings, in the order a judge is shown them."""
