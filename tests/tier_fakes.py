"""Shared by the tier tests: an embedder with a known geometry that can fail, stall or change dimensions,
a model that glosses and translates from a small dictionary, and a person with enough notes to learn from.

The embedder: each concept is one axis, and a text's vector is the sum of the axes of the concepts it names
in any language ("cat", "kitten", "猫" and "年糕" all point along the cat axis), plus a little noise of its
own, drawn from the text's hash, so that unrelated notes are nearly orthogonal.
"""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

CONCEPTS = {
    "cat": ("cat", "kitten", "猫", "年糕", "tabby"),
    "tea": ("tea", "oolong", "茶"),
    "run": ("marathon", "running", "race", "跑步"),
    "work": ("job", "office", "boss", "工作", "老板"),
    "music": ("guitar", "吉他", "song", "band"),
}
DIMS = 64
NOISE = 0.05


def concept_vector(text: str, dims: int = DIMS) -> list[float]:
    low = text.lower()
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")
    v = np.random.default_rng(seed).normal(0.0, NOISE, dims)
    for i, words in enumerate(CONCEPTS.values()):
        if any(w in low for w in words):
            v[i] += 1.0
    return v.tolist()


class Fake:
    """A sync embedder that counts its calls and can be told to fail, stall or change its dimensions."""

    def __init__(self, dims: int = DIMS) -> None:
        self.dims = dims
        self.calls = 0
        self.fail = False
        self.stall = 0.0

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.fail:
            raise ConnectionError("the embedding service is down")
        if self.stall:
            threading.Event().wait(self.stall)
        return [concept_vector(t, self.dims) for t in texts]


S = "discord:42"
CAT_NOTE = "养了一只叫年糕的猫"
FILLER_TOPICS = ("weather", "train", "dinner", "movie", "garden", "bicycle", "cousin", "holiday")


def teach(m, subject: str = S, fillers: int = 40) -> None:
    """A person with a Chinese note about their cat, English notes about the kitten, and fillers."""
    m.remember(subject, CAT_NOTE)
    m.remember(subject, "the kitten sleeps on the sofa all day")
    m.remember(subject, "bought a feather toy for the kitten")
    m.remember(subject, "drinks oolong tea every morning")
    for i in range(fillers):
        topic = FILLER_TOPICS[i % len(FILLER_TOPICS)]
        m.remember(subject, f"talked about the {topic} on day {i}")


DICTIONARY = {
    "我的猫叫年糕": "my cat is called Niangao",
    "养了一只叫年糕的猫": "has a cat called Niangao",
    "马拉松": "marathon",
    "我报名了马拉松吗": "did I sign up for the marathon",
    "最近跑步怎么样": "how is running going lately",
}


class Model:
    """A stand-in for the companion's model: glosses numbered lines and translates queries from
    `DICTIONARY`; it can be told to fail, or to fail on any batch holding a given text."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.fail = False
        self.poison: set[str] = set()

    def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        if self.fail:
            raise ConnectionError("the model is down")
        if any(p in user for p in self.poison):
            return "sorry, I cannot help with that"
        lines = []
        for line in user.splitlines():
            numbered = re.match(r"^(\d+)\. (.*)$", line)
            if numbered:
                said = DICTIONARY.get(numbered.group(2), numbered.group(2))
                lines.append(f"{numbered.group(1)}. {said}")
        if lines:
            return "\n".join(lines)
        return DICTIONARY.get(user.strip(), user.strip())
