"""Typed questions a decision chain answers, and the answer it gives.

A question has a name (the key of its answer), instructions (what to judge) and labels (what may be answered):
- `Predicate(name, instructions)`: true or false. "Is this worth remembering?"
- `Choice(name, instructions, options)`: one of several values, each with a description. "Which feeling?"
- `Score(name, instructions, levels)`: one of ordered levels, lowest first. "How did the mood move, -2 to 2?"

An `Answer` is a probability for every label, not one pick, so an unsure judge is visible as such: the mood
moves by the *expected* level (`Answer.mean()`), which is small when the judge hesitates between "-1" and
"1", and a predicate is read as `Answer.probability`, P(true). `confidence` is how sure the answering tier
says it is (for a pick, the picked label's probability); `by` names the tier that answered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import text
from ..errors import InvalidType, InvalidValue, describe

__all__ = ["TYPES", "Answer", "Choice", "Predicate", "Question", "Score"]

TYPES = ("predicate", "choice", "score")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
NAME_RULE = "a question's name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter"
LABEL_LIMIT = 80
DESCRIPTION_LIMIT = 300


def _name(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"{NAME_RULE}; got {type(value).__name__}")
    if not NAME.fullmatch(value):
        raise InvalidValue(f"{NAME_RULE}, not {describe(value)}")
    return value


def _instructions(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"the instructions of question {name!r} are a string, not {type(value).__name__}")
    if text.is_blank(value):
        raise InvalidValue(f"the instructions of question {name!r} must not be empty")
    return value.strip()


def _label(value: object, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidType(
            f"a label of question {name!r} is a string (or a whole number), not {describe(value)}"
        )
    label = text.clean(str(value))
    if not label or len(label) > LABEL_LIMIT:
        raise InvalidValue(f"a label of question {name!r} is one line of 1 to {LABEL_LIMIT} characters")
    return label


def _description(value: object, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidType(f"a description in question {name!r} is a string, not {type(value).__name__}")
    return text.one_line(value, DESCRIPTION_LIMIT)


def _pairs(value: object, name: str, what: str) -> tuple[tuple[str, str], ...]:
    """{label: description}, or [label | (label, description)], as checked (label, description) pairs."""
    if isinstance(value, Mapping):
        items: Iterable[Any] = value.items()
    elif isinstance(value, Iterable) and not isinstance(value, str | bytes):
        items = [item if isinstance(item, tuple | list) else (item, "") for item in value]
    else:
        raise InvalidType(
            f"the {what} of question {name!r} are {{value: description}} or [value | (value, description)], "
            f"not {type(value).__name__}"
        )
    pairs = []
    for item in items:
        if len(item) != 2:
            raise InvalidValue(f"an entry of the {what} of question {name!r} is (value, description)")
        pairs.append((_label(item[0], name), _description(item[1], name)))
    labels = [label for label, _ in pairs]
    if len(labels) < 2:
        raise InvalidValue(f"question {name!r} needs 2 or more {what}, not {len(labels)}")
    if len(set(labels)) != len(labels):
        raise InvalidValue(f"the {what} of question {name!r} repeat a value: {', '.join(labels)}")
    return tuple(pairs)


@dataclass(frozen=True)
class Predicate:
    """A yes/no question; its labels are "true" and "false"."""

    name: str
    instructions: str
    type: ClassVar[str] = "predicate"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name))
        object.__setattr__(self, "instructions", _instructions(self.instructions, self.name))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        return (("true", "yes"), ("false", "no"))

    @property
    def labels(self) -> tuple[str, ...]:
        return ("true", "false")


@dataclass(frozen=True)
class Choice:
    """Pick one of `options`: {value: description} or [value | (value, description)]."""

    name: str
    instructions: str
    options: Any
    type: ClassVar[str] = "choice"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name))
        object.__setattr__(self, "instructions", _instructions(self.instructions, self.name))
        object.__setattr__(self, "options", _pairs(self.options, self.name, "options"))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        return self.options

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.options)


@dataclass(frozen=True)
class Score:
    """Pick one of ordered `levels`, lowest first: {"-2": "clearly worse", ..., "2": "clearly better"}."""

    name: str
    instructions: str
    levels: Any
    type: ClassVar[str] = "score"

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _name(self.name))
        object.__setattr__(self, "instructions", _instructions(self.instructions, self.name))
        object.__setattr__(self, "levels", _pairs(self.levels, self.name, "levels"))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        return self.levels

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.levels)


Question = Predicate | Choice | Score


def _unit(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidValue(f"{what} is a number from 0 to 1, not {describe(value)}")
    if not 0 <= value <= 1:
        raise InvalidValue(f"{what} is a number from 0 to 1, not {describe(value)}")
    return float(value)


@dataclass(frozen=True)
class Answer:
    """A tier's answer to one question: a probability for each label (they sum to 1)."""

    name: str
    type: str
    probabilities: dict[str, float]
    confidence: float
    by: str
    reason: str = field(default="")

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise InvalidValue(f"an answer's type is one of {', '.join(TYPES)}, not {describe(self.type)}")
        if not isinstance(self.probabilities, Mapping) or not self.probabilities:
            raise InvalidValue(f"answer {self.name!r} needs a probability for at least one label")
        probabilities = self.probabilities
        if not all(type(k) is str and type(p) is float and 0 <= p <= 1 for k, p in probabilities.items()):
            # the checks (and their messages) only for what is not already a label and a probability
            probabilities = {
                str(label): _unit(p, f"the probability of {label!r} in answer {self.name!r}")
                for label, p in probabilities.items()
            }
        total = sum(probabilities.values())
        if total <= 0:
            raise InvalidValue(f"the probabilities of answer {self.name!r} add up to 0")
        object.__setattr__(self, "probabilities", {k: p / total for k, p in probabilities.items()})
        object.__setattr__(self, "confidence", _unit(self.confidence, f"the confidence of {self.name!r}"))
        object.__setattr__(self, "by", text.one_line(self.by, 80) if self.by else "")
        object.__setattr__(self, "reason", text.one_line(self.reason, 300) if self.reason else "")

    @property
    def choice(self) -> str:
        """The most probable label (the first one listed on a tie)."""
        return max(self.probabilities, key=self.probabilities.__getitem__)

    @property
    def probability(self) -> float:
        """P(true) for a predicate; for a choice or a score, the probability of `choice`."""
        if self.type == "predicate":
            return self.probabilities.get("true", 0.0)
        return self.probabilities[self.choice]

    def mean(self, values: Mapping[str, float] | None = None) -> float:
        """The expected value: each label's number (`values[label]`, else the label read as a number;
        a predicate's true is 1 and false 0) times its probability. An unsure judge gives a value near the
        middle of the levels, a sure one its pick."""
        if values is None and self.type == "predicate":
            values = {"true": 1.0, "false": 0.0}
        total = 0.0
        for label, p in self.probabilities.items():
            try:
                number = float(values[label] if values is not None and label in values else label)
            except (TypeError, ValueError):
                number = math.nan
            if not math.isfinite(number):
                raise InvalidValue(
                    f"label {label!r} of answer {self.name!r} is not a finite number; give mean() its value"
                )
            total += p * number
        return total
