"""Decisions: typed questions answered by tiers that fall through.

`Chain(*tiers)` asks each question of the first tier that answers it; `Prompt(complete)` is the tier that
asks the host's own chat model. A tier that has no key, cannot be reached or is not sure passes the question
on; one that fails is rested for a minute. See `chain` for the policy and `prompt` for the judge's format.

    chain = Chain(Prompt(my_model))
    answers = await chain.adecide(text, [Predicate("urgent", "The person needs an answer right now.")])
    answers["urgent"].probability, answers["urgent"].by          # 0.9, "prompt"
"""

from __future__ import annotations

from .chain import REST_SECONDS, Chain, Tier, Unavailable, run
from .json_reply import first_array, first_object
from .prompt import DEFAULT_TIMEOUT, Complete, Prompt, acomplete
from .questions import Answer, Choice, Predicate, Question, Score

__all__ = [
    "DEFAULT_TIMEOUT",
    "REST_SECONDS",
    "Answer",
    "Chain",
    "Choice",
    "Complete",
    "Predicate",
    "Prompt",
    "Question",
    "Score",
    "Tier",
    "Unavailable",
    "acomplete",
    "first_array",
    "first_object",
    "run",
]
