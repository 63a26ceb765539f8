"""mneme-llm's switches of its tiers, as `Mneme(...)` takes them.

mneme-llm 0.1.0 documents five arguments that turn its tiers on and off, and a user moving over keeps
writing them. Each is accepted with its documented meaning:

    luna           decision tier 1, GPT-6 Luna's Decisions API. Mneme has no such tier: False (or leaving
                   it out) is what Mneme does anyway; a tier object of your own (anything with
                   `async adecide(input, questions)`) is asked before your model; True is refused.
    micro          decision tier 2, a local model trained on Luna's answers. The same: False, a tier of
                   your own, or refused for True.
    embed          meaning tier 1. True is OpenAI's text-embedding-3-small at 256 dimensions
                   ("openai:text-embedding-3-small@256", the key from OPENAI_API_KEY); False is no
                   embedder for this process, whatever `memory.embed` says; a name, an `Embeddings` or
                   a function texts -> vectors, as before.
    meaning_micro  meaning tier 2, word centroids learned from the vectors (the `centroids` tier here).
                   True keeps it where it is installed; False leaves it out for this process.
    memory_language  meaning tier 3, unify. A language, "" or None (None turns the tier off, as in
                   mneme-llm); not given, the config's `companion.memory_language`.

A switch asking for a tier Mneme does not have is refused in one line that says so and what to write
instead, before the file is opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import InvalidType, InvalidValue, describe

__all__ = ["OPENAI_EMBEDDER", "STORED", "Switches", "switches"]

OPENAI_EMBEDDER = "openai:text-embedding-3-small@256"
CENTROIDS = "centroids"


class _Stored:
    """An argument not given: the companion's stored config decides."""

    def __repr__(self) -> str:
        return "STORED"


STORED: Any = _Stored()

_MISSING_TIER = {
    "luna": "GPT-6 Luna's Decisions API",
    "micro": "the micro model trained on Luna's answers",
}


@dataclass(frozen=True)
class Switches:
    """What the switches ask of this process."""

    decision_tiers: tuple[Any, ...] = ()
    """Tiers of the caller's own, asked before the companion's model, in order (luna's, then micro's)."""
    embed: Any = None
    """What `embed=` names for `choose_embedder`; None: the config's `memory.embed`."""
    memory_language: str | None = None
    """The memory language for this process; None: the config's."""
    left_out: frozenset[str] = frozenset()
    """Meaning tiers left out for this process, by name."""


def _decision_tier(name: str, value: object) -> tuple[Any, ...]:
    if value is None or value is False:
        return ()
    if value is True:
        raise InvalidValue(
            f"{name}=True asks for {_MISSING_TIER[name]}, a decision tier Mneme does not have; leave {name} "
            f"out or write {name}=False (decisions come from complete=), or pass a tier of your own"
        )
    if not callable(getattr(value, "adecide", None)):
        raise InvalidType(
            f"{name} is False or a decision tier with an async adecide(input, questions) method, not "
            f"{describe(value)}"
        )
    return (value,)


def _embed(value: object) -> Any:
    if value is True:
        return OPENAI_EMBEDDER
    if value is False:
        return ""
    return value


def _memory_language(value: object) -> str | None:
    if value is STORED:
        return None
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidType(
            f'memory_language is a language like "English", or "" or None to turn glossing off, not '
            f"{describe(value)} (a tier of your own is a plugin's register_tiers here)"
        )
    return value


def switches(
    *,
    luna: object = False,
    micro: object = False,
    embed: object = None,
    meaning_micro: object = True,
    memory_language: object = STORED,
) -> Switches:
    """The switches as given to `Mneme(...)`, checked; refuses a tier Mneme does not have, naming it."""
    if not isinstance(meaning_micro, bool):
        raise InvalidType(
            f"meaning_micro is True or False (the word centroids tier, on where installed), not "
            f"{describe(meaning_micro)}; a tier of your own is a plugin's register_tiers here"
        )
    return Switches(
        decision_tiers=(*_decision_tier("luna", luna), *_decision_tier("micro", micro)),
        embed=_embed(embed),
        memory_language=_memory_language(memory_language),
        left_out=frozenset() if meaning_micro else frozenset({CENTROIDS}),
    )
